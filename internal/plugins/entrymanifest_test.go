package plugins

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEntryManifest: a marketplace entry's manifest (.quiver-entry.json)
// replaces plugin.json's component fields, and a skills path may name a
// skill's own folder, as Claude Code reads it (SPEC §11, §12).
func TestEntryManifest(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write := func(dir, rel, body string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	skill := func(name string) string { return "---\nname: " + name + "\ndescription: d\n---\n" }
	write(root, ".claude-plugin/plugin.json", `{"name": "p", "skills": "./skills", "commands": "./commands"}`)
	write(root, EntryManifestPath, `{"skills": ["./picked/one", "./two", "./away"], "hooks": {"Stop": []}}`)
	write(root, "skills/default/SKILL.md", skill("default"))
	write(root, "picked/one/SKILL.md", skill("one"))
	write(root, "picked/sibling/SKILL.md", skill("sibling"))
	write(root, "two/SKILL.md", skill("two"))
	write(root, "commands/c.md", "C.")
	write(outside, "away/SKILL.md", skill("away"))
	if err := os.Symlink(filepath.Join(outside, "away"), filepath.Join(root, "away")); err != nil {
		t.Fatal(err)
	}

	c, err := Scan(root, AllKinds|Confine)
	if err != nil {
		t.Fatal(err)
	}
	if c.Manifest == nil || c.Manifest.Name != "p" {
		t.Fatalf("manifest %+v: plugin.json's name is kept", c.Manifest)
	}
	got := map[string]string{}
	for _, s := range c.Skills {
		got[s.Name] = s.Escape
	}
	if len(got) != 3 || got["one"] != "" || got["two"] != "" || got["away"] == "" {
		t.Errorf("skills %+v: want one and two, and away refused as leading out", c.Skills)
	}
	// The entry has no commands field: the default folder, not plugin.json's.
	if len(c.Recipes) != 1 || c.Recipes[0].Name != "c" {
		t.Errorf("recipes %+v", c.Recipes)
	}
	if len(c.HookFiles) != 1 || c.HookFiles[0].Path != filepath.Join(root, EntryManifestPath) || c.HookFiles[0].Name != HooksJSON {
		t.Errorf("hook files %+v: the inline hooks are read from the entry's file", c.HookFiles)
	}

	// A broken entry manifest is the manifest's error, as a broken
	// plugin.json is.
	write(root, EntryManifestPath, `{"skills": "../up"}`)
	if c, _ := Scan(root, AllKinds); c.ManifestErr == nil {
		t.Error("an entry manifest naming ../up was read")
	}
}
