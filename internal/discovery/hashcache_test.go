package discovery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// TestHashCacheSeesEveryEdit: with the content hashes of a trusted
// project cached, an edit that keeps the file's size and puts its mtime
// back (touch -d, tar) still untrusts the project, and so does replacing
// the file; the hashes live in the user's cache, never the project's.
func TestHashCacheSeesEveryEdit(t *testing.T) {
	countReads(t) // a short racy window
	tr := newTree(t)
	tr.hook(plugins.Local, "plugins/team@tools/hooks/lint", format.AfterToolCall)
	lib := tr.write(plugins.Local, "plugins/team@tools/lib/util.sh", "echo 1\n", 0)
	time.Sleep(2 * racyWindow)
	if _, err := RecordTrust(tr.layout); err != nil {
		t.Fatal(err)
	}
	o := tr.options()
	o.TrustAll = false
	if hs := tr.hooks(o); !hs.Trust.Trusted() {
		t.Fatal("not trusted after quiver trust")
	}
	cached, _ := os.ReadFile(filepath.Join(tr.layout.Global.CacheDir(), hashCacheFile(tr.layout.ProjectDir)))
	if !strings.Contains(string(cached), "util.sh") {
		t.Fatalf("no hash cached:\n%s", cached)
	}
	if entries, _ := os.ReadDir(tr.layout.Local.CacheDir()); len(entries) > 0 {
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "content-hashes") {
				t.Fatal("content hashes written into the project")
			}
		}
	}
	fi, _ := os.Stat(lib)
	for _, edit := range []func() error{
		func() error { // same size, mtime put back
			if err := os.WriteFile(lib, []byte("echo 2\n"), 0o644); err != nil {
				return err
			}
			return os.Chtimes(lib, fi.ModTime(), fi.ModTime())
		},
		func() error { // a new file of the same size renamed over it, mtime put back
			tmp := lib + ".new"
			os.WriteFile(tmp, []byte("echo 3\n"), 0o644)
			os.Chtimes(tmp, fi.ModTime(), fi.ModTime())
			return os.Rename(tmp, lib)
		},
	} {
		time.Sleep(2 * racyWindow)
		if _, err := RecordTrust(tr.layout); err != nil {
			t.Fatal(err)
		}
		if hs := tr.hooks(o); !hs.Trust.Trusted() {
			t.Fatal("not trusted after quiver trust")
		}
		if err := edit(); err != nil {
			t.Fatal(err)
		}
		if hs := tr.hooks(o); hs.Trust.Trusted() {
			t.Fatal("an edit kept the project trusted: a stale content hash was used")
		}
	}
}
