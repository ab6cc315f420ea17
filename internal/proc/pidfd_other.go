//go:build !linux

package proc

import (
	"errors"
	"os"
)

// openPidfd has nothing to open where there are no pidfds: a process is
// never handed over there (Running.Detach refuses).
func openPidfd(int) (*os.File, error) { return nil, errors.New("no pidfd on this system") }

// waitPidfd and pidfdKill have no process to act on: nothing is handed
// over where there are no pidfds.
func waitPidfd(*os.File) {}
func pidfdKill(*os.File) {}
