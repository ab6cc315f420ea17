package plugins_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// TestMigrateMachine: an earlier version's .quiver/data and agents.yaml
// move to the project's machine folder once, unless they came with the
// repository (git tracks them, or reaches them through a link), and
// nothing of the repository's git configuration runs to find that out
// (third attack review of contract v3, A1 and A2).
func TestMigrateMachine(t *testing.T) {
	git := func(t *testing.T, dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	setup := func(t *testing.T) (plugins.Layout, string) {
		project := t.TempDir()
		os.MkdirAll(filepath.Join(project, ".quiver", "data", "acme@guard"), 0o755)
		os.WriteFile(filepath.Join(project, ".quiver", "data", "acme@guard", "state"), []byte("x"), 0o644)
		return plugins.NewLayout(project, filepath.Join(t.TempDir(), ".quiver")), project
	}
	moved := func(l plugins.Layout) bool {
		_, err := os.Stat(filepath.Join(l.Local.Machine, "data", "acme@guard", "state"))
		return err == nil
	}
	t.Run("untracked moves", func(t *testing.T) {
		l, _ := setup(t)
		if err := plugins.MigrateMachine(l, func(string) {}); err != nil || !moved(l) {
			t.Fatalf("not moved: %v", err)
		}
	})
	t.Run("tracked stays, and the repository's git config never runs", func(t *testing.T) {
		l, project := setup(t)
		git(t, project, "init", "-q")
		git(t, project, "add", ".quiver")
		git(t, project, "commit", "-qm", "x")
		pwned := filepath.Join(t.TempDir(), "pwned")
		git(t, project, "config", "core.fsmonitor", "touch "+pwned)
		if err := plugins.MigrateMachine(l, func(string) {}); err != nil || moved(l) {
			t.Fatalf("a tracked folder moved: %v", err)
		}
		if _, err := os.Stat(pwned); err == nil {
			t.Fatal("the repository's core.fsmonitor ran")
		}
	})
	t.Run("a .quiver that is a link stays", func(t *testing.T) {
		l, project := setup(t)
		os.Rename(filepath.Join(project, ".quiver"), filepath.Join(project, "q"))
		os.Symlink("q", filepath.Join(project, ".quiver"))
		if err := plugins.MigrateMachine(l, func(string) {}); err != nil || moved(l) {
			t.Fatalf("moved through a link: %v", err)
		}
	})
	t.Run("an unreadable index stays", func(t *testing.T) {
		l, project := setup(t)
		git(t, project, "init", "-q")
		os.WriteFile(filepath.Join(project, ".git", "index"), []byte("garbage"), 0o644)
		if err := plugins.MigrateMachine(l, func(string) {}); err != nil || moved(l) {
			t.Fatalf("moved past a broken index: %v", err)
		}
	})
}
