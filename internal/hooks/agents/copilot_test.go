package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/hooks"
)

// Copilot CLI 1.0.102's own hook input, as it sent it to a command hook
// (docs/agents.md: measured against a scripted model on 127.0.0.1).
const (
	copilotPreToolUse  = `{"sessionId":"87588d4c","timestamp":1795631139251,"cwd":"/tmp/p","toolName":"bash","toolArgs":{"command":"echo hi","description":"say hi"}}`
	copilotPostToolUse = `{"sessionId":"87588d4c","timestamp":1795631139572,"cwd":"/tmp/p","toolName":"bash","toolArgs":{"command":"echo hi"},"toolResult":{"resultType":"success","textResultForLlm":"hi\n"}}`
	copilotPrompt      = `{"sessionId":"87588d4c","timestamp":1795631138808,"cwd":"/tmp/p","prompt":"run echo"}`
	copilotStop        = `{"sessionId":"87588d4c","timestamp":1795631139744,"cwd":"/tmp/p","transcriptPath":"/h/events.jsonl","stopReason":"end_turn","stop_hook_active":false}`
	copilotSubStop     = `{"sessionId":"87588d4c","timestamp":1,"cwd":"/tmp/p","transcriptPath":"/h/events.jsonl","agentName":"helper","stopReason":"end_turn"}`
)

func TestCopilotDecode(t *testing.T) {
	for _, c := range []struct {
		event, input string
		want         map[string]string
	}{
		{"before_tool_call", copilotPreToolUse, map[string]string{"conv_id": `"87588d4c"`, "tool_name": `"bash"`, "tool_input": `{"command":"echo hi","description":"say hi"}`, "cwd": `"/tmp/p"`}},
		{"preToolUse", `{"toolName":"bash","toolArgs":"{\"command\":\"ls\"}"}`, map[string]string{"tool_input": `{"command":"ls"}`}},
		{"after_tool_call", copilotPostToolUse, map[string]string{"tool_output": `{"resultType":"success","textResultForLlm":"hi\n"}`}},
		{"user_message_send", copilotPrompt, map[string]string{"message": `"run echo"`}},
		{"agent_stop", copilotStop, map[string]string{"invoked_by": `"main"`, "stop_hook_active": "false"}},
		{"agent_stop", copilotSubStop, map[string]string{"invoked_by": `"subagent"`}},
	} {
		call, err := Copilot.Decode(c.event, []byte(c.input))
		if err != nil {
			t.Fatalf("%s: %v", c.event, err)
		}
		for k, v := range c.want {
			if got := string(call.Payload[k]); got != v {
				t.Errorf("%s: %s = %s, want %s", c.event, k, got, v)
			}
		}
	}
}

func TestCopilotEncode(t *testing.T) {
	ctx := &[]hooks.Text{{Hook: "h", Text: "tabs"}}
	input := json.RawMessage(`{"command":"ls -la"}`)
	for _, c := range []struct {
		name, event string
		r           hooks.Result
		o           Options
		want        string
	}{
		{"deny", "before_tool_call", hooks.Result{Blocked: true, Decision: hooks.Block, Reason: "no"}, Options{}, `{"permissionDecision":"deny","permissionDecisionReason":"no"}`},
		{"ask", "before_tool_call", hooks.Result{Decision: hooks.Ask, Reason: "a human"}, Options{}, `{"permissionDecision":"ask","permissionDecisionReason":"a human"}`},
		{"rewrite asks", "before_tool_call", hooks.Result{Input: input}, Options{}, `{"permissionDecision":"ask","permissionDecisionReason":"` + rewriteReason + `","modifiedArgs":{"command":"ls -la"}}`},
		{"rewrite", "before_tool_call", hooks.Result{Input: input}, Options{AllowRewrites: true}, `{"modifiedArgs":{"command":"ls -la"}}`},
		{"rewrite and ask", "before_tool_call", hooks.Result{Input: input, Decision: hooks.Ask, Reason: "a human"}, Options{}, `{"permissionDecision":"ask","permissionDecisionReason":"a human","modifiedArgs":{"command":"ls -la"}}`},
		{"a block drops the rewrite", "before_tool_call", hooks.Result{Input: input, Blocked: true, Reason: "no"}, Options{}, `{"permissionDecision":"deny","permissionDecisionReason":"no"}`},
		{"context", "session_start", hooks.Result{Context: ctx}, Options{}, `{"additionalContext":"[h] tabs"}`},
		{"prompt block", "user_message_send", hooks.Result{Blocked: true, Reason: "secret"}, Options{}, `{"decision":"block","reason":"secret"}`},
		{"keep going", "agent_stop", hooks.Result{FollowUpMessages: &[]json.RawMessage{json.RawMessage(`"test first"`)}}, Options{}, `{"decision":"block","reason":"test first"}`},
		{"stop", "agent_stop", hooks.Result{FollowUpMessages: &[]json.RawMessage{}, Context: ctx}, Options{}, `{}`},
		{"notices unsaid", "after_tool_call", hooks.Result{Notices: ctx, Output: json.RawMessage(`"x"`)}, Options{}, `{}`},
	} {
		ev, _ := Copilot.Resolve(c.event)
		ans := Copilot.Encode(Call{Event: ev.Quiver, Native: ev.Native}, &c.r, c.o)
		if string(ans.Stdout) != c.want || ans.Exit != 0 {
			t.Errorf("%s: %s (exit %d), want %s", c.name, ans.Stdout, ans.Exit, c.want)
		}
	}
}

// TestCopilotSubagent: Claude's frontmatter in Copilot's terms.
func TestCopilotSubagent(t *testing.T) {
	out, dropped, err := copilotSubagent(map[string]any{"name": "helper", "description": "Helps", "tools": "Read, Grep, Bash(git:*), mcp__x__y", "model": "sonnet", "color": "blue"}, "You help.\n", "helper")
	if err != nil {
		t.Fatal(err)
	}
	want := "---\nname: helper\ndescription: Helps\ntools:\n    - read\n    - search\n    - execute\n---\nYou help.\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if got := strings.Join(dropped, ", "); got != "color, model, tool mcp__x__y" {
		t.Errorf("dropped %s", got)
	}
	if _, _, err := copilotSubagent(map[string]any{"description": "x", "tools": "mcp__x__y"}, "", "x"); err == nil {
		t.Error("a subagent none of whose tools Copilot has got all of them")
	}
	if _, _, err := copilotSubagent(map[string]any{"name": "x"}, "", "x"); err == nil {
		t.Error("a subagent without a description was written")
	}
}

// TestCopilotTrusts: a project is trusted when it, or a folder above it,
// is in trusted_folders (a sibling whose name starts alike is not); a
// relative entry or a config that does not parse trusts nothing.
func TestCopilotTrusts(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	for _, c := range []struct {
		config string
		want   bool
	}{
		{`{"trusted_folders": ["/work/proj"]}`, true},
		{`{"trusted_folders": ["/work"], // Copilot's own comment
		}`, true},
		{`{"trusted_folders": ["/work/pro"]}`, false},
		{`{"trusted_folders": ["/work/proj/sub"]}`, false},
		{`{"trusted_folders": ["work/proj"]}`, false},
		{`{"trusted_folders": "/work/proj"}`, false},
		{`not json`, false},
	} {
		if err := os.WriteFile(config, []byte(c.config), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := copilotTrusts(config, "/work/proj"); got != c.want {
			t.Errorf("%s: trusted = %v, want %v", c.config, got, c.want)
		}
	}
	if copilotTrusts(filepath.Join(dir, "missing.json"), "/work/proj") {
		t.Error("no config.json trusts nothing")
	}
}
