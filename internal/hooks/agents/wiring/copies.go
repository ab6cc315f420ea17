package wiring

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// A project plugin's skills and commands can make the agent run things
// (a command's ! shell lines, a skill's allowed-tools), so they reach an
// agent as copies of the content the user trusted, never as live links a
// pull could change behind the trust (SPEC §9, §16). A copy is recorded
// with the hash of what quiver wrote: it is quiver's to update or remove
// only while it still hashes so; one the user edited is theirs.

// bounds limit one copy.
type bounds struct {
	files int
	bytes int64
	depth int
}

// itemBounds bound one copied item: a skill folder is a few files.
// viewBounds bound a whole plugin's view, which may carry a server's
// code.
var (
	itemBounds = bounds{files: 1000, bytes: 32 << 20, depth: 16}
	viewBounds = bounds{files: 20000, bytes: 512 << 20, depth: 32}
)

// treeFile is one file of an item as it is copied: links inside the
// item are followed (a copy holds no link), folders walked. data, when
// set, is written instead of path's content (override).
type treeFile struct {
	rel  string
	path string
	mode fs.FileMode
	data []byte
}

// override is one file of a copy written with other content.
type override struct {
	rel  string
	data []byte
}

// apply puts o's content in place of its file in files.
func (o *override) apply(files []treeFile) []treeFile {
	if o == nil {
		return files
	}
	for i := range files {
		if files[i].rel == o.rel {
			files[i].data = o.data
		}
	}
	return files
}

// itemFiles lists what copying src writes: the file itself, or every file
// under the folder, following links to files and folders that stay inside
// root (the plugin's folder; links leaving it are skipped, as the scan
// confines items). Hidden files are kept: they are part of the skill.
func itemFiles(src, root string) ([]treeFile, error) { return treeFiles(src, root, itemBounds) }

func treeFiles(src, root string, b bounds) ([]treeFile, error) {
	fi, err := os.Stat(src)
	if err != nil {
		return nil, err
	}
	if fi.Mode().IsRegular() {
		return []treeFile{{rel: "", path: src, mode: fi.Mode().Perm()}}, nil
	}
	var out []treeFile
	var total int64
	var walk func(dir, rel string, depth int) error
	walk = func(dir, rel string, depth int) error {
		if depth > b.depth {
			return fmt.Errorf("%s: folders nested deeper than %d", src, b.depth)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			r := filepath.Join(rel, e.Name())
			if e.Name() == ".git" {
				continue
			}
			if e.Type()&fs.ModeSymlink != 0 {
				target, err := filepath.EvalSymlinks(p)
				if err != nil || !within(root, target) {
					continue // dangling, or outside the plugin: not the item's
				}
			}
			fi, err := os.Stat(p)
			if err != nil {
				continue
			}
			switch {
			case fi.IsDir():
				if err := walk(p, r, depth+1); err != nil {
					return err
				}
			case fi.Mode().IsRegular():
				total += fi.Size()
				out = append(out, treeFile{rel: r, path: p, mode: fi.Mode().Perm()})
				if len(out) > b.files || total > b.bytes {
					return fmt.Errorf("%s is larger than quiver copies (%d files, %d MiB)", src, b.files, b.bytes>>20)
				}
			}
		}
		return nil
	}
	if err := walk(src, "", 0); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out, nil
}

func within(root, p string) bool {
	if root == "" {
		return true
	}
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return false
	}
	return p == r || strings.HasPrefix(p, r+string(filepath.Separator))
}

// hashFiles is the content hash of a list of files: path, exec bit and
// content of each.
func hashFiles(files []treeFile) (string, error) {
	h := sha256.New()
	for _, f := range files {
		var sum string
		var err error
		if f.data != nil {
			s := sha256.Sum256(f.data)
			sum = hex.EncodeToString(s[:])
		} else if sum, err = safefs.HashFile(f.path, safefs.MaxContent); err != nil {
			return "", err
		}
		x := "-"
		if f.mode&0o111 != 0 {
			x = "x"
		}
		fmt.Fprintf(h, "%s\x00%s\x00%s\n", filepath.ToSlash(f.rel), x, sum)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// itemHash is what a copy of src hashes to.
func itemHash(src, root string) (string, error) { return itemHashOver(src, root, nil) }

// itemHashOver is what a copy of src with over hashes to.
func itemHashOver(src, root string, over *override) (string, error) {
	files, err := itemFiles(src, root)
	if err != nil {
		return "", err
	}
	return hashFiles(over.apply(files))
}

// DataHash names the content of a file quiver generates whole (an
// agent's hook program), as the record keeps it.
func DataHash(data []byte) string { return dataHash(data) }

// dataHash is what a generated file of content data hashes to: the same
// as itemHash of the file once written (one file, not executable).
func dataHash(data []byte) string {
	sum := sha256.Sum256(data)
	h := sha256.New()
	fmt.Fprintf(h, "\x00-\x00%s\n", hex.EncodeToString(sum[:]))
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// writeGenerated writes data at dst (which must not exist), staged
// beside it and renamed into place.
func writeGenerated(dst string, data []byte) error {
	var b [6]byte
	rand.Read(b[:])
	stage := filepath.Join(filepath.Dir(dst), ".quiver-stage-"+hex.EncodeToString(b[:]))
	if err := os.WriteFile(stage, data, 0o644); err != nil {
		os.Remove(stage)
		return err
	}
	if err := os.Rename(stage, dst); err != nil {
		os.Remove(stage)
		return err
	}
	return nil
}

// copyItemOver writes a copy of src at dst (which must not exist), with
// over's file (when over is not nil) written with its content: staged
// beside it and renamed into place, so an agent never reads half a skill.
func copyItemOver(src, root, dst string, over *override) (string, error) {
	files, err := itemFiles(src, root)
	if err != nil {
		return "", err
	}
	files = over.apply(files)
	sum, err := hashFiles(files)
	if err != nil {
		return "", err
	}
	var b [6]byte
	rand.Read(b[:])
	stage := filepath.Join(filepath.Dir(dst), ".quiver-stage-"+hex.EncodeToString(b[:]))
	single := len(files) == 1 && files[0].rel == ""
	if !single {
		if err := os.Mkdir(stage, 0o755); err != nil {
			return "", err
		}
	}
	fail := func(err error) (string, error) {
		os.RemoveAll(stage)
		return "", err
	}
	for _, f := range files {
		to := stage
		if !single {
			to = filepath.Join(stage, f.rel)
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				return fail(err)
			}
		}
		if f.data != nil {
			err = os.WriteFile(to, f.data, f.mode|0o600)
		} else {
			err = copyOne(f.path, to, f.mode)
		}
		if err != nil {
			return fail(err)
		}
	}
	if err := os.Rename(stage, dst); err != nil {
		return fail(err)
	}
	return sum, nil
}

func copyOne(src, dst string, mode fs.FileMode) error {
	in, err := safefs.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode|0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, io.LimitReader(in, safefs.MaxContent)); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// isOurCopy reports whether the copy recorded in l is still as quiver
// wrote it: no link, and the same hash.
func isOurCopy(base string, l Link) bool {
	p := filepath.Join(base, l.Path)
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&fs.ModeSymlink != 0 {
		return false
	}
	sum, err := itemHash(p, "")
	return err == nil && sum == l.Hash
}

// removeCopy removes a copy quiver made.
func removeCopy(base string, l Link) error {
	err := os.RemoveAll(filepath.Join(base, l.Path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
