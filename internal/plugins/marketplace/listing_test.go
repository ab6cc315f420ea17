package marketplace

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// TestList: both scopes' marketplaces are listed with their plugin
// counts, a missing checkout says so; removing one from the wrong scope
// names the command that removes it.
func TestList(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	l := plugins.NewLayout(project, home)
	if got, err := List(l); err != nil || got == nil || len(got) != 0 {
		t.Errorf("none: %v %v", got, err)
	}
	addTo(t, *l.Local, "team", "https://github.com/team/market.git", "team")
	addTo(t, l.Global, "tools", "https://github.com/acme/market.git", "mine")
	os.RemoveAll(l.Global.MarketplaceDir("tools"))
	got, err := List(l)
	if err != nil || len(got) != 2 {
		t.Fatalf("List: %v %v", got, err)
	}
	if got[0].Name != "team" || got[0].Location != "local" || got[0].Plugins != 1 || got[0].Missing {
		t.Errorf("team: %+v", got[0])
	}
	if got[1].Name != "tools" || !got[1].Missing || got[1].Plugins != 0 {
		t.Errorf("tools: %+v", got[1])
	}
	err = Elsewhere(plugins.ErrNoMarketplace, l, *l.Local, "tools")
	if err == nil || !strings.Contains(err.Error(), "use quiver marketplace remove -g tools") {
		t.Errorf("Elsewhere: %v", err)
	}
	if err := Elsewhere(plugins.ErrNoMarketplace, l, *l.Local, "none"); !errors.Is(err, plugins.ErrNoMarketplace) {
		t.Errorf("nowhere: %v", err)
	}
}

// TestResults: a hit is named PLUGIN@MARKETPLACE, installs as
// MARKETPLACE/PLUGIN, and says where that is installed already.
func TestResults(t *testing.T) {
	l := plugins.NewLayout(t.TempDir(), t.TempDir())
	addTo(t, l.Global, "tools", "https://github.com/acme/market.git", "mine")
	lock, _ := plugins.ReadLock(l.Global.LockPath())
	lock.Plugins["tools/p"] = plugins.LockEntry{Source: "/src"}
	if err := plugins.WriteLock(l.Global.LockPath(), lock); err != nil {
		t.Fatal(err)
	}
	if got := Results(l, nil); got == nil || len(got) != 0 {
		t.Errorf("no hits: %v", got)
	}
	hits := []Hit{{Entry: Entry{Name: "p", Keywords: []string{"k"}, Tags: []string{"t"}}, Marketplace: "tools", Location: plugins.Global, Installable: true}}
	got := Results(l, hits)
	if len(got) != 1 || got[0].Name != "p@tools" || got[0].Plugin != "tools/p" || got[0].Installed != "global" || strings.Join(got[0].Keywords, ",") != "k,t" {
		t.Errorf("Results: %+v", got)
	}
}
