package discovery

import (
	"os"
	"slices"
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

// ctimeFileSystems are the file systems known to keep a real inode change
// time that only the kernel sets.
var ctimeFileSystems = []int64{0xef53 /* ext2-4 */, 0x58465342 /* xfs */, 0x9123683e /* btrfs */, 0x01021994, /* tmpfs */
	0x794c7630 /* overlayfs */, 0x2fc12fc1 /* zfs */, 0xf2f52010 /* f2fs */}

// keepsChangeTime reports whether path lies on one of them.
func keepsChangeTime(path string) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(path, &st) == nil && slices.Contains(ctimeFileSystems, int64(st.Type))
}
