package gitwork

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// A server that advertises refs without end is cut off at the limit with
// an error, instead of growing quiver's memory until it is killed (second
// attack review, B5).
func TestEndlessRefAdvertisement(t *testing.T) {
	defer func(old int64) { maxAdvertisement = old }(maxAdvertisement)
	maxAdvertisement = 1 << 20
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/info/refs") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
		fmt.Fprint(w, "001e# service=git-upload-pack\n0000")
		fmt.Fprintf(w, "%04x%s HEAD\x00multi_ack\n", 4+40+6+10, strings.Repeat("a", 40))
		for i := 0; r.Context().Err() == nil; i++ {
			line := fmt.Sprintf("%s refs/heads/b%08d\n", strings.Repeat("b", 40), i)
			if _, err := fmt.Fprintf(w, "%04x%s", len(line)+4, line); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	_, _, err := latest(context.Background(), plugins.Credentials{}, srv.URL+"/acme/guard.git", "")
	if err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") {
		t.Fatalf("Latest = %v, want the ref list refused at 1 MiB", err)
	}
}

// A tree that names one blob many times is refused before anything is
// checked out: 60 entries of one 10 MiB blob would write 600 MiB from a
// repository of a few KiB (second attack review, B7).
func TestFetchRefusesRepeatedBlob(t *testing.T) {
	src := t.TempDir()
	run := gitIn(t, src)
	run("", "init", "-q", "--bare")
	blob := run(strings.Repeat("\x00", 10<<20), "hash-object", "-w", "--stdin")
	var entries strings.Builder
	for i := range 60 {
		fmt.Fprintf(&entries, "100644 blob %s\tf%03d\n", blob, i)
	}
	tree := run(entries.String(), "mktree")
	commit := run("bomb\n", "commit-tree", tree)
	run("", "update-ref", "refs/heads/main", commit)
	run("", "symbolic-ref", "HEAD", "refs/heads/main")

	dst := filepath.Join(t.TempDir(), "stage")
	_, _, err := fetch(t.Context(), plugins.Credentials{}, src, "", dst, "", nil)
	if err == nil || !strings.Contains(err.Error(), "add up to more than 512 MiB") {
		t.Fatalf("Fetch = %v, want the tree refused for its total size", err)
	}
	if _, err := os.Stat(filepath.Join(dst, "f000")); err == nil {
		t.Error("a file was checked out before the refusal")
	}
}

// A tree that fans out (16 entries per level naming one tree object, five
// levels: a million files from a few KiB of objects) is refused at the
// file limit while walking, not after listing every file (third attack
// review, B6).
func TestFetchRefusesTreeBomb(t *testing.T) {
	src := t.TempDir()
	run := gitIn(t, src)
	run("", "init", "-q", "--bare")
	obj := run("x\n", "hash-object", "-w", "--stdin")
	kind, mode := "blob", "100644"
	for range 5 {
		var entries strings.Builder
		for i := range 16 {
			fmt.Fprintf(&entries, "%s %s %s\tn%02d\n", mode, kind, obj, i)
		}
		obj = run(entries.String(), "mktree")
		kind, mode = "tree", "040000"
	}
	commit := run("bomb\n", "commit-tree", obj)
	run("", "update-ref", "refs/heads/main", commit)
	run("", "symbolic-ref", "HEAD", "refs/heads/main")

	dst := filepath.Join(t.TempDir(), "stage")
	_, _, err := fetch(t.Context(), plugins.Credentials{}, src, "", dst, "", nil)
	if err == nil || !strings.Contains(err.Error(), "more than 20000 files") {
		t.Fatalf("Fetch = %v, want the tree refused at the file limit", err)
	}
}

// gitIn returns a function running git in dir with stdin, failing the test
// on error, and returning its trimmed output.
func gitIn(t *testing.T, dir string) func(stdin string, args ...string) string {
	return func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(stdin)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
}

// A redirect to another host or scheme is refused: the rules judged the
// URL asked for (the re-attack of issue 42, F6); one within the host (a
// renamed repository) is followed.
func TestSameOriginRedirects(t *testing.T) {
	req := func(u string) *http.Request {
		r, err := http.NewRequest("GET", u, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	from := []*http.Request{req("https://github.com/acme/old.git/info/refs")}
	if err := sameOrigin(req("https://github.com/acme/new.git/info/refs"), from); err != nil {
		t.Errorf("a redirect within the host: %v", err)
	}
	for _, to := range []string{"https://evil.example/acme/x.git/info/refs", "http://github.com/acme/new.git/info/refs", "https://github.com:8443/x"} {
		if err := sameOrigin(req(to), from); err == nil {
			t.Errorf("a redirect to %s was followed", to)
		}
	}
}
