//go:build !linux

package proc

import (
	"time"

	"golang.org/x/sys/unix"
)

// endsWithin reports whether process pid ends within d (at once when it
// is gone already): a kqueue's EVFILT_PROC reports the exit, and
// registering for a process that is gone fails with ESRCH.
func endsWithin(pid int, d time.Duration) bool {
	kq, err := unix.Kqueue()
	if err != nil {
		return false
	}
	defer unix.Close(kq)
	var ev unix.Kevent_t
	unix.SetKevent(&ev, pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	ev.Fflags = unix.NOTE_EXIT
	if _, err := unix.Kevent(kq, []unix.Kevent_t{ev}, nil, nil); err != nil {
		return true // gone already
	}
	timeout := unix.NsecToTimespec(d.Nanoseconds())
	n, _ := unix.Kevent(kq, nil, make([]unix.Kevent_t, 1), &timeout)
	return n > 0
}
