package plugins

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// HashPrefix starts every content hash in the lock file.
const HashPrefix = "sha256:"

// Digest is the content hash of a plugin folder (SPEC §6) together with the
// per-file lines it was computed from, so a later check can say which files
// changed.
type Digest struct {
	// Sum is "sha256:<hex>".
	Sum string
	// Files maps each relative path to "<x|->\x00<sha256 hex>" (or
	// "l\x00<sha256 of the target>" for a symlink inside the plugin).
	Files map[string]string
}

// HashDir computes the content hash of a plugin folder: sha256 over the
// sorted lines "<path>\x00<x|->\x00<sha256 of content>\n" for every regular
// file, excluding the top-level .git/. A symlink inside the plugin (SPEC
// allows relative ones that stay inside) is hashed as "l" plus the hash of
// its target string, so retargeting one is drift too; a plugin without
// symlinks hashes exactly as the SPEC formula says.
func HashDir(dir string) (Digest, error) {
	d := Digest{Files: map[string]string{}}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if rel == ".git" {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil // a worktree's .git file: git metadata, not content
		}
		switch t := e.Type(); {
		case t.IsDir():
			return nil
		case t&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256([]byte(target))
			d.Files[rel] = "l\x00" + hex.EncodeToString(sum[:])
		case t.IsRegular():
			info, err := e.Info()
			if err != nil {
				return err
			}
			sum, err := safefs.HashFile(p, safefs.MaxContent)
			if err != nil {
				return err
			}
			mode := "-"
			if info.Mode()&0o111 != 0 {
				mode = "x"
			}
			d.Files[rel] = mode + "\x00" + sum
		default:
			return fmt.Errorf("%s: unsupported file type %s", rel, t)
		}
		return nil
	})
	if err != nil {
		return Digest{}, fmt.Errorf("hash %s: %w", dir, err)
	}
	d.Sum = d.sum()
	return d, nil
}

func (d Digest) sum() string {
	lines := make([]string, 0, len(d.Files))
	for p, v := range d.Files {
		lines = append(lines, p+"\x00"+v+"\n")
	}
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		io.WriteString(h, l)
	}
	return HashPrefix + hex.EncodeToString(h.Sum(nil))
}

// Changed lists the paths whose content, mode or presence differ between
// two digests, in byte order.
func (d Digest) Changed(other Digest) []string {
	var out []string
	for p, v := range d.Files {
		if other.Files[p] != v {
			out = append(out, p)
		}
	}
	for p := range other.Files {
		if _, ok := d.Files[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// ShortHash returns the first 12 hex digits of a content hash, for humans.
func ShortHash(sum string) string {
	s := strings.TrimPrefix(sum, HashPrefix)
	if len(s) > 12 {
		s = s[:12]
	}
	return s
}
