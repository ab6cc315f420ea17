package discovery

import (
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

func TestPluginRowsAndLines(t *testing.T) {
	n, _ := plugins.ParseName("acme/guard")
	p := plugins.Plugin{Name: n, Scope: plugins.Scope{Location: plugins.Local}, Dir: t.TempDir(),
		Entry:    plugins.LockEntry{Ref: "v1.2.0", Commit: "4f1c2ab9999", Source: "https://x/acme/guard"},
		Contents: plugins.Contents{Hooks: []plugins.Item{{Name: "check"}}, Skills: []plugins.Item{{Name: "review"}}}}
	if got, want := Added(p), "Installed acme/guard in the project (v1.2.0, 4f1c2ab): 1 hook, 1 skill, 0 recipes"; got != want {
		t.Errorf("Added: %q\nwant %q", got, want)
	}
	if got, want := strings.Join(PluginRow(p), "|"), "acme/guard|local|v1.2.0|4f1c2ab|1|0|1|0|0|0"; got != want {
		t.Errorf("PluginRow: %q, want %q", got, want)
	}
	info := InfoOf(p)
	if info.Name != "acme/guard" || !info.Enabled || len(info.Hooks) != 1 || info.Commit != "4f1c2ab9999" {
		t.Errorf("InfoOf: %+v", info)
	}

	p.Entry = plugins.LockEntry{Link: true, Source: "/src/guard", Disabled: true}
	if got, want := strings.Join(PluginRow(p), "|"), "acme/guard (disabled)|local|-|link|1|0|1|0|0|0"; got != want {
		t.Errorf("PluginRow, linked and disabled: %q, want %q", got, want)
	}
	p.Missing = true
	if got := PluginRow(p)[3]; got != "missing" {
		t.Errorf("PluginRow, missing: commit %q", got)
	}
}

func TestDetailOfPrefersPluginYAML(t *testing.T) {
	n, _ := plugins.ParseName("acme/guard")
	p := plugins.Plugin{Name: n, Missing: true,
		Manifest: plugins.Manifest{Description: "from plugin.yaml"},
		Contents: plugins.Contents{Manifest: &plugins.ClaudeManifest{Description: "from plugin.json", Version: "2.0"}}}
	d := DetailOf(p)
	if d.Description != "from plugin.yaml" || d.Version != "2.0" || !d.Missing {
		t.Errorf("DetailOf: %+v", d)
	}
}

// TestDetailFields: plugin show says what it knows in a fixed order,
// leaves out what is empty, and says "-" for an empty list.
func TestDetailFields(t *testing.T) {
	n, _ := plugins.ParseName("acme/guard")
	p := plugins.Plugin{Name: n, Scope: plugins.Scope{Location: plugins.Local}, Dir: "/p/acme@guard", Missing: true,
		Entry:    plugins.LockEntry{Link: true, Source: "/src/guard"},
		Contents: plugins.Contents{Skills: []plugins.Item{{Name: "review"}, {Name: "lint"}}}}
	var got []string
	for _, f := range DetailOf(p).Fields() {
		got = append(got, f[0]+"="+f[1])
	}
	want := []string{"name=acme/guard", "location=local", "path=/p/acme@guard", "source=/src/guard",
		"link=yes (edits to the source show up at once)", "missing=the folder is gone; reinstall it with quiver plugin add --force",
		"enabled=true", "hooks=-", "skills=review, lint", "recipes=-"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Fields:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	p.Contents.Skills = []plugins.Item{{Name: "re\x1b[2Jview"}}
	if lines := DetailOf(p).Lines(); len(lines) != len(want) || lines[0] != "name:        acme/guard" || lines[len(lines)-2] != `skills:      re\x1b[2Jview` {
		t.Errorf("Lines:\n%s", strings.Join(lines, "\n"))
	}
}

// TestInfosNeverNil: no plugins is [] in JSON, not null.
func TestInfosNeverNil(t *testing.T) {
	if got := Infos(nil); got == nil || len(got) != 0 {
		t.Errorf("Infos(nil) = %#v", got)
	}
}
