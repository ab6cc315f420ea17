package format

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConditionClaudeVerdicts checks quiver's reading of rules against
// verdicts computed by Claude Code's own functions (see the file's
// header): the rule language for Bash, Glob/Grep and file tools, exactly.
func TestConditionClaudeVerdicts(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "claude-if-verdicts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var refused []string // rules quiver refuses (the handler is invalid) rather than read otherwise
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		var rule, text string
		if len(f) != 5 || json.Unmarshal([]byte(f[1]), &rule) != nil || json.Unmarshal([]byte(f[2]), &text) != nil {
			t.Fatalf("line %d: %q", i+1, line)
		}
		var got bool
		switch f[0] {
		case "bash":
			r := parseBashRule(rule)
			cmd := glob(nil).text(text)
			if r.blanks {
				cmd = collapseBlanks(cmd)
			}
			got = fitsAny(r.alts, cmd)
		case "pattern":
			got = fitsAny(wildcard(rule, false), glob(nil).text(text))
		case "path":
			r, err := parsePathRule(rule)
			if err != nil {
				refused = append(refused, rule)
				continue
			}
			got = r.claude(text, absolute(text, f[3], "/home/u"), f[3], "/p", "/home/u")
		default:
			t.Fatalf("line %d: kind %q", i+1, f[0])
		}
		if want := f[4] == "true"; got != want {
			t.Errorf("line %d: %s rule %q on %q (cwd %q) = %v, Claude says %v", i+1, f[0], rule, text, f[3], got, want)
		}
		n++
	}
	if n < 1000 {
		t.Errorf("only %d verdicts read", n)
	}
	if len(refused) > n/50 {
		t.Errorf("quiver refuses %d of %d rules: %q", len(refused), n, refused)
	}
}

// TestConditionOnlyOnToolEvents: Claude evaluates `if` on the five tool
// events alone, and skips a handler with an `if` on any other event.
func TestConditionOnlyOnToolEvents(t *testing.T) {
	payload := map[string]json.RawMessage{
		"tool_name":  json.RawMessage(`"Bash"`),
		"tool_input": json.RawMessage(`{"command":"git push"}`),
		"source":     json.RawMessage(`"startup"`),
	}
	for _, tt := range []struct {
		event string
		want  bool
	}{
		{"PreToolUse", true}, {"PostToolUse", true}, {"PostToolUseFailure", true},
		{"PermissionRequest", true}, {"PermissionDenied", true},
		{"SessionStart", false}, {"UserPromptSubmit", false}, {"Stop", false}, {"Notification", false},
	} {
		s, err := NewSelector(Handler{Event: tt.event, If: "Bash"})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Selects(payload, "/p", "/home/u"); got != tt.want {
			t.Errorf("a handler with an `if` on %s selected = %v, want %v", tt.event, got, tt.want)
		}
		if got := ToolEvent(tt.event); got != tt.want {
			t.Errorf("ToolEvent(%s) = %v, want %v", tt.event, got, tt.want)
		}
	}
	for _, e := range []string{BeforeToolCall, AfterToolCall, "post_tool_use_failure", "permission_request", "permission_denied"} {
		if !ToolEvent(e) || MatchField(e) != "tool_name" {
			t.Errorf("quiver's %s is a tool event matched on tool_name", e)
		}
	}
	for _, e := range []string{SessionStart, UserMessageSend, AgentStop, TurnEnd} {
		if ToolEvent(e) {
			t.Errorf("%s is no tool event", e)
		}
	}
}
