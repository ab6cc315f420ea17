package discovery

import (
	"os"
	"syscall"
)

// changeTime is the inode change time in nanoseconds, which no program
// can set: a cache file shipped with a repository (or a tarball whose
// files carry chosen mtimes) cannot predict it.
func changeTime(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return 0
}

// fileID is the file's device and inode number.
func fileID(fi os.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}
