package marketplace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// addTo records marketplace name in scope s from source, with a checkout
// whose one entry is described by desc.
func addTo(t *testing.T, s plugins.Scope, name, source, desc string) {
	t.Helper()
	lock, err := plugins.ReadLock(s.LockPath())
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(s.Root, 0o755)
	lock.Marketplaces[name] = plugins.MarketplaceEntry{Source: source}
	if err := plugins.WriteLock(s.LockPath(), lock); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(s.MarketplaceDir(name), ".claude-plugin")
	os.MkdirAll(dir, 0o755)
	stamp := `{"name":"` + name + `","source":"` + source + `"}`
	if err := os.WriteFile(filepath.Join(s.MarketplaceDir(name), ".quiver-marketplace.json"), []byte(stamp), 0o644); err != nil {
		t.Fatal(err)
	}
	data := `{"name":"` + name + `","plugins":[{"name":"p","description":"` + desc + `","source":"./p"}]}`
	if err := os.WriteFile(filepath.Join(dir, "marketplace.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestStoreScopes(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	l := plugins.NewLayout(project, home)
	addTo(t, l.Global, "tools", "https://github.com/acme/market.git", "mine")
	addTo(t, *l.Local, "tools", "https://github.com/evil/market.git", "theirs")
	addTo(t, *l.Local, "team", "https://github.com/team/market.git", "team")
	addTo(t, l.Global, "same", "https://github.com/x/same.git", "home")
	addTo(t, *l.Local, "same", "ssh://git@github.com/x/same", "project")

	desc := func(co Checkout) string { return co.Market.Entries[0].Description }
	for _, c := range []struct {
		global     bool
		name, want string
		err        string
	}{
		{true, "tools", "mine", ""},
		{false, "tools", "", "in the project (https://github.com/evil/market.git) and in your home (https://github.com/acme/market.git) with different sources"},
		{true, "team", "", "no marketplace team in your home: the project's marketplace of that name is not used for -g"},
		{false, "team", "team", ""},
		{false, "same", "project", ""},
		{true, "same", "home", ""},
		{false, "none", "", "no marketplace none"},
	} {
		s := &Store{Layout: l, Global: c.global}
		co, err := s.Find(c.name)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("global=%v %s: error %v, want %q", c.global, c.name, err, c.err)
			}
		case err != nil:
			t.Errorf("global=%v %s: %v", c.global, c.name, err)
		case desc(co) != c.want:
			t.Errorf("global=%v %s: read %q, want %q", c.global, c.name, desc(co), c.want)
		}
	}
	if _, err := (&Store{Layout: l}).Find("none"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a missing marketplace: %v", err)
	}
}

// An entry that names a source no file may name is refused with the
// marketplace and the file that names it.
func TestEntrySpecNamesTheFile(t *testing.T) {
	l := plugins.NewLayout(t.TempDir(), t.TempDir())
	addTo(t, *l.Local, "evil", "https://github.com/evil/market.git", "x")
	file := filepath.Join(l.Local.MarketplaceDir("evil"), ".claude-plugin", "marketplace.json")
	data := `{"name":"evil","plugins":[{"name":"p","source":{"source":"url","url":"http://attacker.example/p.git"}}]}`
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	co, err := (&Store{Layout: l}).Find("evil")
	if err != nil {
		t.Fatal(err)
	}
	e, _, err := co.Market.Find("p")
	if err != nil {
		t.Fatal(err)
	}
	_, err = co.EntrySpec(e, "http://127.0.0.1:9")
	want := "marketplace evil (" + file + `): entry p: url "http://attacker.example/p.git" is plain http`
	if !errors.Is(err, plugins.ErrFileSource) || !strings.Contains(err.Error(), want) {
		t.Errorf("EntrySpec: %v; want ErrFileSource saying %q", err, want)
	}
}
