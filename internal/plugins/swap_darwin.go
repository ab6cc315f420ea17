package plugins

import "golang.org/x/sys/unix"

// exchange swaps two directory entries in one step (renamex_np RENAME_SWAP),
// so a reader sees either the old or the new plugin.
func exchange(a, b string) error {
	return unix.RenamexNp(a, b, unix.RENAME_SWAP)
}
