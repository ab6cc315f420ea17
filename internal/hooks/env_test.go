package hooks

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
)

func envOf(vars map[string]string) Env {
	return Env{Getenv: func(k string) string { return vars[k] }}
}

// TestEnvTimeout: the flag wins over QUIVER_HOOK_TIMEOUT, which wins over
// the default; a bad flag is the caller's mistake, a bad variable names
// itself, and neither becomes "no timeout".
func TestEnvTimeout(t *testing.T) {
	for _, tc := range []struct {
		name, flag, env string
		want            time.Duration
		flagErr         bool
		errHas          string
	}{
		{name: "default", want: DefaultTimeout},
		{name: "variable", env: "2s", want: 2 * time.Second},
		{name: "flag wins", flag: "500ms", env: "2s", want: 500 * time.Millisecond},
		{name: "bad flag", flag: "soon", flagErr: true, errHas: `--timeout "soon" is not a Go duration; write it like 5s`},
		{name: "zero flag", flag: "0s", flagErr: true, errHas: "--timeout"},
		{name: "bad variable", env: "-1s", errHas: "QUIVER_HOOK_TIMEOUT"},
		{name: "bad variable, good flag", flag: "1s", env: "never", want: time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := envOf(map[string]string{"QUIVER_HOOK_TIMEOUT": tc.env}).Timeout(tc.flag)
			if tc.errHas == "" {
				if err != nil || d != tc.want {
					t.Fatalf("Timeout(%q) with %q = %v, %v; want %v", tc.flag, tc.env, d, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.errHas) {
				t.Fatalf("Timeout(%q) with %q = %v, %v; want an error with %q", tc.flag, tc.env, d, err, tc.errHas)
			}
			if got := errors.Is(err, ErrTimeoutFlag); got != tc.flagErr {
				t.Fatalf("errors.Is(%v, ErrTimeoutFlag) = %v", err, got)
			}
		})
	}
}

func TestEnvFailClosed(t *testing.T) {
	for _, tc := range []struct {
		flag bool
		env  string
		want bool
	}{{false, "", false}, {true, "", true}, {false, "1", true}, {false, "yes", false}} {
		if got := envOf(map[string]string{"QUIVER_FAIL_CLOSED": tc.env}).FailClosed(tc.flag); got != tc.want {
			t.Errorf("FailClosed(%v) with QUIVER_FAIL_CLOSED=%q = %v", tc.flag, tc.env, got)
		}
	}
}

func emptyScopes(t *testing.T) discovery.Options {
	base := t.TempDir()
	return discovery.Options{Layout: plugins.NewLayout(filepath.Join(base, "project"), filepath.Join(base, "home"))}
}

// TestEnvRunner: the runner takes its switches from the environment and
// its project from the scopes.
func TestEnvRunner(t *testing.T) {
	o := emptyScopes(t)
	var said []string
	env := Env{
		Getenv: func(k string) string {
			return map[string]string{"QUIVER_NO_HOOKS": "1", "QUIVER_AUDIT_LOG": "/tmp/audit.jsonl"}[k]
		},
		Warn: func(m string) { said = append(said, m) },
	}
	r := env.Runner(o)
	if !r.NoHooks || r.AuditLog != "/tmp/audit.jsonl" || r.Executor.ProjectDir != o.Layout.ProjectDir || r.Hooks == nil {
		t.Fatalf("runner %+v", r)
	}
	r.Warn("heard")
	if len(said) != 1 {
		t.Fatalf("Warn does not reach the env's: %q", said)
	}
	if r := envOf(nil).Runner(o); r.NoHooks || r.AuditLog != "" {
		t.Fatalf("runner without variables %+v", r)
	}
}

// TestRunDecoded: a foreign door's payload is checked and completed as
// hook run's own before it runs.
func TestRunDecoded(t *testing.T) {
	o := emptyScopes(t)
	env := envOf(nil)
	res, err := env.RunDecoded(t.Context(), o, format.BeforeToolCall, Payload{"tool_name": []byte(`"bash"`)}, false, time.Second, AsyncDetach)
	if err != nil || res.Blocked {
		t.Fatalf("no hooks: %+v, %v", res, err)
	}
	_, err = env.RunDecoded(t.Context(), o, format.BeforeToolCall, Payload{"event": []byte(`"agent_stop"`)}, false, time.Second, AsyncDetach)
	if !errors.Is(err, ErrEventMismatch) {
		t.Fatalf("payload of another event: %v; want ErrEventMismatch", err)
	}
}

func TestReadEvent(t *testing.T) {
	for _, tc := range []struct {
		name, event, stdin string
		want               error
	}{
		{name: "unknown event", event: "tool_call", stdin: "{}", want: ErrUnknownEvent},
		{name: "another event", event: format.AgentStop, stdin: `{"event":"turn_end"}`, want: ErrEventMismatch},
		{name: "not an object", event: format.AgentStop, stdin: `[1]`, want: ErrPayload},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadEvent(tc.event, "", strings.NewReader(tc.stdin), "/p")
			if !errors.Is(err, tc.want) {
				t.Fatalf("ReadEvent: %v; want %v", err, tc.want)
			}
		})
	}
	p, err := ReadEvent(format.AgentStop, "", nil, "/p")
	if err != nil || p.String("cwd") != "/p" || p.String("event") != format.AgentStop {
		t.Fatalf("no stdin: %v, %v; want the completed empty payload", p, err)
	}
}

// TestEnvRead: a door's input is read in order, the --timeout flag, then
// the scopes, then the payload for their project; a mistake in the input
// stops it before the scopes are resolved (or the payload is read).
func TestEnvRead(t *testing.T) {
	project := t.TempDir()
	resolved := 0
	layout := func() (plugins.Layout, error) {
		resolved++
		return plugins.NewLayout(project, filepath.Join(t.TempDir(), ".quiver")), nil
	}
	e := envOf(map[string]string{"QUIVER_HOOK_TIMEOUT": "2s"})
	r, err := e.Read(Input{Event: format.BeforeToolCall, Stdin: strings.NewReader(`{"tool_name":"bash","tool_input":{}}`)}, layout)
	if err != nil || r.Timeout != 2*time.Second || r.Layout.ProjectDir != project || r.Payload == nil {
		t.Fatalf("Read = %+v, %v", r, err)
	}
	if _, err := e.Read(Input{Event: format.BeforeToolCall, Timeout: "soon"}, layout); !errors.Is(err, ErrTimeoutFlag) || resolved != 1 {
		t.Errorf("a bad --timeout: %v, scopes resolved %d times", err, resolved)
	}
	if _, err := e.Read(Input{Event: "nosuch"}, layout); !errors.Is(err, ErrUnknownEvent) {
		t.Errorf("an unknown event: %v", err)
	}
	failing := func() (plugins.Layout, error) { return plugins.Layout{}, errors.New("no home") }
	if _, err := e.Read(Input{Event: format.BeforeToolCall, Stdin: strings.NewReader("not json")}, failing); err == nil || err.Error() != "no home" {
		t.Errorf("scopes that cannot be resolved: %v", err)
	}
}
