package marketplace

import (
	"slices"
	"strings"
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

// TestShellCandidates: a shell is offered PLUGIN@MARKETPLACE, a tab and
// the description made one short line, escaped; no description, no tab.
func TestShellCandidates(t *testing.T) {
	l := plugins.NewLayout(t.TempDir(), t.TempDir())
	long := strings.Repeat("word ", 20)
	addTo(t, l.Global, "tools", "https://github.com/acme/market.git", `a\tb\u202e `+long)
	addTo(t, l.Global, "bare", "https://github.com/acme/bare.git", "")
	got := ShellCandidates(l, "p@")
	want := []string{"p@bare", "p@tools\t" + `a b\u202e ` + strings.Repeat("word ", 10) + "word…"}
	if !slices.Equal(got, want) {
		t.Errorf("ShellCandidates:\n%q\nwant\n%q", got, want)
	}
	for _, path := range []string{"./p", "../p", ".p", "/tmp/p", "~/p", "acme/p", "https:"} {
		if got := ShellCandidates(l, path); got != nil {
			t.Errorf("ShellCandidates(%q) = %q, want none: the shell completes paths", path, got)
		}
	}
}
