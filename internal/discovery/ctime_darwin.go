package discovery

import (
	"os"
	"syscall"
)

// changeTime is the inode change time in nanoseconds (see ctime_linux.go).
func changeTime(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctimespec.Nano()
	}
	return 0
}

// fileID is the file's device and inode number.
func fileID(fi os.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), st.Ino
	}
	return 0, 0
}

// keepsChangeTime reports whether path lies on APFS or HFS+, which keep a
// real inode change time that only the kernel sets.
func keepsChangeTime(path string) bool {
	var st syscall.Statfs_t
	if syscall.Statfs(path, &st) != nil {
		return false
	}
	var name []byte
	for _, c := range st.Fstypename {
		if c == 0 {
			break
		}
		name = append(name, byte(c))
	}
	return string(name) == "apfs" || string(name) == "hfs"
}
