package proc

import (
	"io"
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

// payloadFile is a sealed in-memory file holding b, to be read from its
// start: the stdin of a process that may be handed over, whole whatever
// becomes of this process. The seals keep its reader from changing it.
// A variable only so that tests can take the pipe that is left where
// none can be made.
var payloadFile = func(b []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate("quiver-payload", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "payload")
	if _, err = f.Write(b); err == nil {
		_, err = unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
