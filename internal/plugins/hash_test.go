package plugins_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// hashTree is a small plugin: an executable, plain files at two depths, a
// nested .git file (hashed) and a top-level .git folder (not hashed).
var hashTree = []treeNode{
	fileNode("a.txt", "hello\n", 0o644),
	fileNode("bin/run", "#!/bin/sh\necho hi\n", 0o755),
	fileNode("sub/.git", "gitdir: ../x\n", 0o644),
	fileNode("z/empty", "", 0o600),
	fileNode(".git/config", "[core]\n", 0o644),
	fileNode(".git/hooks/pre-commit", "#!/bin/sh\n", 0o755),
	dirNode("empty-folder"),
}

// specHash computes the SPEC §6 formula from the file list alone: sha256
// over the sorted lines "<path>\x00<x|->\x00<sha256 hex of content>\n".
func specHash(files map[string]struct {
	data string
	exec bool
}) string {
	var lines []string
	for p, f := range files {
		mode := "-"
		if f.exec {
			mode = "x"
		}
		sum := sha256.Sum256([]byte(f.data))
		lines = append(lines, p+"\x00"+mode+"\x00"+hex.EncodeToString(sum[:])+"\n")
	}
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

func TestHashDirMatchesSpecFormula(t *testing.T) {
	dir := t.TempDir()
	plantTree(t, dir, hashTree...)
	d, err := plugins.HashDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := specHash(map[string]struct {
		data string
		exec bool
	}{
		"a.txt":    {"hello\n", false},
		"bin/run":  {"#!/bin/sh\necho hi\n", true},
		"sub/.git": {"gitdir: ../x\n", false},
		"z/empty":  {"", false},
	})
	if d.Sum != want {
		t.Errorf("HashDir = %s, want %s (SPEC §6 formula)", d.Sum, want)
	}
	// The same value, computed once with printf | sha256sum, pins the
	// formula against a change made in both the code and specHash.
	const pinned = "sha256:d630e5666a62af30eb0cf017df00397f76646dc023672a87d50ca377bdaa0c88"
	if d.Sum != pinned {
		t.Errorf("HashDir = %s, want %s (computed with coreutils)", d.Sum, pinned)
	}
	var paths []string
	for p := range d.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if want := []string{"a.txt", "bin/run", "sub/.git", "z/empty"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("Files = %q, want %q", paths, want)
	}
}

func TestHashDirEmpty(t *testing.T) {
	dir := t.TempDir()
	plantTree(t, dir, dirNode("hooks"), fileNode(".git/HEAD", "ref: refs/heads/main\n", 0o644))
	d, err := plugins.HashDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	// sha256 of no lines at all.
	if want := "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"; d.Sum != want {
		t.Errorf("HashDir(empty) = %s, want %s", d.Sum, want)
	}
}

// TestHashDirChanges applies one change to a copy of hashTree and checks
// that the hash moves exactly when the SPEC says it should, and that
// Changed names exactly the paths touched.
func TestHashDirChanges(t *testing.T) {
	tests := []struct {
		name    string
		change  func(t *testing.T, dir string)
		changed []string // nil: the hash must stay the same
	}{
		{"set exec bit", chmodIn("a.txt", 0o744), []string{"a.txt"}},
		{"clear exec bit", chmodIn("bin/run", 0o644), []string{"bin/run"}},
		{"group exec bit alone", chmodIn("a.txt", 0o654), []string{"a.txt"}},
		{"edit one byte", writeIn("a.txt", "hellO\n", 0o644), []string{"a.txt"}},
		{"append a byte", writeIn("z/empty", "\n", 0o600), []string{"z/empty"}},
		{"add a file", writeIn("new/file", "x", 0o644), []string{"new/file"}},
		{"add a nested .git file", writeIn("bin/.git", "x", 0o644), []string{"bin/.git"}},
		{"remove a file", removeIn("bin/run"), []string{"bin/run"}},
		{"rename a file", renameIn("a.txt", "b.txt"), []string{"a.txt", "b.txt"}},
		{"edit nested .git", writeIn("sub/.git", "gitdir: ../y\n", 0o644), []string{"sub/.git"}},
		// Not part of the hash: the top-level .git folder, read/write
		// bits, timestamps and empty folders.
		{"edit top-level .git", writeIn(".git/config", "[core]\n\tbare = false\n", 0o644), nil},
		{"add to top-level .git", writeIn(".git/objects/ab/cd", "x", 0o444), nil},
		{"read bits", chmodIn("a.txt", 0o600), nil},
		{"rewrite same content", writeIn("a.txt", "hello\n", 0o644), nil},
		{"add an empty folder", func(t *testing.T, dir string) { plantTree(t, dir, dirNode("more/empty")) }, nil},
	}
	base := t.TempDir()
	plantTree(t, base, hashTree...)
	before, err := plugins.HashDir(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			plantTree(t, dir, hashTree...)
			tc.change(t, dir)
			after, err := plugins.HashDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if moved := after.Sum != before.Sum; moved != (tc.changed != nil) {
				t.Errorf("hash moved = %v, want %v", moved, tc.changed != nil)
			}
			if got := before.Changed(after); !reflect.DeepEqual(got, tc.changed) {
				t.Errorf("Changed = %q, want %q", got, tc.changed)
			}
			if got := after.Changed(before); !reflect.DeepEqual(got, tc.changed) {
				t.Errorf("reverse Changed = %q, want %q", got, tc.changed)
			}
		})
	}
}

