package plugins

import "golang.org/x/sys/unix"

// exchange swaps two directory entries in one step (renameat2
// RENAME_EXCHANGE), so a reader sees either the old or the new plugin.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
