//go:build !linux && !darwin

package discovery

import "os"

// changeTime is unknown here: caches key on size, mtime and mode only.
func changeTime(os.FileInfo) int64 { return 0 }

// fileID is unknown here: the directory index keeps nothing.
func fileID(os.FileInfo) (dev, ino uint64) { return 0, 0 }

// keepsChangeTime: unknown here, so no content hash is cached.
func keepsChangeTime(string) bool { return false }
