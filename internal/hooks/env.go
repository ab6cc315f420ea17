package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/async"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/timeouts"
)

// Env is what a door takes from the process it runs in: the variables
// that switch the runtime (QUIVER_HOOK_TIMEOUT, QUIVER_FAIL_CLOSED,
// QUIVER_NO_HOOKS, QUIVER_AUDIT_LOG) and where warnings go. Every door
// builds its Runner from one, so none reads the environment its own way.
type Env struct {
	// Getenv reads a variable: os.Getenv, or a map's lookup in tests.
	Getenv func(string) string
	// Warn hears what the person using the agent should know (Runner's
	// Warn); nil: nothing is said.
	Warn func(string)
	// Owner starts the process that owns background handlers (Runner's
	// Owner); nil: they are waited for.
	Owner *async.Owner
}

// ErrTimeoutFlag marks a --timeout written wrong: the caller's mistake,
// which a door answers with its usage.
var ErrTimeoutFlag = errors.New("--timeout")

// Timeout resolves a door's --timeout flag, then QUIVER_HOOK_TIMEOUT,
// then DefaultTimeout, each bounded by timeouts.Parse: a bad flag is
// ErrTimeoutFlag, a bad variable an error that names it, and neither is
// ever "no timeout".
func (e Env) Timeout(flag string) (time.Duration, error) {
	if flag != "" {
		d, err := timeouts.Parse(flag)
		if err != nil {
			return 0, fmt.Errorf("%w %v; write it like 5s, 500ms or 1m", ErrTimeoutFlag, err)
		}
		return d, nil
	}
	v := e.Getenv("QUIVER_HOOK_TIMEOUT")
	if v == "" {
		return DefaultTimeout, nil
	}
	d, err := timeouts.Parse(v)
	if err != nil {
		return 0, fmt.Errorf("QUIVER_HOOK_TIMEOUT %v; write it like 5s, 500ms or 1m, or unset it for 30s", err)
	}
	return d, nil
}

// FailClosed is a door's --fail-closed or QUIVER_FAIL_CLOSED=1: the one
// place the variable is read.
func (e Env) FailClosed(flag bool) bool { return flag || e.Getenv("QUIVER_FAIL_CLOSED") == "1" }

// Runner is the runtime every door uses (SPEC §8), reading the hooks of
// o's scopes at each run (FromFiles) with the environment's switches.
func (e Env) Runner(o discovery.Options) *Runner {
	return &Runner{
		Hooks:    FromFiles(o),
		Executor: Executor{ProjectDir: o.Layout.ProjectDir},
		NoHooks:  e.Getenv("QUIVER_NO_HOOKS") == "1",
		AuditLog: e.Getenv("QUIVER_AUDIT_LOG"),
		Warn:     e.Warn,
		Owner:    e.Owner,
		// The project's own state when there is a project scope: a
		// session belongs to the project it runs in.
		StateDir: o.Layout.Scope(false).StateDir(),
	}
}

// RunDecoded runs an event that a foreign door decoded from an agent's
// own input: its payload is checked and completed as hook run's own
// (ParsePayload), then run by the Runner over o with failClosed (or
// QUIVER_FAIL_CLOSED=1, which the background handlers' own run ignores:
// they decide nothing), with the agent's handling of background handlers.
func (e Env) RunDecoded(ctx context.Context, o discovery.Options, event string, p Payload, failClosed bool, timeout time.Duration, async AsyncMode) (*Result, error) {
	data, _ := json.Marshal(p)
	payload, err := ParsePayload(event, data, o.Layout.ProjectDir)
	if err != nil {
		return nil, err
	}
	r := e.Runner(o)
	r.Async = async
	if async.Only() {
		// What such a run prints on stderr can reach the agent's model
		// (an asyncRewake's exit 2): only the handlers' own words do.
		r.Warn = nil
	}
	return r.Run(ctx, event, payload, e.FailClosed(failClosed) && !async.Only(), timeout)
}

// Input is what a door reads an event from: the event's name, its
// payload (the --payload file, else Stdin; a nil Stdin is none) and the
// --timeout flag.
type Input struct {
	Event, PayloadFile, Timeout string
	Stdin                       io.Reader
}

// Request is an event read for hook run or hook test: the scopes it runs
// in, its payload and each hook's time limit.
type Request struct {
	Layout  plugins.Layout
	Payload Payload
	Timeout time.Duration
}

// Read resolves in's timeout (Timeout), then the scopes (layout), then
// reads and parses the event's payload for their project (ReadEvent). A
// mistake in in is ErrTimeoutFlag, ErrUnknownEvent or ErrEventMismatch.
func (e Env) Read(in Input, layout func() (plugins.Layout, error)) (Request, error) {
	var r Request
	var err error
	if r.Timeout, err = e.Timeout(in.Timeout); err != nil {
		return r, err
	}
	if r.Layout, err = layout(); err != nil {
		return r, err
	}
	r.Payload, err = ReadEvent(in.Event, in.PayloadFile, in.Stdin, r.Layout.ProjectDir)
	return r, err
}

// ReadEvent is hook run's and hook test's input: it checks event, reads
// its payload from file or stdin (ReadPayload) and parses it
// (ParsePayload). An unknown event is ErrUnknownEvent and a payload that
// names another ErrEventMismatch, both the caller's mistake.
func ReadEvent(event, file string, stdin io.Reader, projectDir string) (Payload, error) {
	if err := CheckEvent(event); err != nil {
		return nil, err
	}
	data, err := ReadPayload(file, stdin)
	if err != nil {
		return nil, err
	}
	return ParsePayload(event, data, projectDir)
}
