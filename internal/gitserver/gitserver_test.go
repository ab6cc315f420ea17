package gitserver

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitIn runs git in dir with a clean configuration and returns its
// trimmed output.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// tricky is a folder whose tree tests what git add records: modes,
// symlinks, empty folders (left out, also when nested), a .git folder
// (left out) and names whose order differs between a plain byte sort
// and git's, where a folder sorts as if its name ended in "/".
func tricky(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]os.FileMode{
		"a.b": 0o644, "a-b": 0o644, "a/x": 0o644, "a/y/z": 0o755, "a0": 0o644,
		"hooks/check": 0o755, "hooks/only-group-x": 0o654, "sp ace\tand\x1b[31m": 0o644,
		".git/config": 0o644,
	}
	for name, mode := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("content of "+name+"\n"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"empty", "nested/empty/deeper"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../a.b", filepath.Join(dir, "hooks", "link")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Commit records exactly the tree that git add -A and git commit record
// for the same folder, so a repository written without git is the one a
// work tree would have pushed.
func TestCommitTreeIsGits(t *testing.T) {
	src := tricky(t)
	s := New(t, Options{})
	commit, err := s.Commit("acme/tricky", "", src, "first")
	if err != nil {
		t.Fatal(err)
	}
	got := gitIn(t, s.Bare("acme/tricky"), "rev-parse", commit+"^{tree}")

	// The same folder through git's porcelain (its .git moved aside).
	work := t.TempDir()
	gitIn(t, work, "init", "-q")
	gitIn(t, src, "--git-dir="+filepath.Join(work, ".git"), "--work-tree="+src, "add", "-A")
	want := gitIn(t, src, "--git-dir="+filepath.Join(work, ".git"), "write-tree")
	if got != want {
		t.Errorf("Commit's tree %s, git add's %s\nours:\n%s\ngit's:\n%s", got, want,
			gitIn(t, s.Bare("acme/tricky"), "ls-tree", "-r", got),
			gitIn(t, work, "ls-tree", "-r", want))
	}
	if fsck := gitIn(t, s.Bare("acme/tricky"), "fsck", "--strict", "--no-progress"); fsck != "" {
		t.Errorf("git fsck: %s", fsck)
	}
}

// Commits chain as in a work tree that commits and force-pushes: each
// builds on the last commit made, whatever branch that was on; tags go
// on the last commit; HEAD is the last commit; a clone over HTTP gets the
// files.
func TestCommitTagCloneRefs(t *testing.T) {
	s := New(t, Options{})
	dir := t.TempDir()
	write := func(body string) string {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	c1, err := s.Commit("acme/r", "main", write("1"), "c1")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Tag("acme/r", "v1", false); err != nil {
		t.Fatal(err)
	}
	c2, _ := s.Commit("acme/r", "dev", write("2"), "c2")
	if err := s.Tag("acme/r", "v2", true); err != nil {
		t.Fatal(err)
	}
	c3, _ := s.Commit("acme/r", "main", write("3"), "c3")
	bare := s.Bare("acme/r")
	for rev, want := range map[string]string{"main": c3, "dev": c2, "main~1": c2, "main~2": c1, "v1": c1, "v2^{commit}": c2} {
		if got := gitIn(t, bare, "rev-parse", rev); got != want {
			t.Errorf("%s is %s, want %s", rev, got, want)
		}
	}
	if got := gitIn(t, bare, "cat-file", "-t", "v2"); got != "tag" {
		t.Errorf("v2 is a %s, want an annotated tag", got)
	}
	for rev, want := range map[string]string{"HEAD": c3, "HEAD~1": c2, "v2": c2, "dev": c2} {
		if got, err := s.RevParse("acme/r", rev); err != nil || got != want {
			t.Errorf("RevParse(%s) = %s, %v; want %s", rev, got, err, want)
		}
	}
	clone := filepath.Join(t.TempDir(), "clone")
	gitIn(t, "", "clone", "-q", s.RepoURL("acme/r"), clone)
	if data, err := os.ReadFile(filepath.Join(clone, "f")); err != nil || string(data) != "3" {
		t.Errorf("clone has f = %q, %v; want 3", data, err)
	}
	if err := s.DeleteRef("acme/r", "refs/heads/dev"); err != nil {
		t.Fatal(err)
	}
	if out := gitIn(t, "", "ls-remote", s.RepoURL("acme/r")); strings.Contains(out, "refs/heads/dev") {
		t.Errorf("dev still served after DeleteRef:\n%s", out)
	}
	if err := s.TagObject("acme/r", "at-tree", "main^{tree}"); err != nil {
		t.Fatal(err)
	}
	if got := gitIn(t, bare, "cat-file", "-t", "at-tree"); got != "tree" {
		t.Errorf("at-tree is a %s, want a tree", got)
	}
}

// A commit of many new objects is packed, as receive-pack keeps a big
// push, so that git does not compress each loose object again for every
// fetch; a small one stays loose.
func TestBigCommitIsPacked(t *testing.T) {
	s := New(t, Options{})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "one"), []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.Commit("acme/big", "", dir, "small")
	packs, _ := filepath.Glob(filepath.Join(s.Bare("acme/big"), "objects", "pack", "*.pack"))
	if len(packs) != 0 {
		t.Fatalf("a 3-object commit was packed: %v", packs)
	}
	for i := range 150 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", i)), []byte(fmt.Sprint(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit, err := s.Commit("acme/big", "", dir, "big")
	if err != nil {
		t.Fatal(err)
	}
	bare := s.Bare("acme/big")
	if out := gitIn(t, bare, "count-objects", "-v"); !strings.Contains(out, "count: 0\n") || !strings.Contains(out, "packs: 1") {
		t.Errorf("after a 152-object commit:\n%s", out)
	}
	if got := gitIn(t, bare, "rev-parse", "main"); got != commit {
		t.Errorf("main is %s, want %s", got, commit)
	}
}
