package discovery

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// countReads counts the folders read from disk while the test runs, and
// shortens the racy window so listings made a moment ago are kept.
func countReads(t *testing.T) *atomic.Int64 {
	n := new(atomic.Int64) // plugins are read in parallel
	old, oldWindow := readDirectory, racyWindow
	readDirectory = func(dir string) ([]os.DirEntry, error) {
		n.Add(1)
		return os.ReadDir(dir)
	}
	racyWindow = 30 * time.Millisecond
	t.Cleanup(func() { readDirectory, racyWindow = old, oldWindow })
	return n
}

// scanKinds are the scans discovery makes: one kind each, and all.
var scanKinds = []plugins.Kinds{plugins.HookKind, plugins.SkillKind | plugins.Confine, plugins.RecipeKind | plugins.Confine, plugins.AllKinds | plugins.Confine, plugins.SkillKind | plugins.RecipeKind}

// contentsSummary is a scan's result with the file infos reduced to what
// callers use of them.
func contentsSummary(c plugins.Contents) string {
	info := map[string]string{}
	for p, fi := range c.Info {
		info[p] = fmt.Sprintf("%d %v %d", fi.Size(), fi.Mode(), fi.ModTime().UnixNano())
	}
	c.Info = nil
	var m plugins.ClaudeManifest
	if c.Manifest != nil {
		m = *c.Manifest
	}
	c.Manifest = nil
	return fmt.Sprintf("%+v\n%+v\n%v", c, m, info)
}

