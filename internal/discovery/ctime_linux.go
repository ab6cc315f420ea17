package discovery

import (
	"slices"
	"syscall"
)

// ctimeFileSystems are the file systems known to keep a real inode change
// time that only the kernel sets.
var ctimeFileSystems = []int64{0xef53 /* ext2-4 */, 0x58465342 /* xfs */, 0x9123683e /* btrfs */, 0x01021994, /* tmpfs */
	0x794c7630 /* overlayfs */, 0x2fc12fc1 /* zfs */, 0xf2f52010 /* f2fs */}

// keepsChangeTime reports whether path lies on one of them.
func keepsChangeTime(path string) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(path, &st) == nil && slices.Contains(ctimeFileSystems, int64(st.Type))
}
