package hooks

import (
	"context"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// Door is `hook run EVENT` (SPEC §8): quiver's own payload in, the Runner
// every door uses, one Result out. agents.Door is the same door in an
// agent's own format.
type Door struct {
	// Input names the event; its payload is read from the payload file,
	// else Stdin.
	Input
	Env Env
	// FailClosed is --fail-closed (or QUIVER_FAIL_CLOSED=1): a failing
	// hook of a blocking event blocks it.
	FailClosed bool
	// Layout resolves the scopes; Options is how discovery reads them.
	Layout  func() (plugins.Layout, error)
	Options func(plugins.Layout) discovery.Options
}

// FailsClosed reports whether the event is blocked when quiver cannot
// answer it (a signal that ends the process first).
func (d *Door) FailsClosed() bool { return d.Env.FailClosed(d.FailClosed) && Blocking(d.Event) }

// Deny is the block that fails the event closed, saying why.
func (d *Door) Deny(why string) *Result { return EmptyResult(d.Event).FailClosed(why) }

// Answer reads the event (Env.Read: a mistake in the input is
// ErrTimeoutFlag, ErrUnknownEvent or ErrEventMismatch) and runs its hooks.
func (d *Door) Answer(ctx context.Context) (*Result, error) {
	in, err := d.Env.Read(d.Input, d.Layout)
	if err != nil {
		return nil, err
	}
	return d.Env.Runner(d.Options(in.Layout)).Run(ctx, d.Event, in.Payload, d.Env.FailClosed(d.FailClosed), in.Timeout)
}

// AsyncModeOf is the AsyncMode an agent's entry asks for with its flags
// (--async-elsewhere, --async-only, --async-rewake; at most one is set):
// AsyncDetach when none is.
func AsyncModeOf(elsewhere, only, rewake bool) AsyncMode {
	switch {
	case only:
		return AsyncOnly
	case rewake:
		return RewakeOnly
	case elsewhere:
		return AsyncElsewhere
	}
	return AsyncDetach
}