// TestDirIndexScansAlike: after each kind of change to a plugin folder, a
// scan through the index (made before the change) finds exactly what a
// direct scan finds, and the next scan reads no folder at all.
func TestDirIndexScansAlike(t *testing.T) {
	reads := countReads(t)
	base := t.TempDir()
	scope := plugins.Scope{Location: plugins.Global, Root: filepath.Join(base, "home")}
	root := filepath.Join(scope.Root, "plugins", "acme@guard")
	outside := filepath.Join(base, "outside")
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "secret.md"), []byte("x"), 0o644)
	w := func(rel, body string, mode os.FileMode) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	at := func(rel string) string { return filepath.Join(root, rel) }
	w("hooks/a", "#!/bin/sh\n", 0o755)
	w("hooks/b", "#!/bin/sh\n", 0o755)
	w("skills/one/SKILL.md", "---\nname: one\n---\n", 0o644)
	w("recipes/x.md", "x", 0o644)
	steps := []struct {
		name   string
		change func() error
	}{
		{"nothing", func() error { return nil }},
		{"add a hook", func() error { return os.WriteFile(at("hooks/c"), []byte("#!/bin/sh\n"), 0o755) }},
		{"remove a hook", func() error { return os.Remove(at("hooks/b")) }},
		{"disable a hook", func() error { return os.Rename(at("hooks/a"), at("hooks/a.disable")) }},
		{"chmod -x", func() error { return os.Chmod(at("hooks/c"), 0o644) }},
		{"a non-executable and a hidden file", func() error {
			os.WriteFile(at("hooks/.hidden"), []byte("x"), 0o755)
			return os.WriteFile(at("hooks/notes.txt"), []byte("x"), 0o644)
		}},
		{"an unsafe name", func() error { return os.WriteFile(at("hooks/bad\u202ename"), []byte("#!/bin/sh\n"), 0o755) }},
		{"a subfolder in hooks", func() error { return os.Mkdir(at("hooks/lib"), 0o755) }},
		{"a hook linked inside", func() error { return os.Symlink("lib/real", at("hooks/linked")) }},
		{"the link's target appears", func() error { return os.WriteFile(at("hooks/lib/real"), []byte("#!/bin/sh\n"), 0o755) }},
		{"add hooks.json", func() error { return os.WriteFile(at("hooks/hooks.json"), []byte(`{"hooks":{}}`), 0o644) }},
		{"remove hooks.json", func() error { return os.Remove(at("hooks/hooks.json")) }},
		{"hooks.json as a folder", func() error { return os.Mkdir(at("hooks/hooks.json"), 0o755) }},
		{"swap hooks/ for another folder", func() error {
			os.RemoveAll(at("hooks2"))
			os.MkdirAll(at("hooks2"), 0o755)
			os.WriteFile(at("hooks2/z"), []byte("#!/bin/sh\n"), 0o755)
			os.Rename(at("hooks"), at("hooks-old"))
			return os.Rename(at("hooks2"), at("hooks"))
		}},
		{"hooks/ as a link", func() error {
			os.Rename(at("hooks"), at("real-hooks"))
			return os.Symlink("real-hooks", at("hooks"))
		}},
		{"hooks/ as a file", func() error {
			os.Remove(at("hooks"))
			return os.WriteFile(at("hooks"), []byte("x"), 0o644)
		}},
		{"add a skill", func() error { w("skills/two/SKILL.md", "---\nname: two\n---\n", 0o644); return nil }},
		{"a skill linked out", func() error { return os.Symlink(outside, at("skills/three")) }},
		{"skills/ linked out", func() error {
			os.Rename(at("skills"), at("skills-old"))
			return os.Symlink(outside, at("skills"))
		}},
		{"skills/ back", func() error {
			os.Remove(at("skills"))
			return os.Rename(at("skills-old"), at("skills"))
		}},
		{"nested recipes, hidden and README", func() error {
			w("recipes/ops/deploy.md", "d", 0o644)
			w("recipes/.git/x.md", "d", 0o644)
			w("recipes/README.md", "d", 0o644)
			w("recipes/ops/.hidden.md", "d", 0o644)
			return nil
		}},
		{"a recipe deeper", func() error { w("recipes/ops/deep/more.md", "d", 0o644); return nil }},
		{"a recipe linked out", func() error { return os.Symlink(filepath.Join(outside, "secret.md"), at("recipes/ops/s.md")) }},
		{"commands/", func() error { w("commands/c.md", "c", 0o644); w("commands/x.md", "clash", 0o644); return nil }},
		{"a Claude manifest", func() error {
			w(".claude-plugin/plugin.json", `{"name":"g","skills":["./more"],"commands":["./cmds"],"hooks":"./cfg/h.json"}`, 0o644)
			w("more/m/SKILL.md", "---\nname: m\n---\n", 0o644)
			w("cmds/k.md", "k", 0o644)
			w("cfg/h.json", `{"hooks":{}}`, 0o644)
			return nil
		}},
		{"an entry manifest", func() error { w(plugins.EntryManifestPath, `{"skills":["./more/m"]}`, 0o644); return nil }},
		{"manifests gone", func() error {
			os.RemoveAll(at(".claude-plugin"))
			return os.Remove(at(plugins.EntryManifestPath))
		}},
		{"recipes/ as a FIFO", func() error {
			os.Rename(at("recipes"), at("recipes-old"))
			return mkfifo(at("recipes"))
		}},
		{"the plugin folder gone", func() error { return os.RemoveAll(root) }},
	}
	for _, st := range steps {
		if err := st.change(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		time.Sleep(2 * racyWindow)
		for _, k := range scanKinds {
			want, werr := plugins.ScanWith(root, k, nil)
			for pass := range 2 {
				reads.Store(0)
				ix := loadDirIndex(scope, k, nil)
				got, gerr := plugins.ScanWith(root, k, ix)
				ix.save()
				if fmt.Sprint(gerr) != fmt.Sprint(werr) || contentsSummary(got) != contentsSummary(want) {
					t.Fatalf("%s, kinds %b, pass %d: through the index\n%s (%v)\nwant\n%s (%v)", st.name, k, pass, contentsSummary(got), gerr, contentsSummary(want), werr)
				}
				if pass == 1 && reads.Load() != 0 {
					t.Errorf("%s, kinds %b: a warm scan read %d folders", st.name, k, reads.Load())
				}
			}
		}
	}
}

