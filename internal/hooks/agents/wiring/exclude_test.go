package wiring

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// quiver's block of a clone's exclude file lists what it keeps, escaped
// and anchored, beside the user's own lines, which stay as they were; it
// goes when quiver keeps nothing. A linked work tree's is its common
// folder's.
func TestSyncExcludes(t *testing.T) {
	project := t.TempDir()
	os.MkdirAll(filepath.Join(project, ".git", "info"), 0o755)
	file := filepath.Join(project, ".git", "info", "exclude")
	os.WriteFile(file, []byte("# mine\n*.log\n"), 0o644)
	changed, err := SyncExcludes(project, []string{".claude/skills/deploy", ".cursor/commands/a b#c.md"})
	data, _ := os.ReadFile(file)
	want := "# mine\n*.log\n" + excludeStart + "\n/.claude/skills/deploy\n/.cursor/commands/a\\ b\\#c.md\n" + excludeEnd + "\n"
	if err != nil || !changed || string(data) != want {
		t.Fatalf("first sync (%v, %v):\n%s\nwant\n%s", changed, err, data, want)
	}
	if changed, err := SyncExcludes(project, []string{".cursor/commands/a b#c.md", ".claude/skills/deploy"}); err != nil || changed {
		t.Errorf("the same paths again changed the file (%v)", err)
	}
	if _, err := SyncExcludes(project, nil); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(file); string(data) != "# mine\n*.log\n" {
		t.Errorf("nothing kept: %q", data)
	}

	// A linked work tree: .git is a file naming its git folder, whose
	// commondir leads to the main one.
	main := t.TempDir()
	os.MkdirAll(filepath.Join(main, ".git", "worktrees", "wt"), 0o755)
	os.WriteFile(filepath.Join(main, ".git", "worktrees", "wt", "commondir"), []byte("../..\n"), 0o644)
	wt := t.TempDir()
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(main, ".git", "worktrees", "wt")+"\n"), 0o644)
	if _, err := SyncExcludes(wt, []string{".claude/skills/x"}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(main, ".git", "info", "exclude")); !strings.Contains(string(data), "/.claude/skills/x") {
		t.Errorf("linked work tree: %q", data)
	}
	// No git work tree: nothing to do.
	if changed, err := SyncExcludes(t.TempDir(), []string{"x"}); changed || err != nil {
		t.Errorf("no work tree: %v, %v", changed, err)
	}
}
