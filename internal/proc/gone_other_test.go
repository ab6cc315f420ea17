//go:build !linux

package proc

import (
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// checkGone fails unless the process whose pid data holds ends within
// ten seconds (a bound, not a wait: it returns as soon as it has). A
// kqueue's EVFILT_PROC reports the exit; registering for a process that
// is gone fails with ESRCH.
func checkGone(t *testing.T, data []byte) {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("pid %q: %v", data, err)
	}
	kq, err := unix.Kqueue()
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(kq)
	var ev unix.Kevent_t
	unix.SetKevent(&ev, pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	ev.Fflags = unix.NOTE_EXIT
	if _, err := unix.Kevent(kq, []unix.Kevent_t{ev}, nil, nil); err != nil {
		return // gone already
	}
	timeout := unix.NsecToTimespec(10e9)
	if n, _ := unix.Kevent(kq, nil, make([]unix.Kevent_t, 1), &timeout); n == 0 {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the hook's child %d still runs", pid)
	}
}