// TestDirIndexListsPluginsAlike: ListPluginsWith through the index finds
// what a direct listing finds as plugins come and go, and reads no folder
// when nothing changed. There are enough plugins for several readers to
// share the index (.ci/run runs this under -race).
func TestDirIndexListsPluginsAlike(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	reads := countReads(t)
	tr := newTree(t)
	s := tr.layout.Global
	for i := range 3 {
		tr.hook(plugins.Global, fmt.Sprintf("plugins/org@p%d/hooks/h", i), format.SessionStart)
	}
	for i := range 20 {
		tr.hook(plugins.Global, fmt.Sprintf("plugins/more@f%d/hooks/h", i), format.AgentStop)
	}
	steps := []func(){
		func() {},
		func() { tr.hook(plugins.Global, "plugins/org@p9/hooks/h", format.SessionStart) },
		func() { os.RemoveAll(filepath.Join(s.PluginsDir(), "org@p1")) },
		func() { tr.disable(plugins.Global, "org/p2") },
		func() { tr.disable(plugins.Global, "org/gone") },
		func() {
			os.Symlink(filepath.Join(s.PluginsDir(), "org@p0"), filepath.Join(s.PluginsDir(), "org@linked"))
		},
		func() { os.WriteFile(filepath.Join(s.PluginsDir(), "not a plugin"), nil, 0o644) },
	}
	for i, change := range steps {
		change()
		time.Sleep(2 * racyWindow)
		want, werr := plugins.ListPluginsOf(s, plugins.HookKind|plugins.Confine, false)
		for pass := range 2 {
			reads.Store(0)
			ix := loadDirIndex(s, plugins.HookKind, nil)
			got, gerr := plugins.ListPluginsWith(s, plugins.HookKind|plugins.Confine, false, ix)
			ix.save()
			if werr != nil || gerr != nil || len(got) != len(want) {
				t.Fatalf("step %d: %v %v %d %d", i, werr, gerr, len(got), len(want))
			}
			for j := range got {
				if got[j].Name != want[j].Name || got[j].Missing != want[j].Missing || got[j].Enabled() != want[j].Enabled() ||
					contentsSummary(got[j].Contents) != contentsSummary(want[j].Contents) {
					t.Fatalf("step %d: plugin %d differs: %+v, want %+v", i, j, got[j], want[j])
				}
			}
			if pass == 1 && reads.Load() != 0 {
				t.Errorf("step %d: a warm listing read %d folders", i, reads.Load())
			}
		}
	}
}

// TestDirIndexKeepsNoRacyListing: a folder listed within the racy window
// of its last change is read again next time, since an entry added in
// the same clock tick would leave its mtime and ctime unchanged.
func TestDirIndexKeepsNoRacyListing(t *testing.T) {
	reads := countReads(t)
	racyWindow = time.Hour
	s := plugins.Scope{Location: plugins.Global, Root: t.TempDir()}
	os.MkdirAll(filepath.Join(s.Root, "hooks"), 0o755)
	for range 2 {
		reads.Store(0)
		ix := loadDirIndex(s, plugins.HookKind, nil)
		if _, err := plugins.ScanWith(s.Root, plugins.HookKind, ix); err != nil {
			t.Fatal(err)
		}
		ix.save()
		if reads.Load() == 0 {
			t.Fatal("a listing made right after a change was kept")
		}
	}
}

// TestDirIndexCannotBePlanted: an index file committed with a repository
// (right paths, sizes and mtimes, a listing with an extra hook) or a
// corrupt one is ignored: the scan finds what is on disk.
func TestDirIndexCannotBePlanted(t *testing.T) {
	countReads(t)
	tr := newTree(t)
	s := *tr.layout.Local
	tr.hook(plugins.Local, "hooks/real", format.SessionStart)
	hooksDir := filepath.Join(s.Root, "hooks")
	time.Sleep(2 * racyWindow)
	fi, err := os.Stat(hooksDir)
	if err != nil {
		t.Fatal(err)
	}
	planted := dirListingCodec.encode(dirListing{dev: 1, ino: 2, entries: []dirEntry{{"real", 0}, {"planted", 0}}})
	line := fmt.Sprintf("%d %d %d %d %s %s\n", fi.Size(), fi.ModTime().UnixNano(), 12345, uint32(fi.Mode()), quoteField(hooksDir), quoteField(planted))
	cacheFile := filepath.Join(s.CacheDir(), dirIndexFile(plugins.HookKind))
	for _, body := range []string{cacheHeader + "\n" + line, "garbage\n" + line, cacheHeader + "\n1 2 3\n"} {
		os.MkdirAll(s.CacheDir(), 0o755)
		os.WriteFile(cacheFile, []byte(body), 0o644)
		ix := loadDirIndex(s, plugins.HookKind, nil)
		c, err := plugins.ScanWith(s.Root, plugins.HookKind, ix)
		ix.save()
		if err != nil || len(c.Hooks) != 1 || c.Hooks[0].Name != "real" {
			t.Fatalf("planted index used: %+v %v", c.Hooks, err)
		}
		if data, _ := os.ReadFile(cacheFile); strings.Contains(string(data), "planted") || !strings.HasPrefix(string(data), cacheHeader+"\n") {
			t.Fatalf("index not rewritten:\n%s", data)
		}
	}
	// A project whose .quiver/cache leads elsewhere is never written
	// to: a project's caches live in its machine folder (SPEC §1).
	if strings.HasPrefix(s.CacheDir(), s.Root) {
		t.Fatalf("the project's cache is in the project: %s", s.CacheDir())
	}
	elsewhere := t.TempDir()
	os.Symlink(elsewhere, filepath.Join(s.Root, "cache"))
	time.Sleep(2 * racyWindow)
	ix := loadDirIndex(s, plugins.HookKind, nil)
	plugins.ScanWith(s.Root, plugins.HookKind, ix)
	ix.save()
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Fatalf("wrote through a linked cache/: %v", entries)
	}
}

