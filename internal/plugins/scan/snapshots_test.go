package scan

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/quiver-cli/quiver/internal/testkit"
)

// TestNoFalsePositives scans plugins nobody here wrote and the bundled
// examples: none may hold a critical finding (issue 29: no false positive
// on the bundled examples, anthropics/skills, obra/superpowers or the
// official marketplace's plugins). Warnings are logged, with how many
// files were read. The snapshots are bare repositories in
// QUIVER_TEST_SNAPSHOTS laid out as fetch leaves them
// (<owner>+<name>/repo); each one absent is skipped.
func TestNoFalsePositives(t *testing.T) {
	trees := map[string]string{
		"testdata/plugins":     filepath.Join("..", "..", "..", "testdata", "plugins"),
		"testdata/marketplace": filepath.Join("..", "..", "..", "testdata", "marketplace"),
	}
	if snaps := os.Getenv("QUIVER_TEST_SNAPSHOTS"); snaps != "" {
		for _, repo := range []string{"anthropics+claude-plugins-official", "obra+superpowers", "anthropics+skills"} {
			bare := filepath.Join(snaps, repo, "repo")
			if _, err := os.Stat(bare); err != nil {
				t.Logf("snapshot %s is missing: not scanned", bare)
				continue
			}
			trees[repo] = testkit.ExportHEAD(t, bare)
		}
	} else {
		t.Log("QUIVER_TEST_SNAPSHOTS is not set: only the bundled examples are scanned")
	}
	for name, dir := range trees {
		t.Run(name, func(t *testing.T) {
			rep, err := Dir(dir, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d plugin folder(s), %d text file(s) scanned, %d binary skipped, %d finding(s)",
				name, pluginFolders(t, dir), rep.Files, rep.Binary, len(rep.Findings))
			for _, f := range rep.Findings {
				if f.Severity == Critical {
					t.Errorf("critical: %s", f)
				} else {
					t.Logf("warning: %s", f)
				}
			}
		})
	}
}

// pluginFolders counts the folders under dir that are plugins (a
// .claude-plugin/plugin.json or a plugin.yaml), for the log.
func pluginFolders(t *testing.T, dir string) int {
	n := 0
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.Name() == "plugin.yaml" || (e.Name() == "plugin.json" && filepath.Base(filepath.Dir(p)) == ".claude-plugin") {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
