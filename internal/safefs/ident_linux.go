package safefs

import (
	"io/fs"
	"syscall"
)

func inode(fi fs.FileInfo) (dev, ino uint64, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), st.Ino, st.Ctim.Nano()
	}
	return 0, 0, 0
}
