package async

import (
	"os"

	"golang.org/x/sys/unix"
)

const supported = true

// watchGone reports, on gone, when the folder dir is moved or removed
// (End), with no polling: inotify tells. stop ends the watch. An error
// is a folder that is gone already, or no inotify.
func watchGone(dir string) (gone <-chan struct{}, stop func(), err error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, nil, err
	}
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_MOVE_SELF|unix.IN_DELETE_SELF|unix.IN_ONLYDIR); err != nil {
		unix.Close(fd)
		return nil, nil, err
	}
	// Non-blocking, so the runtime's poller waits for it and Close
	// ends the read.
	f := os.NewFile(uintptr(fd), "inotify")
	ch := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			if err != nil {
				return // stopped
			}
			if n > 0 { // only the folder's own move or removal is watched
				close(ch)
				return
			}
		}
	}()
	return ch, func() { f.Close() }, nil
}
