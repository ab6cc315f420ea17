package discovery

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// hashCache keeps the content hashes the trust fingerprint is made of,
// so that a hook run in a trusted project reads no file it hashed before
// (hashing every file of every project plugin with hooks cost more than
// the rest of the run). The fingerprint is still computed at every run,
// from the hashes of the files as they are; only the reading of an
// unchanged file is saved. Why this cannot trust a changed file
// (docs/security.md, "Caches cannot be planted"):
//
//   - It lives in the user's own cache ($QUIVER_HOME/cache), one file
//     per project, which no repository writes: nothing in it was planted.
//   - An entry holds for the path only while the file's device, inode,
//     size, mtime, ctime (ns) and mode are all unchanged. Writing a file
//     sets its ctime to the current time, and nobody can set a ctime.
//   - A hash taken less than racyWindow after the file's last change is
//     not kept: a write in the same clock tick would leave the times as
//     they were.
//   - Only on file systems known to keep a real change time (ext4, xfs,
//     btrfs, tmpfs, overlayfs, zfs, f2fs, APFS): FAT has none, and a
//     network file system's times come from elsewhere.
type hashCache struct {
	fc     *fileCache[fileHash]
	stable map[uint64]bool // by device: keeps a real ctime
}

type fileHash struct {
	dev, ino uint64
	sum      string
}

// hashCacheFile is the cache of one project: projects do not drop each
// other's entries at every save.
func hashCacheFile(project string) string {
	h := sha256.Sum256([]byte(project))
	return "content-hashes-" + hex.EncodeToString(h[:8])
}

func loadHashCache(l plugins.Layout) *hashCache {
	return &hashCache{fc: loadFileCache(l.Global, hashCacheFile(l.ProjectDir), fileHashCodec), stable: map[uint64]bool{}}
}

// sum is safefs.HashFile of path, whose stat (taken after now) is fi.
func (hc *hashCache) sum(path string, fi fs.FileInfo, now time.Time) (string, error) {
	if hc == nil {
		return safefs.HashFile(path, safefs.MaxContent)
	}
	dev, ino := fileID(fi)
	stable, ok := hc.stable[dev]
	if !ok {
		stable = dev|ino != 0 && keepsChangeTime(path)
		hc.stable[dev] = stable
	}
	if !stable {
		return safefs.HashFile(path, safefs.MaxContent)
	}
	if e, ok := hc.fc.lookup(path, fi); ok && e.dev == dev && e.ino == ino {
		return e.sum, nil
	}
	// The file was stat'ed before it is read: if it changes in between,
	// the key kept is older than the file, which is hashed again next time.
	sum, err := safefs.HashFile(path, safefs.MaxContent)
	if err != nil {
		return "", err
	}
	if now.Sub(time.Unix(0, max(fi.ModTime().UnixNano(), changeTime(fi)))) >= racyWindow {
		hc.fc.store(path, fi, fileHash{dev, ino, sum})
	}
	return sum, nil
}

func (hc *hashCache) save() { hc.fc.save() }

// fileHashCodec stores "dev/ino/sum".
var fileHashCodec = codec[fileHash]{
	encode: func(h fileHash) string {
		return strconv.FormatUint(h.dev, 10) + "/" + strconv.FormatUint(h.ino, 10) + "/" + h.sum
	},
	decode: func(s string) (fileHash, bool) {
		f := strings.Split(s, "/")
		if len(f) != 3 || f[2] == "" {
			return fileHash{}, false
		}
		dev, err1 := strconv.ParseUint(f[0], 10, 64)
		ino, err2 := strconv.ParseUint(f[1], 10, 64)
		return fileHash{dev, ino, f[2]}, err1 == nil && err2 == nil
	},
}
