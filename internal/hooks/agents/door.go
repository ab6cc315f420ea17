package agents

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
)

// Door is hook run --format AGENT (SPEC §13): the agent's own input in,
// the Runner every door uses, the agent's own output and exit code out.
type Door struct {
	Agent *Agent
	// Input's Event is the event as the agent's command names it (its
	// own name for it, or quiver's); the agent's input is read from the
	// payload file, else Stdin.
	hooks.Input
	Env hooks.Env
	// FailClosed is --fail-closed (or QUIVER_FAIL_CLOSED=1): then, on a
	// blocking event, quiver's own failure (a bad input, no home, an
	// unreadable scope) is a deny too, never "proceed".
	FailClosed bool
	Options    Options
	// Async says what the run does with background handlers (the
	// entry's --async-elsewhere, --async-only or --async-rewake).
	Async hooks.AsyncMode
	// Layout resolves the scopes of the session rooted at root (the
	// agent's SessionRoot; "" when it does not say).
	Layout func(root string) (plugins.Layout, error)
}

// FailsClosed reports whether call is denied when quiver cannot answer
// it.
func (d *Door) FailsClosed(call Call) bool {
	return d.Env.FailClosed(d.FailClosed) && hooks.Blocking(call.Event) && !d.Async.Only()
}

// Deny is the answer that fails call closed, saying why.
func (d *Door) Deny(call Call, why string) Answer {
	return d.Agent.Encode(call, hooks.EmptyResult(call.Event).FailClosed(why), d.Options)
}

// Answer answers call: it reads the agent's input, decodes it into *call
// (so a later failure, or a signal, answers the event the input named),
// runs the event's hooks and encodes the result. A session's start marks
// the agent's shell (discovery.MarkAgentShell). quiver's own failure is
// a deny when FailsClosed, said through Env.Warn; else it is the error.
func (d *Door) Answer(ctx context.Context, call *Call) (Answer, error) {
	failClosed := d.FailsClosed(*call)
	res, err := d.run(ctx, call)
	if err != nil {
		if !failClosed {
			return Answer{}, err
		}
		if d.Env.Warn != nil {
			d.Env.Warn("quiver: " + err.Error())
		}
		res = hooks.EmptyResult(call.Event).FailClosed(fmt.Sprintf("quiver failed (%v); failing closed", plugins.Redact(err.Error())))
	}
	ans := d.Agent.Encode(*call, res, d.Options)
	if call.Event == format.SessionStart {
		discovery.MarkAgentShell(d.Env.Getenv)
	}
	return ans, nil
}

// run reads the agent's input into *call and runs the hook set; a
// signal that ends ctx first is the error.
func (d *Door) run(ctx context.Context, call *Call) (*hooks.Result, error) {
	timeout, err := d.Env.Timeout(d.Timeout)
	if err != nil {
		return nil, err
	}
	raw, err := hooks.ReadPayload(d.PayloadFile, d.Stdin)
	if err != nil {
		return nil, err
	}
	layout, err := d.Layout(d.Agent.SessionRoot(d.Env.Getenv, raw))
	if err != nil {
		return nil, err
	}
	decoded, err := d.Agent.Decode(d.Event, raw)
	if errors.Is(err, hooks.ErrPayload) {
		return nil, fmt.Errorf("%s's input is not a JSON object", d.Agent.Title)
	} else if err != nil {
		return nil, err
	}
	*call = decoded
	o, err := discovery.OptionsFor(layout, d.Env.Getenv)
	if err != nil && d.Env.Warn != nil {
		d.Env.Warn("quiver: " + err.Error())
	}
	res, err := d.Env.RunDecoded(ctx, o, call.Event, call.Payload, d.FailClosed, timeout, d.Async)
	if err != nil {
		return nil, err
	}
	if call.Event == format.SessionStart && !d.Async.Only() && res.Notices != nil {
		if missing := Unwired(ctx, d.Agent, o, d.Env.Getenv("HOME")); len(missing) > 0 {
			*res.Notices = append(*res.Notices, hooks.Text{Hook: "quiver", Text: fmt.Sprintf(
				"hooks here handle %s, which %s does not call quiver for yet: run `quiver agent sync`, or `quiver agent install %s` to wire this project",
				strings.Join(missing, ", "), d.Agent.Title, d.Agent.Name)})
		}
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	return res, nil
}
