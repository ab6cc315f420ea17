package proc

import (
	"os"

	"golang.org/x/sys/unix"
)

// openPidfd opens a pidfd for pid: a handle that keeps naming that
// process after it ends, when its pid may name another.
func openPidfd(pid int) (*os.File, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), "pidfd"), nil
}

// waitPidfd returns when the process of pidfd has ended.
func waitPidfd(pidfd *os.File) {
	fds := []unix.PollFd{{Fd: int32(pidfd.Fd()), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); err != unix.EINTR {
			return
		}
	}
}

// pidfdKill kills the process of pidfd, if it is still running.
func pidfdKill(pidfd *os.File) {
	unix.PidfdSendSignal(int(pidfd.Fd()), unix.SIGKILL, nil, 0)
}