func TestDirListingCodec(t *testing.T) {
	l := dirListing{dev: 7, ino: 9, entries: []dirEntry{{"\nodd\x01", fs.ModeSocket}, {"a b", 0}, {"d", fs.ModeDir}, {"l", fs.ModeSymlink}, {"p", fs.ModeNamedPipe}}}
	got, ok := dirListingCodec.decode(dirListingCodec.encode(l))
	if !ok || !reflect.DeepEqual(got, l) {
		t.Fatalf("round trip: %+v %v", got, ok)
	}
	for _, bad := range []string{"", "1/2", "x/2/", "1/2/fa", "1/2/za/", "1/2/f/", "1/2/f./", "1/2/f../", "1/2/fb/fa/", "1/2/fa/fa/", "1/2//", "1/2/fa//"} {
		if _, ok := dirListingCodec.decode(bad); ok {
			t.Errorf("decoded %q", bad)
		}
	}
	if got, ok := dirListingCodec.decode("1/2/"); !ok || got.entries != nil {
		t.Errorf("an empty folder: %+v %v", got, ok)
	}
}

// splitDecode is dirListingCodec's decoder as it was before it cut its
// fields in place (split into a slice, entries read by appendEntry): the
// reference the new one must agree with.
func splitDecode(s string) (dirListing, bool) {
	var l dirListing
	f := strings.Split(s, "/")
	if len(f) < 3 || f[len(f)-1] != "" {
		return l, false
	}
	var err1, err2 error
	l.dev, err1 = strconv.ParseUint(f[0], 10, 64)
	l.ino, err2 = strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return l, false
	}
	if len(f) > 3 {
		l.entries = make([]dirEntry, 0, len(f)-3)
	}
	for _, e := range f[2 : len(f)-1] {
		var ok bool
		if l.entries, ok = appendEntry(l.entries, e); !ok {
			return l, false
		}
	}
	return l, true
}

// TestDirListingDecodeAgreesWithSplit: over 50,000 seeded random lines
// made of the codec's own characters, the decoder accepts exactly what
// the split-based one accepted, with the same listing.
func TestDirListingDecodeAgreesWithSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 7))
	const alphabet = "12/fdlx.ab"
	accepted := 0
	for range 50_000 {
		b := []byte("3/4/")
		if rng.IntN(4) == 0 {
			b = b[:rng.IntN(4)]
		}
		for range rng.IntN(14) {
			b = append(b, alphabet[rng.IntN(len(alphabet))])
		}
		s := string(b)
		got, ok := dirListingCodec.decode(s)
		want, wok := splitDecode(s)
		if ok != wok || (ok && (got.dev != want.dev || got.ino != want.ino || !slices.Equal(got.entries, want.entries))) {
			t.Fatalf("%q: decoded %+v %v, the split decoder %+v %v", s, got, ok, want, wok)
		}
		if ok {
			accepted++
		}
	}
	if accepted < 1000 {
		t.Fatalf("only %d of the lines were valid: the test says little", accepted)
	}
}
