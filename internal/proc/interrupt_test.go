package proc

import (
	"context"
	"syscall"
	"testing"
)

// TestHandleInterrupts: the first signal cancels the command's context
// with the signal as cause (exit 128+n), the second gives up at once.
func TestHandleInterrupts(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	gaveUp := make(chan Interrupted, 1)
	stop := HandleInterrupts(cancel, func(ie Interrupted) { gaveUp <- ie })
	defer stop()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	ie, ok := Interruption(ctx)
	if !ok || ie.Signal != syscall.SIGTERM || ie.ExitCode() != 143 || ie.Error() != "interrupted (SIGTERM)" {
		t.Fatalf("cause %v (%v), exit %d", context.Cause(ctx), ok, ie.ExitCode())
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if got := <-gaveUp; got.Signal != syscall.SIGTERM {
		t.Errorf("gave up with %v, want the first signal's cause", got)
	}
	if _, ok := Interruption(context.Background()); ok {
		t.Error("a context no signal cancelled reports an interruption")
	}
}
