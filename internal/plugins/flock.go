package plugins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// ErrBusy is returned when another quiver command holds a scope's lock for
// longer than the wait allows.
var ErrBusy = errors.New("another quiver command is changing this scope")

// DefaultLockWait is how long a mutating command waits for another one.
const DefaultLockWait = 60 * time.Second

// lockScope takes the scope's exclusive flock(2), waiting up to wait and
// calling onWait once if it has to wait. flock is released by the kernel
// when the process dies, so a killed command never leaves a stale lock.
func lockScope(ctx context.Context, s Scope, wait time.Duration, onWait func()) (unlock func(), err error) {
	if err := os.MkdirAll(s.Root, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", s.Root, err)
	}
	f, err := os.OpenFile(s.mutexPath(), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open scope lock: %w", err)
	}
	fd := int(f.Fd())
	deadline := time.Now().Add(wait)
	waited := false
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { syscall.Flock(fd, syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", s.Root, err)
		}
		if !waited && onWait != nil {
			onWait()
		}
		waited = true
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w (%s); gave up after %s, try again when it has finished", ErrBusy, s.Root, wait)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
