package plugins_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

const lockHeaderLine = "# quiver.lock: written by quiver; commit it to share this plugin set\n"

func TestLockMarshal(t *testing.T) {
	tests := []struct {
		name string
		lock plugins.Lock
		want string
	}{
		{
			name: "empty",
			lock: plugins.Lock{},
			want: lockHeaderLine + "version: 1\nplugins: {}\n",
		},
		{
			name: "empty map",
			lock: plugins.Lock{Version: 1, Plugins: map[string]plugins.LockEntry{}},
			want: lockHeaderLine + "version: 1\nplugins: {}\n",
		},
		{
			// Keys come out sorted, every field set is written in struct
			// order, and unset ones (ref, commit, hash, link, disabled) are
			// left out.
			name: "sorted, omitempty",
			lock: plugins.Lock{Version: 1, Plugins: map[string]plugins.LockEntry{
				"zeta/z": {Source: "/abs/zeta"},
				"acme/guard": {
					Source: "https://github.com/acme/guard.git", Ref: "v1.2.0",
					Commit: "4f1c2e9a4f1c2e9a4f1c2e9a4f1c2e9a4f1c2e9a", Hash: "sha256:9a0b", Disabled: true,
				},
				"acme/linked": {Source: "/home/u/src/linked", Link: true},
			}},
			want: lockHeaderLine + `version: 1
plugins:
  acme/guard:
    source: https://github.com/acme/guard.git
    ref: v1.2.0
    commit: 4f1c2e9a4f1c2e9a4f1c2e9a4f1c2e9a4f1c2e9a
    hash: sha256:9a0b
    disabled: true
  acme/linked:
    source: /home/u/src/linked
    link: true
  zeta/z:
    source: /abs/zeta
`,
		},
		{
			// The version written is always the one this quiver reads.
			name: "stale version",
			lock: plugins.Lock{Version: 7, Plugins: map[string]plugins.LockEntry{"a/b": {Source: "s"}}},
			want: lockHeaderLine + "version: 1\nplugins:\n  a/b:\n    source: s\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := tc.lock.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != tc.want {
				t.Fatalf("Marshal() =\n%s\nwant\n%s", data, tc.want)
			}
			back, err := plugins.ParseLock(data, "quiver.lock")
			if err != nil {
				t.Fatalf("ParseLock(Marshal()): %v", err)
			}
			want := tc.lock
			want.Version = plugins.LockVersion
			if want.Plugins == nil {
				want.Plugins = map[string]plugins.LockEntry{}
			}
			if want.Marketplaces == nil {
				want.Marketplaces = map[string]plugins.MarketplaceEntry{}
			}
			if !reflect.DeepEqual(*back, want) {
				t.Errorf("round trip = %+v, want %+v", *back, want)
			}
		})
	}
}

func TestLockNames(t *testing.T) {
	l := plugins.Lock{Plugins: map[string]plugins.LockEntry{"b/a": {}, "a/z": {}, "a/b": {}, "a-b/c": {}}}
	want := []string{"a-b/c", "a/b", "a/z", "b/a"}
	if got := l.Names(); !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
}

func TestReadLockMissing(t *testing.T) {
	l, err := plugins.ReadLock(filepath.Join(t.TempDir(), "quiver.lock"))
	if err != nil {
		t.Fatal(err)
	}
	if l.Version != plugins.LockVersion || l.Plugins == nil || len(l.Plugins) != 0 {
		t.Errorf("ReadLock(missing) = %+v, want an empty version 1 lock with a non-nil map", *l)
	}
}

