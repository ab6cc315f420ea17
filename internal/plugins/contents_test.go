package plugins_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// treeNode is one entry of a test tree (used by the tests of this package):
// a file with an exact mode, an empty folder, or a symlink.
type treeNode struct {
	path string // slash-separated, relative to the root
	data string // file content, or the symlink target
	mode fs.FileMode
	kind byte // 'f', 'd' or 'l'
}

func fileNode(path, data string, mode fs.FileMode) treeNode {
	return treeNode{path: path, data: data, mode: mode, kind: 'f'}
}

func dirNode(path string) treeNode { return treeNode{path: path, kind: 'd'} }

func linkNode(path, target string) treeNode { return treeNode{path: path, data: target, kind: 'l'} }

// plantTree creates nodes under root, parents as needed. File modes are set
// exactly, whatever the umask.
func plantTree(t *testing.T, root string, nodes ...treeNode) {
	t.Helper()
	for _, n := range nodes {
		p := filepath.Join(root, filepath.FromSlash(n.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch n.kind {
		case 'f':
			if err = os.WriteFile(p, []byte(n.data), n.mode); err == nil {
				err = os.Chmod(p, n.mode)
			}
		case 'd':
			err = os.MkdirAll(p, 0o755)
		case 'l':
			err = os.Symlink(n.data, p)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestScanDirHooks(t *testing.T) {
	root := t.TempDir()
	plantTree(t, root,
		fileNode("hooks/b-hook", "#!/bin/sh\n", 0o755),
		fileNode("hooks/a-hook", "#!/bin/sh\n", 0o755),
		fileNode("hooks/log.py", "#!/usr/bin/env python3\n", 0o700),
		fileNode("hooks/Zed", "#!/bin/sh\n", 0o755),
		fileNode("hooks/audit.disable", "#!/bin/sh\n", 0o755),
		fileNode("hooks/user-only-x", "#!/bin/sh\n", 0o744), // any exec bit counts
		fileNode("hooks/notes.txt", "not a hook\n", 0o644),
		fileNode("hooks/.hidden", "#!/bin/sh\n", 0o755),
		fileNode("hooks/.hidden.disable", "#!/bin/sh\n", 0o755),
		fileNode("hooks/.git/hooks/x", "#!/bin/sh\n", 0o755),
		fileNode("hooks/sub/inner", "#!/bin/sh\n", 0o755), // subfolders are ignored
		fileNode("hooks/bad\nname", "#!/bin/sh\n", 0o755),
		fileNode("run.sh", "#!/bin/sh\n", 0o755), // outside hooks/
		linkNode("hooks/via-link", "a-hook"),
		linkNode("hooks/dangling", "missing"),
		linkNode("hooks/to-dir", "sub"),
	)
	c, err := plugins.ScanDir(root)
	if err != nil {
		t.Fatal(err)
	}
	hooks := filepath.Join(root, "hooks")
	want := []plugins.Item{
		{Name: "Zed", Path: filepath.Join(hooks, "Zed")}, // byte order: upper case first
		{Name: "a-hook", Path: filepath.Join(hooks, "a-hook")},
		{Name: "audit", Path: filepath.Join(hooks, "audit.disable"), Disabled: true},
		{Name: "b-hook", Path: filepath.Join(hooks, "b-hook")},
		{Name: "log.py", Path: filepath.Join(hooks, "log.py")},
		{Name: "user-only-x", Path: filepath.Join(hooks, "user-only-x")},
		{Name: "via-link", Path: filepath.Join(hooks, "via-link"), Link: true},
	}
	if !reflect.DeepEqual(c.Hooks, want) {
		t.Errorf("Hooks =\n%+v\nwant\n%+v", c.Hooks, want)
	}
	skipped := map[string]string{}
	for _, s := range c.Skipped {
		skipped[filepath.Base(s.Path)] = s.Reason
	}
	if len(skipped) != 2 || !strings.Contains(skipped["notes.txt"], "not executable") || !strings.Contains(skipped["bad\nname"], "control or invisible") {
		t.Errorf("Skipped = %q, want notes.txt (not executable) and bad\\nname (control characters)", c.Skipped)
	}
	if len(c.Skills) != 0 || len(c.Recipes) != 0 {
		t.Errorf("skills %v, recipes %v, want none", c.Skills, c.Recipes)
	}
}

func TestScanDirSkills(t *testing.T) {
	root := t.TempDir()
	plantTree(t, root,
		fileNode("skills/review/SKILL.md", "---\nname: review\n---\n", 0o644),
		fileNode("skills/B-upper/SKILL.md", "", 0o644),
		fileNode("skills/a.b_c/SKILL.md", "", 0o644),
		fileNode("skills/review/extra/SKILL.md", "", 0o644), // only the folder's own SKILL.md
		dirNode("skills/empty"),
		fileNode("skills/no-skill/README.md", "", 0o644),
		fileNode("skills/lower/skill.md", "", 0o644), // the file name is SKILL.md exactly
		fileNode("skills/.hidden/SKILL.md", "", 0o644),
		fileNode("skills/loose.md", "", 0o644),
		fileNode("skills/SKILL.md", "", 0o644),
		fileNode("skills/deep/nested/SKILL.md", "", 0o644),
		dirNode("skills/dir-not-file/SKILL.md"),
		fileNode("SKILL.md", "", 0o644),
	)
	c, err := plugins.ScanDir(root)
	if err != nil {
		t.Fatal(err)
	}
	skills := filepath.Join(root, "skills")
	want := []plugins.Item{
		{Name: "B-upper", Path: filepath.Join(skills, "B-upper", "SKILL.md")},
		{Name: "a.b_c", Path: filepath.Join(skills, "a.b_c", "SKILL.md")},
		{Name: "review", Path: filepath.Join(skills, "review", "SKILL.md")},
	}
	if !reflect.DeepEqual(c.Skills, want) {
		t.Errorf("Skills =\n%+v\nwant\n%+v", c.Skills, want)
	}
}

func TestScanDirRecipes(t *testing.T) {
	root := t.TempDir()
	plantTree(t, root,
		fileNode("recipes/deploy.md", "", 0o644),
		fileNode("recipes/ops/deploy.md", "", 0o644),
		fileNode("recipes/ops/db/migrate.md", "", 0o644),
		fileNode("recipes/Upper.md", "", 0o644),
		fileNode("recipes/x/skills/y/SKILL.md", "", 0o644), // a recipe, not a skill
		fileNode("recipes/README.md", "", 0o644),
		fileNode("recipes/ops/readme.md", "", 0o644),
		fileNode("recipes/ops/ReadMe.md", "", 0o644),
		fileNode("recipes/notes.txt", "", 0o644),
		fileNode("recipes/shout.MD", "", 0o644),
		fileNode("recipes/.draft.md", "", 0o644),
		fileNode("recipes/.private/secret.md", "", 0o644),
		fileNode("recipes/ops/.cache/x.md", "", 0o644),
		fileNode("recipes/bad\x01name.md", "", 0o644),
		dirNode("recipes/folder.md"),
		fileNode("loose.md", "", 0o644),
	)
	c, err := plugins.ScanDir(root)
	if err != nil {
		t.Fatal(err)
	}
	recipes := filepath.Join(root, "recipes")
	want := []plugins.Item{
		{Name: "Upper", Path: filepath.Join(recipes, "Upper.md")},
		{Name: "deploy", Path: filepath.Join(recipes, "deploy.md")},
		{Name: "ops/db/migrate", Path: filepath.Join(recipes, "ops", "db", "migrate.md")},
		{Name: "ops/deploy", Path: filepath.Join(recipes, "ops", "deploy.md")},
		{Name: "x/skills/y/SKILL", Path: filepath.Join(recipes, "x", "skills", "y", "SKILL.md")},
	}
	if !reflect.DeepEqual(c.Recipes, want) {
		t.Errorf("Recipes =\n%+v\nwant\n%+v", c.Recipes, want)
	}
	if len(c.Skills) != 0 {
		t.Errorf("Skills = %+v, want none (recipes/x/skills/y is not a skill)", c.Skills)
	}
}

// TestScanDirLinkedFolders: a hooks/ or skills/ folder that is a symlink
// to a folder inside the plugin (CheckSymlinks allows it) is read through.
func TestScanDirLinkedFolders(t *testing.T) {
	root := t.TempDir()
	plantTree(t, root,
		fileNode("src/hooks/check", "#!/bin/sh\n", 0o755),
		fileNode("src/skills/review/SKILL.md", "", 0o644),
		linkNode("hooks", "src/hooks"),
		linkNode("skills", "src/skills"),
	)
	c, err := plugins.ScanDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := plugins.Names(c.Hooks); !reflect.DeepEqual(got, []string{"check"}) {
		t.Errorf("hooks = %q, want [check]", got)
	}
	if got := plugins.Names(c.Skills); !reflect.DeepEqual(got, []string{"review"}) {
		t.Errorf("skills = %q, want [review]", got)
	}
}

// A recipes/ folder that is a symlink inside the plugin is read through,
// like linked hooks/ and skills/ folders.
func TestScanDirLinkedRecipes(t *testing.T) {
	root := t.TempDir()
	plantTree(t, root, fileNode("src/recipes/deploy.md", "", 0o644), linkNode("recipes", "src/recipes"))
	c, err := plugins.ScanDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := plugins.Names(c.Recipes); !reflect.DeepEqual(got, []string{"deploy"}) {
		t.Errorf("recipes = %q, want [deploy]", got)
	}
}

func TestScanDirMissingFolders(t *testing.T) {
	tests := []struct {
		name  string
		nodes []treeNode
	}{
		{"empty root", nil},
		{"only other files", []treeNode{fileNode("README.md", "", 0o644), fileNode("plugin.yaml", "name: x\n", 0o644)}},
		{"empty folders", []treeNode{dirNode("hooks"), dirNode("skills"), dirNode("recipes")}},
		{"files where folders should be", []treeNode{fileNode("hooks", "", 0o755), fileNode("skills", "", 0o644), fileNode("recipes", "", 0o644)}},
		{"hidden only", []treeNode{fileNode("hooks/.x", "", 0o755), fileNode("skills/.s/SKILL.md", "", 0o644), fileNode("recipes/.r.md", "", 0o644)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			plantTree(t, root, tc.nodes...)
			c, err := plugins.ScanDir(root)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Hooks)+len(c.Skills)+len(c.Recipes)+len(c.Skipped) != 0 || !c.Empty() {
				t.Errorf("ScanDir = %+v, want nothing", c)
			}
		})
	}
	c, err := plugins.ScanDir(filepath.Join(t.TempDir(), "does-not-exist"))
	if err != nil || !c.Empty() {
		t.Errorf("ScanDir(missing root) = %+v, %v; want empty, nil", c, err)
	}
}

func TestContentsEmpty(t *testing.T) {
	it := []plugins.Item{{Name: "x"}}
	tests := []struct {
		name string
		c    plugins.Contents
		want bool
	}{
		{"zero", plugins.Contents{}, true},
		{"only skipped files", plugins.Contents{Skipped: []plugins.Skipped{{Path: "/x", Reason: "r"}}}, true},
		{"a hook", plugins.Contents{Hooks: it}, false},
		{"a disabled hook", plugins.Contents{Hooks: []plugins.Item{{Name: "x", Disabled: true}}}, false},
		{"a skill", plugins.Contents{Skills: it}, false},
		{"a recipe", plugins.Contents{Recipes: it}, false},
	}
	for _, tc := range tests {
		if got := tc.c.Empty(); got != tc.want {
			t.Errorf("%s: Empty() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestNames(t *testing.T) {
	if got := plugins.Names(nil); got == nil || len(got) != 0 {
		t.Errorf("Names(nil) = %#v, want an empty non-nil slice", got)
	}
	got := plugins.Names([]plugins.Item{{Name: "b"}, {Name: "a"}})
	if !reflect.DeepEqual(got, []string{"b", "a"}) {
		t.Errorf("Names = %q, want [b a] (order kept)", got)
	}
}

// Names with bidi overrides or zero-width characters would display as
// another name (U+202E reverses what follows; U+200B makes "li\u200bnt"
// look like "lint"), so they are skipped like control characters, and a
// recipe or skill with one is not listed (second attack review, B11).
func TestScanDirDeceptiveNames(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"hooks/lint", "hooks/li\u200bnt", "hooks/fmt\u202ehs.kcehc", "hooks/a\u2028b",
		"hooks/lint\u034f", "hooks/lint\u3164", "hooks/l\u0456nt", "hooks/lint\ufe0f"} {
		plantTree(t, root, fileNode(p, "#!/bin/sh\n", 0o755))
	}
	plantTree(t, root, fileNode("recipes/re\u2066view.md", "x", 0o644), fileNode("skills/s\ufeffk/SKILL.md", "x", 0o644))
	c, err := plugins.ScanDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := plugins.Names(c.Hooks); !reflect.DeepEqual(got, []string{"lint"}) {
		t.Errorf("hooks = %q, want only lint", got)
	}
	if len(c.Skipped) != 7 {
		t.Errorf("skipped = %v, want the seven deceptive names", c.Skipped)
	}
	if len(c.Recipes)+len(c.Skills) != 0 {
		t.Errorf("recipes %v, skills %v: want none", c.Recipes, c.Skills)
	}
}
