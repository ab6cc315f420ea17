package discovery

import (
	"encoding/json"
	"github.com/quiver-cli/quiver/internal/plugins/scan"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// TestDecide: trusting is refused in the home scope and inside an agent's
// session, revoking is not; a record made is a record revoked; the
// listing names each hook once.
func TestDecide(t *testing.T) {
	tr := newTree(t)
	tr.hook(plugins.Local, "hooks/check", "before_tool_call")
	home := plugins.Layout{ProjectDir: tr.layout.Global.Root, Global: tr.layout.Global}
	if _, err := Decide(home, false, "", nil, scan.Block); err == nil || !strings.Contains(err.Error(), "home scope") {
		t.Errorf("home scope: %v", err)
	}
	if _, err := Decide(tr.layout, false, "CLAUDECODE", nil, scan.Block); err == nil || !strings.Contains(err.Error(), "(CLAUDECODE is set)") {
		t.Errorf("agent: %v", err)
	}
	if d, err := Decide(tr.layout, true, "CLAUDECODE", nil, scan.Block); err != nil || d.Revoked {
		t.Errorf("revoke without record: %+v %v", d, err)
	}
	d, err := Decide(tr.layout, false, "", nil, scan.Block)
	if err != nil || !d.Trust.Trusted() {
		t.Fatalf("trust: %+v %v", d, err)
	}
	if l := d.Trust.Listing(); len(l) != 1 || l[0].Name != "check" {
		t.Errorf("listing: %+v", l)
	}
	if d, err := Decide(tr.layout, true, "", nil, scan.Block); err != nil || !d.Revoked || d.Trust.Trusted() {
		t.Errorf("revoke: %+v %v", d, err)
	}
	if asked := tr.asked(); len(asked) != 0 {
		t.Errorf("deciding asked %v", asked)
	}
}

func TestDecidedReportListsAreNeverNull(t *testing.T) {
	data, err := json.Marshal(Decided{Trust: Trust{Project: "/p", Files: []ProjectHook{{Path: "/p/lib.sh"}}}}.Report())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"project":"/p","trusted":false,"fingerprint":"","hooks":[],"replaces":[],"shadows":[],"files":["/p/lib.sh"],"changed":[],"sources":[]}`
	if string(data) != want {
		t.Errorf("got  %s\nwant %s", data, want)
	}
}

// TestDecidedSummary: trust names what changed and the sources it makes
// the person's, lists each hook with its path in the project (and why an
// invalid one never runs), escapes what the repository wrote, and says
// of a project with nothing to trust only that; revoking only notes it.
func TestDecidedSummary(t *testing.T) {
	d := Decided{
		Changed: []string{"hooks/check"},
		Sources: []string{"acme/guard from https://x/acme/guard"},
		Trust: Trust{
			Items:    []ProjectItem{{Name: "check\u202e", Path: "/p/.quiver/hooks/check"}},
			Hooks:    []ProjectHook{{Path: "/p/.quiver/hooks/check"}, {Name: "acme/guard/bad", Path: "/p/.quiver/plugins/acme@guard/hooks/bad", Escape: "leads to /etc/passwd"}},
			Files:    []ProjectHook{{Path: "/p/.quiver/hooks/lib.sh"}},
			Shadows:  []string{"check"},
			Replaces: []string{"acme/guard"},
		},
	}
	lines, notice := d.Summary("/p", false)
	want := []string{
		"Changed since you last trusted /p: hooks/check",
		"From sources the repository chose, now yours to update from:",
		"  acme/guard from https://x/acme/guard",
		"Trusted 1 project hook in /p:",
		`  check\u202e                                   .quiver/hooks/check`,
		"  acme/guard/bad                           .quiver/plugins/acme@guard/hooks/bad (invalid, never runs: leads to /etc/passwd)",
		"and 1 other file of their folders that they may run or load (see quiver trust --json).",
		"The project's hook check replaces your global hook of the same name, which does not run here.",
		"Trusted the project's own version of acme/guard in /p: it replaces your global install, whose hooks do not run here.",
		"This holds until any of it changes; then quiver asks you again.",
	}
	if notice != "" || strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("summary (notice %q):\n%s\nwant:\n%s", notice, strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}

	lines, notice = Decided{Changed: []string{"x"}}.Summary("/p", false)
	if len(lines) != 1 || !strings.HasPrefix(notice, "/p has no project hooks;") {
		t.Errorf("nothing to trust: %q, %q", lines, notice)
	}
	if lines, notice := (Decided{Revoked: true}).Summary("/p", true); lines != nil || notice != "No longer trusting the hooks of /p." {
		t.Errorf("revoked: %q, %q", lines, notice)
	}
	if _, notice := (Decided{}).Summary("/p", true); notice != "/p was not trusted." {
		t.Errorf("not revoked: %q", notice)
	}
}
