package proc

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// InterruptGrace is how long a command may take to wind down after SIGINT
// or SIGTERM cancelled its context (kill its hooks, print a fail-closed
// result) before the process ends anyway. Everything quiver writes is
// atomic or journaled, so ending in the middle is as safe as a kill -9,
// and no loop that forgets to check the context can make quiver ignore a
// signal.
const InterruptGrace = time.Second

// Interrupted is the cause of a command's context once a signal arrived.
type Interrupted struct{ Signal syscall.Signal }

func (e Interrupted) Error() string {
	if e.Signal == syscall.SIGINT {
		return "interrupted (SIGINT)"
	}
	return "interrupted (SIGTERM)"
}

// ExitCode is the shell's convention: 128 + the signal number (130, 143).
func (e Interrupted) ExitCode() int { return 128 + int(e.Signal) }

// Interruption returns the signal that cancelled ctx, if one did.
func Interruption(ctx context.Context) (Interrupted, bool) {
	var ie Interrupted
	ok := errors.As(context.Cause(ctx), &ie)
	return ie, ok
}

// HandleInterrupts cancels a command's context at the first SIGINT or
// SIGTERM, then ends the process (through giveUp, which must exit) at a
// second signal or after InterruptGrace, whichever comes first. stop
// releases the handler.
func HandleInterrupts(cancel context.CancelCauseFunc, giveUp func(Interrupted)) (stop func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var sig os.Signal
		select {
		case sig = <-ch:
		case <-done:
			return
		}
		ie := Interrupted{syscall.SIGTERM}
		if s, ok := sig.(syscall.Signal); ok {
			ie.Signal = s
		}
		cancel(ie)
		select {
		case <-ch:
		case <-time.After(InterruptGrace):
		case <-done:
			return
		}
		giveUp(ie)
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
