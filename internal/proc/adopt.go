package proc

import (
	"context"
	"errors"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// Adopt waits for a process another quiver started and handed over
// (Running.Detach) as Run waits for its own: it writes the rest of its
// payload, reads the rest of its output to s's caps after what was read
// already, kills its group when ctx ends or at deadline, and says what
// happened. The process is not Adopt's child, so its exit status is
// known only when it had ended before the handover (Handover.Ended):
// else ExitCode is 0 when it ended by itself, -1 when it was killed.
// Adopt closes h's files.
func Adopt(ctx context.Context, h Handover, deadline time.Time, s Spec) Result {
	defer h.Stdout.Close()
	defer h.Stderr.Close()
	defer h.Pidfd.Close()
	if h.Stdin != nil {
		written := make(chan struct{})
		go func() {
			defer close(written)
			// An error is the process's choice not to read it all
			// (EPIPE), or its end (closed below).
			h.Stdin.Write(h.Unwritten)
			h.Stdin.Close()
		}()
		defer func() {
			h.Stdin.Close() // what a grandchild holds open is not waited for
			<-written
		}()
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var killed atomic.Bool
	kill := func() {
		killed.Store(true)
		killHandedOver(h)
	}
	var overflowKill atomic.Pointer[time.Timer]
	defer func() {
		if t := overflowKill.Load(); t != nil {
			t.Stop()
		}
	}()
	stdout := &capped{max: s.MaxStdout, onOverflow: func() {
		overflowKill.Store(time.AfterFunc(OverflowGrace, kill))
	}}
	stderr := &capped{max: s.MaxStderr}
	stdout.Write(h.ReadStdout)
	stderr.Write(h.ReadStderr)
	drained := make(chan struct{}, 2)
	for _, p := range []struct {
		from *os.File
		to   *capped
	}{{h.Stdout, stdout}, {h.Stderr, stderr}} {
		go func() {
			copyOut(p.to, p.from)
			drained <- struct{}{}
		}()
	}
	exited := make(chan struct{})
	go func() {
		waitPidfd(h.Pidfd)
		close(exited)
	}()
	if h.Ended != nil {
		<-exited // it ended before the handover: no deadline can kill it
	} else {
		select {
		case <-exited:
		case <-ctx.Done():
			kill()
			<-exited
		}
	}
	var r Result
	r.Duration = time.Since(h.Started)
	// As Run: what it left in its group may finish writing for
	// WaitDelay, then the group is killed and the pipes read to the end.
	r.OutputIncomplete = drain(drained, func() { killHandedOver(h) }, WaitDelay, h.Stdout, h.Stderr)
	killHandedOver(h) // nothing of a hook outlives its run
	r.Stdout, r.StdoutOverflow = stdout.bytes()
	r.Stderr, _ = stderr.bytes()
	r.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded) && killed.Load()
	r.ExitCode = 0
	if h.Ended != nil {
		r.ExitCode = *h.Ended
	}
	if killed.Load() {
		r.ExitCode = -1
	}
	return r
}

// killHandedOver kills a handed-over process's group and the process
// itself through its pidfd (which names it even if it left its group).
// As Run's, the group is addressed by its leader's pid.
func killHandedOver(h Handover) {
	syscall.Kill(-h.Pid, syscall.SIGKILL)
	pidfdKill(h.Pidfd)
}
