package agents

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/hooks"
)

// TestGeminiAnswers: what `hook run --format gemini` prints for each
// decision (testdata/gemini/answers.golden). Gemini CLI 0.61 reads no
// additionalContext on BeforeTool (measured, docs/agents.md), so a
// block's context rides in its reason, which its model does get; an ask's
// reason is the systemMessage its confirmation shows; context after a
// tool is additionalContext, which Gemini appends to the tool's result.
func TestGeminiAnswers(t *testing.T) {
	ctx := &[]hooks.Text{{Hook: "acme/lint", Text: "main.go is generated"}}
	notice := &[]hooks.Text{{Hook: "acme/guard", Text: "listing everything"}}
	none := &[]hooks.Text{}
	input := json.RawMessage(`{"command":"ls -la"}`)
	cases := []struct {
		name   string
		event  string
		result hooks.Result
		opts   Options
	}{
		{"block", beforeToolCall, hooks.Result{Decision: hooks.Block, Blocked: true, Reason: "rm -rf is not allowed", Context: none, Notices: none}, Options{}},
		{"block with context", beforeToolCall, hooks.Result{Decision: hooks.Block, Blocked: true, Reason: "rm -rf is not allowed", Context: ctx, Notices: notice}, Options{}},
		{"context, no block", beforeToolCall, hooks.Result{Decision: hooks.Allow, Context: ctx, Notices: none}, Options{}},
		{"ask", beforeToolCall, hooks.Result{Decision: hooks.Ask, Reason: "deploys need a human", Context: none, Notices: notice}, Options{}},
		{"rewrite", beforeToolCall, hooks.Result{Decision: hooks.Allow, Input: input, Context: none, Notices: notice}, Options{}},
		{"rewrite, --allow-rewrites", beforeToolCall, hooks.Result{Decision: hooks.Allow, Input: input, Context: none, Notices: none}, Options{AllowRewrites: true}},
		{"context after a tool", afterToolCall, hooks.Result{Context: ctx, Notices: none}, Options{}},
	}
	var b strings.Builder
	for _, c := range cases {
		native := map[string]string{beforeToolCall: "BeforeTool", afterToolCall: "AfterTool"}[c.event]
		a := Gemini.Encode(Call{Event: c.event, Native: native, Payload: hooks.Payload{}}, &c.result, c.opts)
		if a.Exit != 0 {
			t.Errorf("%s: exit %d", c.name, a.Exit)
		}
		fmt.Fprintf(&b, "# %s\n%s\n", c.name, a.Stdout)
	}
	golden(t, filepath.Join("testdata", "gemini", "answers.golden"), []byte(b.String()))
}
