package hooks

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/async"
	"github.com/quiver-cli/quiver/internal/term"
)

// Runner is the one runtime behind every door: hook run, hook run
// --format AGENT and hook serve's run all call Run, which decides which
// hooks an event runs, runs them and combines their results. A door only
// decodes its input into an event and a payload and encodes the result;
// nothing here depends on which door called.
type Runner struct {
	// Hooks finds an event's hooks: FromFiles reads the scopes at each
	// call; a long-lived door passes a discovery.Session's ForEvent.
	Hooks func(ctx context.Context, event string) (discovery.EventHooks, error)
	// Executor runs one hook; Run sets the timeout of each call.
	Executor Executor
	// NoHooks turns every hook off (QUIVER_NO_HOOKS=1): Run returns the
	// empty result for the event.
	NoHooks bool
	// AuditLog, when set, is the file each hook execution is appended to
	// (QUIVER_AUDIT_LOG).
	AuditLog string
	// Async says what a run does with background handlers: the caller's
	// entry says it (hook run --format claude --async-only ...).
	Async AsyncMode
	// Warn hears what the person using the agent should know (untrusted
	// hooks skipped, invalid ones that might handle the event, a broken
	// audit log); the door prints it. nil: nothing is said.
	Warn func(string)
	// Owner, when set, takes the handlers that run in the background
	// (SPEC §15) off the run (async.Owner); without one, they are waited
	// for. StateDir is the scope state folder whose async/ keeps each
	// session's background results.
	Owner    *async.Owner
	StateDir string
}

// FromFiles is Runner.Hooks reading the scopes at each call, keeping a
// project scope that cannot be read as one invalid hook so that the
// user's global hooks still run (discovery.Options.KeepGoing).
func FromFiles(o discovery.Options) func(context.Context, string) (discovery.EventHooks, error) {
	o.KeepGoing = true
	return func(ctx context.Context, event string) (discovery.EventHooks, error) {
		hs, err := discovery.Hooks(ctx, o)
		if err != nil {
			return discovery.EventHooks{}, err
		}
		return discovery.EventHooks{Hooks: hs.ForEvent(event), Untrusted: hs.UntrustedCount()}, nil
	}
}

// Run fires event: its hooks in precedence order, chained and combined
// (Trigger.Fire). failClosed makes a failure block a blocking event;
// timeout bounds each hook. When the hooks cannot be found, or ctx ends
// (a signal) before every hook has run, a blocking event under
// failClosed is answered with quiver's own block; otherwise that is the
// error, since a half-run chain is no decision (SPEC §8: interrupted is
// not allowed). The error of an interruption is ctx's cause.
func (r *Runner) Run(ctx context.Context, event string, p Payload, failClosed bool, timeout time.Duration) (*Result, error) {
	if r.NoHooks {
		return EmptyResult(event), nil
	}
	failClosed = failClosed && Blocking(event)
	res, err := r.fire(ctx, event, p, failClosed, timeout)
	if err != nil {
		if !failClosed {
			return nil, err
		}
		// No hook set is no decision: fail closed says block.
		r.warn("quiver: %v", err)
		res = EmptyResult(event).FailClosed(fmt.Sprintf("quiver could not find the hooks (%v); failing closed", err))
	}
	if ctx.Err() != nil {
		cause := context.Cause(ctx)
		if !failClosed {
			return nil, cause
		}
		res.FailClosed(Unfinished(cause))
	}
	return res, nil
}

// Unfinished is why a blocking event is blocked when cause (a signal)
// ended quiver before every hook had run, failing closed.
func Unfinished(cause error) string {
	return fmt.Sprintf("quiver was %v before every hook had run; failing closed", cause)
}

func (r *Runner) warn(format string, args ...any) {
	if r.Warn != nil {
		r.Warn(fmt.Sprintf(format, args...))
	}
}

func (r *Runner) fire(ctx context.Context, event string, p Payload, failClosed bool, timeout time.Duration) (*Result, error) {
	eh, err := r.Hooks(ctx, event)
	if err != nil {
		return nil, err
	}
	if n := eh.Untrusted; n > 0 {
		r.warn("quiver: skipped %s; review them with 'quiver hook list --all', then run 'quiver trust'", term.Count(n, "untrusted project hook"))
	}
	set := eh.Hooks
	var invalid, background []string
	for _, h := range set {
		switch {
		case h.Status != discovery.Invalid:
		case h.Background():
			background = append(background, h.Name+" ("+h.Reason+")")
		case h.ClaudeOnly(): // listed in the report; blocks nothing, and Claude runs it
		default:
			invalid = append(invalid, h.Name+" ("+h.Reason+")")
		}
	}
	if len(invalid) > 0 {
		effect := "they did not run"
		if failClosed {
			effect = "the event is blocked (--fail-closed)"
		}
		r.warn("quiver: %s might handle %s, and %s: %s; see quiver doctor",
			term.Count(len(invalid), "invalid hook"), event, effect, strings.Join(invalid, "; "))
	}
	if len(background) > 0 {
		r.warn("quiver: %s might handle %s, and did not run (they block nothing): %s; see quiver doctor",
			term.Count(len(background), "invalid asynchronous hook"), event, strings.Join(background, "; "))
	}
	ex := r.Executor
	ex.Timeout = timeout
	if ex.Pool != nil {
		ex.Pool.Retain(event, set)
	}
	var batch *async.Batch
	if r.Owner != nil && async.Supported && !r.Async.Only() {
		batch = &async.Batch{}
		ex.Background = batch
	}
	t := &Trigger{Run: ex.Run, ProjectDir: ex.ProjectDir, FailClosed: failClosed, Async: r.Async}
	if r.AuditLog != "" {
		log, err := OpenAuditLog(r.AuditLog)
		if err != nil {
			r.warn("quiver: audit log: %v", err)
		} else {
			defer func() {
				if log.Err != nil {
					r.warn("quiver: audit log: %v", log.Err)
				}
				log.Close()
			}()
			t.OnOutcome = log.Record
		}
	}
	start := time.Now()
	res := t.Fire(ctx, event, p, set)
	r.settle(ctx, event, p, set, res, batch, start)
	return res, nil
}