// TestParseLockAccepts covers content that is not what Marshal writes but
// still means "a lock", such as an empty or hand-trimmed file.
func TestParseLockAccepts(t *testing.T) {
	tests := []struct {
		name, data string
		want       map[string]plugins.LockEntry
	}{
		{"empty file", "", map[string]plugins.LockEntry{}},
		{"comment only", "# nothing yet\n", map[string]plugins.LockEntry{}},
		{"no version, no plugins", "plugins: {}\n", map[string]plugins.LockEntry{}},
		{"null plugins", "version: 1\nplugins:\n", map[string]plugins.LockEntry{}},
		{"flow style", `{version: 1, plugins: {a/b: {source: "x", ref: main}}}`, map[string]plugins.LockEntry{"a/b": {Source: "x", Ref: "main"}}},
		{"refs git accepts", "version: 1\nplugins:\n  a/b: {source: x, ref: refs/heads/x, commit: 0123456789abcdef0123456789abcdef01234567}\n  c/d: {source: x, ref: HEAD}\n",
			map[string]plugins.LockEntry{"a/b": {Source: "x", Ref: "refs/heads/x", Commit: "0123456789abcdef0123456789abcdef01234567"}, "c/d": {Source: "x", Ref: "HEAD"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := plugins.ParseLock([]byte(tc.data), "quiver.lock")
			if err != nil {
				t.Fatal(err)
			}
			if l.Version != plugins.LockVersion || !reflect.DeepEqual(l.Plugins, tc.want) {
				t.Errorf("ParseLock = %+v, want version 1 with %+v", *l, tc.want)
			}
		})
	}
}

func TestReadLockErrors(t *testing.T) {
	tests := []struct {
		name, data string
		want       string // a word the error must say
	}{
		{"corrupt yaml", "version: [1\n", "corrupt"},
		{"tab indent", "version: 1\nplugins:\n\ta/b: {source: x}\n", "corrupt"},
		{"plugins is a list", "version: 1\nplugins: [a/b]\n", "corrupt"},
		{"unknown top-level field", "version: 1\nplugins: {}\nextra: 1\n", "corrupt"},
		{"misspelled field", "versoin: 1\nplugins: {}\n", "corrupt"},
		{"unknown entry field", "version: 1\nplugins:\n  a/b: {source: x, sha: y}\n", "corrupt"},
		{"newer version", "version: 2\nplugins: {}\n", "version 2"},
		{"version zero with plugins", "version: 0\nplugins:\n  a/b: {source: x}\n", "version 0"},
		{"version is text", "version: one\n", "corrupt"},
		{"key not a name", "version: 1\nplugins:\n  guard: {source: x}\n", `"guard"`},
		{"key with traversal", "version: 1\nplugins:\n  ../x: {source: x}\n", `"../x"`},
		{"key with three parts", "version: 1\nplugins:\n  a/b/c: {source: x}\n", `"a/b/c"`},
		{"key in folder form", "version: 1\nplugins:\n  a@b: {source: x}\n", `"a@b"`},
		{"key not lowercase", "version: 1\nplugins:\n  Acme/Guard: {source: x}\n", `"Acme/Guard"`},
		{"entry without source", "version: 1\nplugins:\n  a/b: {ref: main}\n", "no source"},
		{"empty entry", "version: 1\nplugins:\n  a/b:\n", "no source"},
		// A ref or commit is passed to git: git's ref-name rules, no option.
		{"ref is an option", "version: 1\nplugins:\n  a/b: {source: x, ref: --upload-pack=touch pwned}\n", `plugin a/b: ref "--upload-pack=touch pwned"`},
		{"ref with dots", "version: 1\nplugins:\n  a/b: {source: x, ref: a..b}\n", `ref "a..b"`},
		{"ref ending in .lock", "version: 1\nplugins:\n  a/b: {source: x, ref: x.lock}\n", `ref "x.lock"`},
		{"ref @", "version: 1\nplugins:\n  a/b: {source: x, ref: \"@\"}\n", `ref "@"`},
		{"short commit", "version: 1\nplugins:\n  a/b: {source: x, commit: 0123456789abcdef0123456789abcdef0123456}\n", "commit \"0123456"},
		{"uppercase commit", "version: 1\nplugins:\n  a/b: {source: x, commit: 0123456789ABCDEF0123456789ABCDEF01234567}\n", "40 lowercase hex"},
		{"commit is a name", "version: 1\nplugins:\n  a/b: {source: x, commit: main}\n", `commit "main"`},
		{"commit is an option", "version: 1\nplugins:\n  a/b: {source: x, commit: -x}\n", `commit "-x"`},
		{"marketplace ref", "version: 1\nplugins: {}\nmarketplaces:\n  m: {source: x, ref: -x}\n", `marketplace m: ref "-x"`},
		{"marketplace commit", "version: 1\nplugins: {}\nmarketplaces:\n  m: {source: x, commit: HEAD}\n", `marketplace m: commit "HEAD"`},
		{"first broken entry in order", "version: 1\nplugins:\n  z/z: {source: x, ref: -z}\n  a/a: {source: x, ref: -a}\n", "plugin a/a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "quiver.lock")
			if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := plugins.ReadLock(path)
			if err == nil {
				t.Fatalf("ReadLock = %+v, want an error", *l)
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadLock error %q should name %s and say %s", err, path, tc.want)
			}
		})
	}
}

