package proc

import (
	"time"

	"golang.org/x/sys/unix"
)

// endsWithin reports whether process pid ends within d (at once when it
// is gone already): a pidfd's poll wakes when the process exits, zombie
// or not.
func endsWithin(pid int, d time.Duration) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return true // reaped already
	}
	defer unix.Close(fd)
	n, _ := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(d.Milliseconds()))
	return n > 0
}
