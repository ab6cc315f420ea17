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

// TestDiagnoseEnv: doctor says when the environment turns every hook off,
// and nothing otherwise.
func TestDiagnoseEnv(t *testing.T) {
	for v, want := range map[string]int{"": 0, "0": 0, "1": 1, "yes": 0} {
		fs := DiagnoseEnv(func(k string) string {
			if k == "QUIVER_NO_HOOKS" {
				return v
			}
			return ""
		})
		if len(fs) != want {
			t.Fatalf("QUIVER_NO_HOOKS=%q: %+v; want %d finding(s)", v, fs, want)
		}
		if want == 1 && (fs[0].Severity != "warning" || fs[0].Fix != "unset QUIVER_NO_HOOKS") {
			t.Fatalf("QUIVER_NO_HOOKS=1: %+v", fs[0])
		}
	}
}

// TestDiagnoseGitHelper: doctor names a missing git helper as an error
// with how to install it.
func TestDiagnoseGitHelper(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	fs := DiagnoseGitHelper(t.Context())
	if len(fs) != 1 || fs[0].Severity != "error" || !strings.Contains(fs[0].Reason, "plugins cannot be fetched") || !strings.Contains(fs[0].Fix, "quiver-git") {
		t.Errorf("findings: %+v", fs)
	}
}
