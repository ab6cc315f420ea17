package plugins_test

import (
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// oneReader is a Dirs that is not a plugins.SharedDirs: ListPluginsWith
// reads through it with one goroutine, the order of reads before plugins
// were read in parallel.
type oneReader struct{}

func (oneReader) ReadDir(dir string) ([]fs.DirEntry, error) {
	fi, err := os.Stat(dir)
	if err == nil && !fi.IsDir() {
		return nil, &fs.PathError{Op: "readdirent", Path: dir, Err: syscall.ENOTDIR}
	}
	return os.ReadDir(dir)
}

func (oneReader) Lstat(p string) (fs.FileInfo, error) { return os.Lstat(p) }

// parallelScope writes a scope of n plugins of every shape a scan meets
// (native hooks, hooks.json, skills, recipes, a Claude manifest, a broken
// one, a plugin.yaml), lock entries without a folder, and folders that
// are not plugins; rng picks the shapes.
func parallelScope(t *testing.T, n int, rng *rand.Rand) plugins.Scope {
	t.Helper()
	s := plugins.Scope{Location: plugins.Global, Root: filepath.Join(t.TempDir(), "home")}
	lock := &plugins.Lock{Version: 1, Plugins: map[string]plugins.LockEntry{}}
	write := func(p, body string, mode os.FileMode) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		name := fmt.Sprintf("org%d/plugin%d", i, i)
		dir := filepath.Join(s.PluginsDir(), fmt.Sprintf("org%d@plugin%d", i, i))
		lock.Plugins[name] = plugins.LockEntry{Source: "https://example.com/" + name, Disabled: rng.IntN(5) == 0}
		switch rng.IntN(6) {
		case 0:
			write(filepath.Join(dir, "hooks", "guard"), "#!/bin/sh\nexit 0\n", 0o755)
			write(filepath.Join(dir, "hooks", "notes.txt"), "not a hook\n", 0o644)
		case 1:
			write(filepath.Join(dir, "hooks", "hooks.json"), `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"true"}]}]}}`, 0o644)
		case 2:
			write(filepath.Join(dir, "skills", "review", "SKILL.md"), "---\nname: review\ndescription: Reviews.\n---\nBody.\n", 0o644)
			write(filepath.Join(dir, "recipes", "ship.md"), "---\ndescription: Ships.\n---\nDo it.\n", 0o644)
		case 3:
			write(filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name":"p","skills":["./extra"],"commands":["./cmds"]}`, 0o644)
			write(filepath.Join(dir, "extra", "tidy", "SKILL.md"), "---\nname: tidy\ndescription: Tidies.\n---\n", 0o644)
			write(filepath.Join(dir, "cmds", "go.md"), "Go.\n", 0o644)
		case 4:
			write(filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name":`, 0o644) // broken
			write(filepath.Join(dir, "plugin.yaml"), "name: org/plugin\ndescription: [unclosed\n", 0o644)
		case 5:
			delete(lock.Plugins, name) // a folder the lock does not know
			write(filepath.Join(dir, "commands", "a", "b.md"), "Nested.\n", 0o644)
		}
	}
	for i := range n / 4 {
		lock.Plugins[fmt.Sprintf("gone%d/plugin", i)] = plugins.LockEntry{Source: "https://example.com/gone"}
	}
	write(filepath.Join(s.PluginsDir(), ".txn-1", "x"), "", 0o644)
	write(filepath.Join(s.PluginsDir(), "NotOurs", "x"), "", 0o644)
	if err := plugins.WriteLock(s.LockPath(), lock); err != nil {
		t.Fatal(err)
	}
	return s
}

// summary is what a read found, with file infos reduced to what callers
// use of them (two stats of one file are different values).
func summary(ps []plugins.Plugin) string {
	var b strings.Builder
	for _, p := range ps {
		info := p.Contents.Info
		p.Contents.Info = nil
		m, merr := p.Contents.Manifest, p.Contents.ManifestErr
		p.Contents.Manifest, p.Contents.ManifestErr = nil, nil
		fmt.Fprintf(&b, "%+v\n", p)
		if m != nil {
			fmt.Fprintf(&b, "  manifest %+v: %v\n", *m, merr)
		}
		for _, k := range slices.Sorted(maps.Keys(info)) {
			fmt.Fprintf(&b, "  %s %d %v %d\n", k, info[k].Size(), info[k].Mode(), info[k].ModTime().UnixNano())
		}
	}
	return b.String()
}

// TestParallelReadIsSequentialRead: reading plugins in parallel finds
// exactly what one reader finds, at every size around the threshold.
func TestParallelReadIsSequentialRead(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // readers even on one core
	rng := rand.New(rand.NewPCG(30, 6))
	for _, n := range []int{0, 1, 15, 16, 17, 64, 203} {
		s := parallelScope(t, n, rng)
		for _, kinds := range []plugins.Kinds{plugins.HookKind, plugins.AllKinds | plugins.Confine} {
			for _, manifest := range []bool{false, true} {
				one, err := plugins.ListPluginsWith(s, kinds, manifest, oneReader{})
				if err != nil {
					t.Fatal(err)
				}
				many, err := plugins.ListPluginsWith(s, kinds, manifest, nil)
				if err != nil {
					t.Fatal(err)
				}
				if want := n + n/4; len(one) != want {
					t.Fatalf("n=%d: one reader found %d plugins, want %d", n, len(one), want)
				}
				if a, b := summary(one), summary(many); a != b {
					t.Fatalf("n=%d kinds=%b manifest=%v: parallel read differs\none reader:\n%s\nparallel:\n%s", n, kinds, manifest, a, b)
				}
				if n == 0 && (one != nil || many != nil) {
					t.Fatalf("an empty scope lists %v and %v, want nil", one, many)
				}
			}
		}
	}
}

// TestParallelReadFailsAsSequentialRead: with several unreadable plugins,
// the error is the first one's, as one reader meets it, however the
// readers interleave.
func TestParallelReadFailsAsSequentialRead(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	s := parallelScope(t, 80, rand.New(rand.NewPCG(1, 2)))
	// hooks/ looping onto itself cannot be listed: the scan fails.
	for _, i := range []int{61, 23, 47} {
		hooks := filepath.Join(s.PluginsDir(), fmt.Sprintf("org%d@plugin%d", i, i), "hooks")
		os.RemoveAll(hooks)
		if err := os.Symlink("hooks", hooks); err != nil {
			t.Fatal(err)
		}
	}
	_, want := plugins.ListPluginsWith(s, plugins.HookKind, false, oneReader{})
	if want == nil || !strings.Contains(want.Error(), "org23/plugin23") {
		t.Fatalf("one reader: %v, want plugin 23's error", want)
	}
	for range 50 {
		_, err := plugins.ListPluginsWith(s, plugins.HookKind, false, nil)
		if err == nil || err.Error() != want.Error() {
			t.Fatalf("parallel read: %v, want %v", err, want)
		}
	}
}

// panicDirs is a SharedDirs that panics on one plugin's folder, a stand-in
// for any panic inside a plugin's read.
type panicDirs struct{ oneReader }

func (d panicDirs) Fork() plugins.Dirs { return d }

func (panicDirs) Lstat(p string) (fs.FileInfo, error) {
	if strings.HasSuffix(p, "org3@plugin3") {
		panic("boom in org3@plugin3")
	}
	return os.Lstat(p)
}

// TestParallelReadPanicReachesCaller: a panic in a reader is raised on the
// caller's goroutine, so a caller that recovers (hook serve's request
// handler) still does, as with one reader; it used to kill the process.
func TestParallelReadPanicReachesCaller(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	s := parallelScope(t, 40, rand.New(rand.NewPCG(3, 8)))
	defer func() {
		if v := recover(); v != "boom in org3@plugin3" {
			t.Fatalf("recovered %v, want the reader's panic", v)
		}
	}()
	plugins.ListPluginsWith(s, plugins.HookKind, false, panicDirs{})
	t.Fatal("the reader's panic was lost")
}
