package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// interruptGrace is how long a command may take to wind down after SIGINT
// or SIGTERM cancelled its context (kill its hooks, print a fail-closed
// result) before the process ends anyway. Everything quiver writes is
// atomic or journaled, so ending in the middle is as safe as a kill -9,
// and no loop that forgets to check the context can make quiver ignore a
// signal.
const interruptGrace = time.Second

// interruptedError is the cause of the command's context once a signal
// arrived.
type interruptedError struct{ sig syscall.Signal }

func (e interruptedError) Error() string {
	if e.sig == syscall.SIGINT {
		return "interrupted (SIGINT)"
	}
	return "interrupted (SIGTERM)"
}

// exitCode is the shell's convention: 128 + the signal number (130, 143).
func (e interruptedError) exitCode() int { return 128 + int(e.sig) }

// interruption returns the signal that cancelled ctx, if one did.
func interruption(ctx context.Context) (interruptedError, bool) {
	var ie interruptedError
	ok := errors.As(context.Cause(ctx), &ie)
	return ie, ok
}

// handleSignals cancels the command's context at the first SIGINT or
// SIGTERM, then ends the process (through giveUp, which must exit) at a
// second signal or after interruptGrace, whichever comes first. stop
// releases the handler.
func handleSignals(cancel context.CancelCauseFunc, giveUp func(interruptedError)) (stop func()) {
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
		ie := interruptedError{syscall.SIGTERM}
		if s, ok := sig.(syscall.Signal); ok {
			ie.sig = s
		}
		cancel(ie)
		select {
		case <-ch:
		case <-time.After(interruptGrace):
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
