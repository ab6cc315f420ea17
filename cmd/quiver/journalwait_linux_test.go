package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// waitForEntry returns as soon as a name starting with prefix shows up
// in dir, or once limit has passed. It sleeps in inotify until a name is
// created or renamed into dir, where polling every 50 µs took a CPU the
// command it waits for needed (two cores here) and so moved the moment
// it meant to catch.
func waitForEntry(dir, prefix string, limit time.Duration) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		pollForEntry(dir, prefix, limit)
		return
	}
	defer unix.Close(fd)
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_CREATE|unix.IN_MOVED_TO); err != nil {
		pollForEntry(dir, prefix, limit)
		return
	}
	if entryIn(dir, prefix) { // there before the watch began
		return
	}
	buf := make([]byte, 64<<10)
	for deadline := time.Now().Add(limit); ; {
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(left/time.Millisecond)+1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			return
		}
		n, err = unix.Read(fd, buf)
		if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return
		}
		// Each event: wd, mask, cookie, len (4 bytes each), then len
		// bytes of NUL-padded name.
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			size := int(binary.NativeEndian.Uint32(buf[off+12:]))
			name := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+size]
			if bytes.HasPrefix(name, []byte(prefix)) {
				return
			}
			off += unix.SizeofInotifyEvent + size
		}
	}
}
