package hooks

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTestReportSays(t *testing.T) {
	tests := []struct {
		name              string
		r                 TestReport
		declares, verdict string
	}{
		{"blocked", TestReport{Event: "before_tool_call", DeclaredEvent: "before_tool_call", Status: Blocked, Reason: "no rm"},
			"before_tool_call", "blocked: no rm"},
		{"wrong event", TestReport{Event: "turn_end", DeclaredEvent: "before_tool_call", Status: NoAction},
			"before_tool_call (but was sent turn_end: quiver would never run it for that event)", "no_action (empty stdout, exit 0)"},
		{"declare error", TestReport{Event: "turn_end", DeclareError: "no answer", Status: Failed, Error: "exit 1"},
			"nothing valid: no answer", "failed: exit 1"},
		{"persistent", TestReport{Event: "turn_end", DeclaredEvent: "turn_end", Persistent: true, Status: OK,
			Response: &Response{Input: json.RawMessage(`{"a":1}`), FollowUpMessages: []json.RawMessage{json.RawMessage(`"x"`), json.RawMessage(`"y"`)}, Context: "ctx", Notice: "hi"}},
			"turn_end persistent (hook serve keeps '<hook> serve' running; tested here one-shot)",
			`ok; replaces tool_input with {"a":1}; adds 2 follow-up messages; context for the model: ctx; notice for the user: hi`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.Declares(); got != tt.declares {
				t.Errorf("Declares() = %q, want %q", got, tt.declares)
			}
			if got := tt.r.Verdict(); got != tt.verdict {
				t.Errorf("Verdict() = %q, want %q", got, tt.verdict)
			}
		})
	}
}

// TestTestReportLines: hook test shows the hook, what it declares, its
// exit code and duration, each stream indented line by line (or said
// empty) with what the hook wrote escaped, and the verdict last.
func TestTestReportLines(t *testing.T) {
	r := TestReport{Name: "acme/guard/check", Path: "/p/hooks/check", Event: "before_tool_call", DeclaredEvent: "before_tool_call",
		Status: Blocked, Reason: "no rm", ExitCode: 0, DurationMS: 12.34, Stdout: "{\"decision\":\"block\"}\n", Stderr: "a\n\x1b[31mb\n\n"}
	want := []string{
		"hook:      acme/guard/check (/p/hooks/check)",
		"declares:  before_tool_call",
		"exit code: 0",
		"duration:  12.3 ms",
		"stdout:",
		`  {"decision":"block"}`,
		"stderr:",
		"  a",
		`  \x1b[31mb`,
		"verdict:   blocked: no rm",
	}
	if got := r.Lines(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	r.Stdout, r.Stderr = "", "\n"
	if got := r.Lines(); got[4] != "stdout: (empty)" || got[5] != "stderr: (empty)" {
		t.Errorf("empty streams: %q", got[4:6])
	}
}