// TestHashDirSymlink covers quiver's documented extension of the formula:
// a symlink inside the plugin is hashed by its target string.
func TestHashDirSymlink(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	plantTree(t, a, fileNode("x", "1", 0o644), fileNode("y", "1", 0o644), linkNode("l", "x"))
	plantTree(t, b, fileNode("x", "1", 0o644), fileNode("y", "1", 0o644), linkNode("l", "y"))
	da, err := plugins.HashDir(a)
	if err != nil {
		t.Fatal(err)
	}
	db, err := plugins.HashDir(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := da.Changed(db); !reflect.DeepEqual(got, []string{"l"}) {
		t.Errorf("retargeted link: Changed = %q, want [l]", got)
	}
}

// A top-level .git *file* (a worktree or submodule checkout) is ignored
// without hiding the files after it: returning SkipDir for a file used to
// make WalkDir skip the rest of the root, so hooks/ went unhashed.
func TestHashDirTopLevelGitFile(t *testing.T) {
	dir := t.TempDir()
	plantTree(t, dir, fileNode(".git", "gitdir: /elsewhere\n", 0o644), fileNode("hooks/x", "1", 0o755))
	d, err := plugins.HashDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Files["hooks/x"]; !ok {
		t.Errorf("HashDir with a .git file hashed %q, want hooks/x among them", d.Files)
	}
}

func TestDigestChanged(t *testing.T) {
	d := func(files ...string) plugins.Digest {
		m := map[string]string{}
		for i := 0; i+1 < len(files); i += 2 {
			m[files[i]] = files[i+1]
		}
		return plugins.Digest{Files: m}
	}
	tests := []struct {
		name      string
		old, new_ plugins.Digest
		want      []string
	}{
		{"same", d("a", "-\x001", "b", "x\x002"), d("b", "x\x002", "a", "-\x001"), nil},
		{"both empty", d(), d(), nil},
		{"content", d("a", "-\x001"), d("a", "-\x002"), []string{"a"}},
		{"mode", d("a", "-\x001"), d("a", "x\x001"), []string{"a"}},
		{"added", d("a", "-\x001"), d("a", "-\x001", "b/c", "-\x001"), []string{"b/c"}},
		{"removed", d("a", "-\x001", "b", "-\x001"), d("b", "-\x001"), []string{"a"}},
		{"all at once, byte order", d("z", "-\x001", "B", "-\x001", "a", "-\x001"), d("a", "x\x001", "c", "-\x001", "B", "-\x001"), []string{"a", "c", "z"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.old.Changed(tc.new_); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Changed = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestShortHash(t *testing.T) {
	tests := []struct{ in, want string }{
		{"sha256:9a0b1c2d3e4f5a6b7c8d", "9a0b1c2d3e4f"},
		{"9a0b1c2d3e4f5a6b7c8d", "9a0b1c2d3e4f"},
		{"sha256:abc", "abc"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := plugins.ShortHash(tc.in); got != tc.want {
			t.Errorf("ShortHash(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func chmodIn(rel string, mode os.FileMode) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		if err := os.Chmod(filepath.Join(dir, rel), mode); err != nil {
			t.Fatal(err)
		}
	}
}

func writeIn(rel, data string, mode os.FileMode) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		plantTree(t, dir, fileNode(rel, data, mode))
	}
}

func removeIn(rel string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		if err := os.Remove(filepath.Join(dir, rel)); err != nil {
			t.Fatal(err)
		}
	}
}

func renameIn(from, to string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, to)); err != nil {
			t.Fatal(err)
		}
	}
}
