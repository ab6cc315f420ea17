package discovery

import (
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"golang.org/x/sys/unix"
)

// inotify is the Linux watcher: one non-blocking inotify instance.
type inotify struct {
	fd      int
	filters map[int32][]watchFilter // by watch descriptor
	buf     []byte
}

type watchFilter struct{ only, skip []string }

// accepts reports whether an event about name (in the watched folder; ""
// for the folder itself) is one the filter cares about.
func (f watchFilter) accepts(name string) bool {
	if name == "" {
		return true
	}
	if f.only != nil && !slices.Contains(f.only, name) {
		return false
	}
	return !slices.Contains(f.skip, name)
}

// watchMask: every change of an entry's name, content or metadata, and
// the folder itself going away.
const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF

func newWatcher() (watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &inotify{fd: fd, filters: map[int32][]watchFilter{}, buf: make([]byte, 64<<10)}, nil
}

// remoteMagic are file systems whose changes, made on another machine
// or by a server, inotify never reports.
var remoteMagic = []int64{unix.NFS_SUPER_MAGIC, unix.SMB_SUPER_MAGIC, unix.CIFS_SUPER_MAGIC, 0xfe534d42 /* SMB2 */, unix.FUSE_SUPER_MAGIC,
	unix.V9FS_MAGIC, 0x00c36400 /* Ceph */, 0x5346414f /* AFS */}

func (w *inotify) watch(dir string, only, skip []string) (bool, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false, err
	}
	if slices.Contains(remoteMagic, int64(st.Type)) {
		return false, fmt.Errorf("%s: a network or FUSE file system, whose changes inotify may not see", dir)
	}
	wd, err := unix.InotifyAddWatch(w.fd, dir, watchMask)
	if err != nil {
		return false, err
	}
	f := watchFilter{only, skip}
	fs, had := w.filters[int32(wd)]
	if !slices.ContainsFunc(fs, func(g watchFilter) bool { return slices.Equal(g.only, only) && slices.Equal(g.skip, skip) }) {
		w.filters[int32(wd)] = append(fs, f)
	}
	return !had, nil
}

func (w *inotify) changed() (bool, error) {
	changed := false
	for {
		n, err := unix.Read(w.fd, w.buf)
		if errors.Is(err, unix.EAGAIN) {
			return changed, nil
		}
		if err != nil {
			return true, err
		}
		if n <= 0 {
			return true, fmt.Errorf("inotify: read %d bytes", n)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			nameBytes := w.buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			name := string(nameBytes[:clen(nameBytes)])
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				changed = true
			case ev.Mask&unix.IN_IGNORED != 0:
				// The folder is gone (or its file system unmounted): a
				// later folder at that path needs a new watch.
				delete(w.filters, ev.Wd)
				changed = true
			default:
				for _, f := range w.filters[ev.Wd] {
					if f.accepts(name) {
						changed = true
						break
					}
				}
			}
		}
	}
}

func clen(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return len(b)
}

func (w *inotify) close() error { return unix.Close(w.fd) }