func TestReadLockUnreadable(t *testing.T) {
	dir := t.TempDir() // a folder where the file should be
	if _, err := plugins.ReadLock(dir); err == nil {
		t.Fatal("ReadLock(a folder) = nil error")
	}
}

// TestWriteLock checks the temp-file-and-rename dance: the result reads
// back, replaces an older lock, and nothing but quiver.lock is left in the
// folder, whether the write succeeds or fails.
func TestWriteLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "quiver.lock")
	locks := []*plugins.Lock{
		{Plugins: map[string]plugins.LockEntry{"acme/guard": {Source: "https://github.com/acme/guard.git", Ref: "v1"}}},
		{Plugins: map[string]plugins.LockEntry{"acme/other": {Source: "/x", Disabled: true}}},
		{},
	}
	for i, l := range locks {
		if err := plugins.WriteLock(path, l); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		back, err := plugins.ReadLock(path)
		if err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
		want := map[string]plugins.LockEntry{}
		for k, v := range l.Plugins {
			want[k] = v
		}
		if !reflect.DeepEqual(back.Plugins, want) {
			t.Errorf("write %d read back %+v, want %+v", i, back.Plugins, want)
		}
		assertDirHolds(t, dir, "quiver.lock")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("lock file mode = %v, want 0644", fi.Mode().Perm())
	}
}

func TestWriteLockFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	// The rename fails: the target is a non-empty folder.
	target := filepath.Join(dir, "quiver.lock")
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := plugins.WriteLock(target, &plugins.Lock{}); err == nil {
		t.Fatal("WriteLock over a folder succeeded")
	}
	assertDirHolds(t, dir, "quiver.lock")

	if err := plugins.WriteLock(filepath.Join(dir, "missing", "quiver.lock"), &plugins.Lock{}); err == nil {
		t.Fatal("WriteLock into a missing folder succeeded")
	}
	assertDirHolds(t, dir, "quiver.lock")
}

// assertDirHolds fails unless dir contains exactly the named entries.
func assertDirHolds(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if !reflect.DeepEqual(got, names) {
		t.Errorf("%s holds %q, want exactly %q", dir, got, names)
	}
}

func FuzzParseLock(f *testing.F) {
	for _, s := range []string{
		"",
		lockHeaderLine + "version: 1\nplugins: {}\n",
		"version: 1\nplugins:\n  acme/guard:\n    source: https://github.com/acme/guard.git\n    ref: v1.2.0\n    commit: 4f1c\n    hash: sha256:9a\n    disabled: true\n",
		"version: 1\nplugins:\n  a/b: {source: \"x\\ny\", link: true}\n  c@d: {source: x}\n",
		"version: 1\nplugins:\n  a/b: {source: !!binary /w==}\n",
		"plugins: {a/b: {source: &s x}, c/d: {source: *s}}\n",
		"version: 2\n", "version: [", "---\n---\n", "plugins: []\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := plugins.ParseLock(data, "fuzz.lock")
		if err != nil {
			return
		}
		out, err := l.Marshal()
		if err != nil {
			t.Fatalf("Marshal of a parsed lock: %v\ninput: %q", err, data)
		}
		back, err := plugins.ParseLock(out, "fuzz.lock")
		if err != nil {
			t.Fatalf("re-parse: %v\ninput: %q\nwritten: %q", err, data, out)
		}
		if !reflect.DeepEqual(l, back) {
			t.Fatalf("round trip changed the lock\ninput: %q\nfirst: %+v\nafter: %+v", data, *l, *back)
		}
	})
}

// TestLockKeepsRefsThatLookLikeNumbers: a short SHA such as 660247e94
// reads as a float in YAML; the lock quotes it and reads it back as the
// same string (a story grepping the file's text for it once failed).
func TestLockKeepsRefsThatLookLikeNumbers(t *testing.T) {
	for _, ref := range []string{"660247e94", "1234567", "0x1f", "1e10", "true", "null", "0755"} {
		l := &plugins.Lock{Plugins: map[string]plugins.LockEntry{"acme/guard": {Source: "https://example.com/acme/guard.git", Ref: ref}}}
		data, err := l.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := plugins.ParseLock(data, "quiver.lock")
		if err != nil {
			t.Fatalf("%s: %v\n%s", ref, err, data)
		}
		if got := back.Plugins["acme/guard"].Ref; got != ref {
			t.Errorf("ref %q came back as %q\n%s", ref, got, data)
		}
	}
}
