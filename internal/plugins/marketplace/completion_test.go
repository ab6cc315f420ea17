package marketplace

import (
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// TestComplete: every added marketplace's entries are offered as
// PLUGIN@MARKETPLACE, with descriptions; a project marketplace hides a
// global one of its name; marketplace names complete once each.
func TestComplete(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	l := plugins.NewLayout(project, home)
	addTo(t, l.Global, "tools", "https://github.com/acme/market.git", "mine")
	addTo(t, *l.Local, "tools", "https://github.com/evil/market.git", "theirs")
	addTo(t, l.Global, "team", "https://github.com/team/market.git", "team")
	got := Complete(l, "p@t")
	if len(got) != 2 || got[0] != (Candidate{"p@tools", "theirs"}) || got[1] != (Candidate{"p@team", "team"}) {
		t.Errorf("Complete: %v", got)
	}
	if got := Complete(l, "q"); len(got) != 0 {
		t.Errorf("no match: %v", got)
	}
	if got := plugins.CompleteMarketplaces(l, "t", []string{"team"}); len(got) != 1 || got[0] != "tools" {
		t.Errorf("CompleteMarketplaces: %v", got)
	}
}
