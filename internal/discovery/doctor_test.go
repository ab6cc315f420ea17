package discovery

import (
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// TestDiagnose: doctor's checks of the scopes say what is wrong and the
// command that fixes it, with -g for the user's scope.
func TestDiagnose(t *testing.T) {
	tr := newTree(t)
	tr.write(plugins.Global, "hooks/.keep", "", 0)
	tr.disable(plugins.Global, "acme/guard")
	tr.write(plugins.Local, "hooks/notes.txt", "not a hook", 0)
	fs, err := Diagnose(t.Context(), tr.options())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.Severity+": "+f.Reason+" | "+f.Fix)
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"error: global plugin acme/guard is in the lock file but not installed | quiver plugin install -g",
		"warning: in a hooks folder but not a hook: ",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %q in:\n%s", want, all)
		}
	}
	if tr.layout.Local.Flag() != "" || tr.layout.Global.Flag() != " -g" {
		t.Error("Scope.Flag")
	}
}
