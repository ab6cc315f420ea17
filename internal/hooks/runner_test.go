package hooks

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/quiver-cli/quiver/internal/discovery"
)

// TestRunnerIsTheDecision: the Runner answers alike whichever door calls
// it; what it does depends only on its fields and arguments.
func TestRunnerIsTheDecision(t *testing.T) {
	none := func(context.Context, string) (discovery.EventHooks, error) { return discovery.EventHooks{}, nil }
	broken := func(context.Context, string) (discovery.EventHooks, error) {
		return discovery.EventHooks{}, errors.New("the lock is corrupt")
	}
	untrusted := func(context.Context, string) (discovery.EventHooks, error) {
		return discovery.EventHooks{Untrusted: 3}, nil
	}
	p := Payload{}
	var said []string
	warn := func(m string) { said = append(said, m) }

	t.Run("no hooks", func(t *testing.T) {
		r := &Runner{Hooks: broken, NoHooks: true}
		res, err := r.Run(t.Context(), format.BeforeToolCall, p, true, time.Second)
		if err != nil || res.Blocked {
			t.Fatalf("QUIVER_NO_HOOKS: %+v %v", res, err)
		}
	})
	t.Run("hooks not found", func(t *testing.T) {
		r := &Runner{Hooks: broken, Warn: warn}
		if _, err := r.Run(t.Context(), format.BeforeToolCall, p, false, time.Second); err == nil {
			t.Fatal("no hook set, and no error")
		}
		res, err := r.Run(t.Context(), format.BeforeToolCall, p, true, time.Second)
		if err != nil || !res.Blocked || !strings.Contains(res.Reason, "could not find the hooks") {
			t.Fatalf("fail closed: %+v %v", res, err)
		}
		// Fail closed concerns blocking events only.
		if _, err := r.Run(t.Context(), format.AfterToolCall, p, true, time.Second); err == nil {
			t.Fatal("after_tool_call failed closed")
		}
	})
	t.Run("interrupted", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(t.Context())
		cancel(errors.New("interrupted (SIGTERM)"))
		r := &Runner{Hooks: none}
		if _, err := r.Run(ctx, format.BeforeToolCall, p, false, time.Second); err == nil || err.Error() != "interrupted (SIGTERM)" {
			t.Fatalf("a half-run chain was a decision: %v", err)
		}
		res, err := r.Run(ctx, format.BeforeToolCall, p, true, time.Second)
		if err != nil || !res.Blocked || !strings.Contains(res.Reason, "interrupted (SIGTERM) before every hook had run") {
			t.Fatalf("fail closed: %+v %v", res, err)
		}
	})
	t.Run("untrusted said", func(t *testing.T) {
		said = nil
		r := &Runner{Hooks: untrusted, Warn: warn}
		if _, err := r.Run(t.Context(), format.SessionStart, p, false, time.Second); err != nil {
			t.Fatal(err)
		}
		if len(said) != 1 || !strings.Contains(said[0], "skipped 3 untrusted project hooks") {
			t.Fatalf("said %q", said)
		}
	})
}
