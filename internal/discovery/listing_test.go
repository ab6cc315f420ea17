package discovery

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestListingsSayEmpty: an empty listing is [] in JSON, never null, and
// only active items are listed unless all.
func TestListingsSayEmpty(t *testing.T) {
	for _, v := range []any{HookEntries(&HookSet{}, false), DocEntries(nil, true)} {
		if data, _ := json.Marshal(v); string(data) != "[]" {
			t.Errorf("empty listing is %s", data)
		}
	}
	docs := []Doc{{Name: "a", Status: Active}, {Name: "b", Status: Shadowed}}
	if got := DocEntries(docs, false); len(got) != 1 || got[0].Name != "a" {
		t.Errorf("active only: %v", got)
	}
	if got := DocEntries(docs, true); len(got) != 2 {
		t.Errorf("all: %v", got)
	}
}

// TestShown: show finds the item in effect, explains one that is not,
// still shows an invalid one with its error, and never reads a file that
// leads out of its folder.
func TestShown(t *testing.T) {
	tr := newTree(t)
	path := tr.write("local", "skills/review/SKILL.md", "---\nname: review\ndescription: Reviews\nlicense: MIT\n---\nBody\n", 0)
	docs := []Doc{
		{Kind: Skill, Name: "review", Path: path, Status: Shadowed, Reason: "shadowed by x"},
		{Kind: Skill, Name: "broken", Path: path, Status: Invalid, Reason: "bad"},
		{Kind: Skill, Name: "out", Path: "/etc/passwd", Status: Invalid, Escape: "leads out", Reason: "leads out"},
	}
	d, notice, invalid, err := Shown(Skill, docs, "review")
	if err != nil || invalid != nil || !strings.Contains(notice, "skill review is shadowed: shadowed by x") || d.Body != "Body\n" {
		t.Errorf("shadowed: %q %v %v %q", notice, invalid, err, d.Body)
	}
	show := ShowOf(Skill, d)
	if show.Metadata["license"] != "MIT" || show.Metadata["name"] != nil || show.Frontmatter["name"] != "review" {
		t.Errorf("show: %+v", show)
	}
	if _, _, invalid, err := Shown(Skill, docs, "broken"); err != nil || invalid == nil {
		t.Errorf("invalid: %v %v", invalid, err)
	}
	if _, _, _, err := Shown(Skill, docs, "out"); err == nil || !strings.Contains(err.Error(), "leads out") {
		t.Errorf("escape: %v", err)
	}
	if _, _, _, err := Shown(Recipe, nil, "x"); err == nil || err.Error() != "no recipe named x; see quiver recipe list" {
		t.Errorf("missing: %v", err)
	}
	if r := ShowOf(Recipe, Doc{}); r.Frontmatter == nil || r.Metadata != nil {
		t.Errorf("recipe show: %+v", r)
	}
}

func TestListingRows(t *testing.T) {
	h := HookEntry{Name: "acme/guard/check", Location: "local", Status: "untrusted", Reason: "not\n  trusted"}
	if got, want := strings.Join(h.Row(false), "|"), "acme/guard/check|-|local"; got != want {
		t.Errorf("hook row: %q, want %q", got, want)
	}
	if got, want := strings.Join(h.Row(true), "|"), "acme/guard/check|-|local|untrusted|not trusted"; got != want {
		t.Errorf("hook row --all: %q, want %q", got, want)
	}
	if len(HookHeader(true)) != 5 || len(HookHeader(false)) != 3 || len(DocHeader(true)) != 5 || len(DocHeader(false)) != 3 {
		t.Error("headers do not match the rows")
	}
	d := DocEntry{Name: "review", Location: "global", Description: strings.Repeat("long words ", 10), Status: "active"}
	row := d.Row(true)
	if len([]rune(row[2])) != 60 || !strings.HasSuffix(row[2], "...") || row[3] != "active" {
		t.Errorf("doc row: %q", row)
	}
	if got := (DocEntry{Name: "x"}).Row(false)[2]; got != "-" {
		t.Errorf("empty description: %q", got)
	}
}

// TestHookListNotices: hook list says how many untrusted hooks it
// skipped (not when --all lists them), and what to do about an empty
// list only when nothing was skipped.
func TestHookListNotices(t *testing.T) {
	hs := &HookSet{Hooks: []Hook{{Name: "a", Status: Untrusted}, {Name: "b", Status: Untrusted}, {Name: "c", Status: Active}}}
	skipped, none := hs.ListNotices(false)
	if !strings.HasPrefix(skipped, "quiver: 2 project hooks are not trusted and were skipped;") || none != "" {
		t.Errorf("untrusted: %q, %q", skipped, none)
	}
	if skipped, _ := hs.ListNotices(true); skipped != "" {
		t.Errorf("--all: %q", skipped)
	}
	if skipped, none := (&HookSet{}).ListNotices(false); skipped != "" || !strings.HasPrefix(none, "No hooks. Install a plugin") {
		t.Errorf("none: %q, %q", skipped, none)
	}
}
