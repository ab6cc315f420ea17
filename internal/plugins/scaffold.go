package plugins

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// The files `plugin init` writes; {{NAME}}, {{REPO}} and {{SKILL}} are
// replaced. Files under hooks/ are made executable.
//
//go:embed scaffold
var scaffoldFS embed.FS

// ErrNotEmpty is returned by Scaffold for a folder that already has files.
var ErrNotEmpty = errors.New("folder is not empty")

// Scaffold writes a new plugin repository into dir: plugin.yaml, a
// commented example hook per blocking event, a skill, a recipe and a
// README. A non-empty dir is refused unless force (then existing files of
// the same names are overwritten and others are kept).
func Scaffold(dir string, name Name, force bool) ([]string, error) {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 && !force {
		return nil, fmt.Errorf("%s: %w; use --force to write into it anyway", dir, ErrNotEmpty)
	}
	skill := strings.TrimSuffix(name.Repo(), ".git")
	skill = strings.Trim(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, skill), "-")
	if skill == "" {
		skill = "example"
	}
	repl := strings.NewReplacer("{{NAME}}", name.String(), "{{REPO}}", name.Repo(), "{{SKILL}}", skill)
	var written []string
	err := fs.WalkDir(scaffoldFS, "scaffold", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel := strings.TrimPrefix(p, "scaffold/")
		rel = strings.ReplaceAll(rel, "SKILLNAME", skill)
		data, err := scaffoldFS.ReadFile(p)
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if path.Dir(rel) == "hooks" {
			mode = 0o755
		}
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := WriteFileAtomic(dst, []byte(repl.Replace(string(data))), mode); err != nil {
			return err
		}
		written = append(written, rel)
		return nil
	})
	return written, err
}
