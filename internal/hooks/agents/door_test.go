package agents

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// door is Claude Code's door over a fresh project and home, with the
// environment vars and what it warns collected in warned.
func door(t *testing.T, event, input string, vars map[string]string, warned *[]string) (*Door, Call) {
	t.Helper()
	project, home := t.TempDir(), t.TempDir()
	ev, err := Claude.Resolve(event)
	if err != nil {
		t.Fatal(err)
	}
	d := &Door{Agent: Claude, Input: hooks.Input{Event: event, Stdin: strings.NewReader(input)},
		Env: hooks.Env{Getenv: func(k string) string { return vars[k] }, Warn: func(m string) { *warned = append(*warned, m) }},
		Layout: func(root string) (plugins.Layout, error) {
			if root != "" {
				project = root
			}
			return plugins.NewLayout(project, filepath.Join(home, ".quiver")), nil
		}}
	return d, Call{Event: ev.Quiver, Native: ev.Native}
}

// TestDoorAnswers: with no hooks, the agent's event is allowed in its
// own format, and the call becomes the event its input named.
func TestDoorAnswers(t *testing.T) {
	var warned []string
	d, call := door(t, "PreToolUse", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, nil, &warned)
	ans, err := d.Answer(t.Context(), &call)
	if err != nil || ans.Exit != 0 {
		t.Fatalf("answer %+v, %v", ans, err)
	}
	if call.Event != "before_tool_call" || call.Payload == nil {
		t.Errorf("call %+v", call)
	}
	if len(warned) != 0 {
		t.Errorf("warned %q", warned)
	}
}

// TestDoorFailsClosed: input that is not a JSON object is quiver's own
// failure: a deny of a blocking event under --fail-closed (or
// QUIVER_FAIL_CLOSED=1), said on stderr, and otherwise the error; a
// bad --timeout is the caller's mistake.
func TestDoorFailsClosed(t *testing.T) {
	for _, c := range []struct {
		name       string
		flag       bool
		vars       map[string]string
		failClosed bool
	}{
		{"flag", true, nil, true},
		{"variable", false, map[string]string{"QUIVER_FAIL_CLOSED": "1"}, true},
		{"neither", false, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var warned []string
			d, call := door(t, "PreToolUse", `[1]`, c.vars, &warned)
			d.FailClosed = c.flag
			if d.FailsClosed(call) != c.failClosed {
				t.Fatalf("FailsClosed = %v", !c.failClosed)
			}
			ans, err := d.Answer(t.Context(), &call)
			if !c.failClosed {
				if err == nil || !strings.Contains(err.Error(), "Claude Code's input is not a JSON object") {
					t.Errorf("error %v", err)
				}
				return
			}
			denied := string(ans.Stdout) + ans.Stderr
			if err != nil || !strings.Contains(denied, "quiver failed (Claude Code's input is not a JSON object); failing closed") {
				t.Errorf("answer %q (exit %d), %v", denied, ans.Exit, err)
			}
			if len(warned) != 1 || warned[0] != "quiver: Claude Code's input is not a JSON object" {
				t.Errorf("warned %q", warned)
			}
		})
	}
	var warned []string
	d, call := door(t, "PreToolUse", `{}`, nil, &warned)
	d.Timeout = "soon"
	if _, err := d.Answer(t.Context(), &call); !errors.Is(err, hooks.ErrTimeoutFlag) {
		t.Errorf("a bad --timeout: %v", err)
	}
}

// TestDoorDeny: the answer given when a signal ends quiver first denies
// the call in the agent's format.
func TestDoorDeny(t *testing.T) {
	var warned []string
	d, call := door(t, "PreToolUse", "", nil, &warned)
	ans := d.Deny(call, hooks.Unfinished(errors.New("interrupted (SIGTERM)")))
	if said := string(ans.Stdout) + ans.Stderr; !strings.Contains(said, "quiver was interrupted (SIGTERM) before every hook had run; failing closed") {
		t.Errorf("deny %q (exit %d)", said, ans.Exit)
	}
}
