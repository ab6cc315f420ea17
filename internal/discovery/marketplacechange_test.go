package discovery

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// lockMarketplace records marketplace name from source in the project's
// lock file, as marketplace add does.
func (tr *tree) lockMarketplace(name, source string) {
	tr.t.Helper()
	path := tr.layout.Local.LockPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tr.t.Fatal(err)
	}
	lock, err := plugins.ReadLock(path)
	if err != nil {
		tr.t.Fatal(err)
	}
	lock.Marketplaces[name] = plugins.MarketplaceEntry{Source: source}
	if err := plugins.WriteLock(path, lock); err != nil {
		tr.t.Fatal(err)
	}
}

// TestMarketplaceAdded: the change names the marketplace once it is
// added, and records it as the user's choice only then.
func TestMarketplaceAdded(t *testing.T) {
	tr := newTree(t)
	failed := MarketplaceAdded(tr.layout, func() (string, error) { return "", errors.New("clone failed") })
	if err := failed.Do(); err == nil {
		t.Fatal("the add's error is lost")
	}
	if err := failed.Record(); err != nil {
		t.Fatalf("nothing added, yet Record: %v", err)
	}

	u := MarketplaceAdded(tr.layout, func() (string, error) {
		tr.lockMarketplace("tools", "/src/tools")
		return "tools", nil
	})
	if len(u.What.Marketplaces) != 0 {
		t.Fatalf("the change names %q before the add", u.What.Marketplaces)
	}
	if err := u.Do(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(u.What.Marketplaces, []string{"tools"}) {
		t.Fatalf("the change names %q; want tools", u.What.Marketplaces)
	}
	if ChosenMarketplace(tr.layout, "tools", "/src/tools") {
		t.Fatal("chosen before Record")
	}
	if err := u.Record(); err != nil {
		t.Fatal(err)
	}
	if !ChosenMarketplace(tr.layout, "tools", "/src/tools") {
		t.Fatal("an added marketplace is not the user's choice")
	}

	// Removing forgets the choice, but only once the removal worked.
	kept := MarketplaceRemoved(tr.layout, "tools", func() error { return errors.New("busy") })
	if err := kept.Do(); err == nil {
		t.Fatal("the removal's error is lost")
	}
	if err := kept.Record(); err != nil || !ChosenMarketplace(tr.layout, "tools", "/src/tools") {
		t.Fatalf("a failed removal forgot the choice: %v", err)
	}
	gone := MarketplaceRemoved(tr.layout, "tools", func() error { return nil })
	if !slices.Equal(gone.What.Marketplaces, []string{"tools"}) {
		t.Fatalf("the change names %q; want tools", gone.What.Marketplaces)
	}
	if err := gone.Do(); err != nil {
		t.Fatal(err)
	}
	if err := gone.Record(); err != nil || ChosenMarketplace(tr.layout, "tools", "/src/tools") {
		t.Fatalf("a removed marketplace is still chosen: %v", err)
	}
}
