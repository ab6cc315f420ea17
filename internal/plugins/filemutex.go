package plugins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// A file mutex is quiver's one way to serialize processes: flock(2) on a
// file of its own (a scope's .lock, trust.yaml.lock). "Lock" alone means
// the lock file, quiver.lock, elsewhere in quiver.

// ErrBusy is returned when another quiver command holds a scope's mutex
// for longer than the wait allows.
var ErrBusy = errors.New("another quiver command is changing this scope")

// DefaultMutexWait is how long a mutating command waits for another one.
const DefaultMutexWait = 60 * time.Second

// holdScope takes the scope's mutex (an exclusive flock(2)), waiting up to
// wait and calling onWait once if it has to wait. flock is released by the
// kernel when the process dies, so a killed command never leaves a stale
// one. A command that created a fresh scope and failed removes the file again
// (see Installer.undoEmptyScope), so after taking the lock we check that the
// file we hold is still the one at the path, and start over if not.
func holdScope(ctx context.Context, s Scope, wait time.Duration, onWait func()) (unlock func(), err error) {
	return HoldFileMutex(ctx, s.mutexPath(), wait, onWait)
}

// HoldFileMutex takes an exclusive flock(2) on path (created, with its
// folder, if needed), waiting up to wait and calling onWait once if it has
// to wait. It is the one mutex of quiver's mutating commands, the trust
// store and the agents' wiring. The file is opened without following a symlink, so a link planted
// in its place cannot make quiver create a file elsewhere.
func HoldFileMutex(ctx context.Context, path string, wait time.Duration, onWait func()) (unlock func(), err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	deadline := time.Now().Add(wait)
	waited := false
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
		if err != nil {
			return nil, fmt.Errorf("open lock %s: %w", path, err)
		}
		fd := int(f.Fd())
		err = syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			if sameFile(f, path) {
				return func() { syscall.Flock(fd, syscall.LOCK_UN); f.Close() }, nil
			}
			f.Close() // unlinked by its previous holder: lock the new one
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("create %s: %w", dir, err)
			}
			continue
		}
		f.Close()
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			return nil, fmt.Errorf("lock %s: %w", dir, err)
		}
		if !waited && onWait != nil {
			onWait()
		}
		waited = true
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w (%s); gave up after %s, try again when it has finished", ErrBusy, dir, wait)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}
