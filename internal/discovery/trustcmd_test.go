package discovery

import (
	"encoding/json"
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
	if _, err := Decide(home, false, ""); err == nil || !strings.Contains(err.Error(), "home scope") {
		t.Errorf("home scope: %v", err)
	}
	if _, err := Decide(tr.layout, false, "CLAUDECODE"); err == nil || !strings.Contains(err.Error(), "(CLAUDECODE is set)") {
		t.Errorf("agent: %v", err)
	}
	if d, err := Decide(tr.layout, true, "CLAUDECODE"); err != nil || d.Revoked {
		t.Errorf("revoke without record: %+v %v", d, err)
	}
	d, err := Decide(tr.layout, false, "")
	if err != nil || !d.Trust.Trusted() {
		t.Fatalf("trust: %+v %v", d, err)
	}
	if l := d.Trust.Listing(); len(l) != 1 || l[0].Name != "check" {
		t.Errorf("listing: %+v", l)
	}
	if d, err := Decide(tr.layout, true, ""); err != nil || !d.Revoked || d.Trust.Trusted() {
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
