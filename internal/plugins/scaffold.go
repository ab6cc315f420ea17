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

// The files `plugin init` writes, per format; {{NAME}}, {{ORG}}, {{REPO}}
// and {{SKILL}} are replaced. Files under hooks/ but hooks.json are made
// executable.
//
//go:embed scaffold scaffold-claude/*
var scaffoldFS embed.FS

// Scaffold formats: quiver's own layout, or Claude Code's (SPEC §11).
const (
	FormatNative = "native"
	FormatClaude = "claude"
)

// ErrNotEmpty is returned by Scaffold for a folder that already has files.
var ErrNotEmpty = errors.New("folder is not empty")

// Scaffold writes a new plugin repository into dir: plugin.yaml, a
// commented example hook per blocking event, a skill, a recipe and a
// README. A non-empty dir is refused unless force (then existing files of
// the same names are overwritten and others are kept).
func Scaffold(dir string, name Name, format string, force bool) ([]string, error) {
	root := "scaffold"
	switch format {
	case FormatNative, "":
	case FormatClaude:
		root = "scaffold-claude"
	default:
		return nil, fmt.Errorf("unknown format %q; want native or claude", format)
	}
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
	repl := strings.NewReplacer("{{NAME}}", name.String(), "{{ORG}}", name.Org(), "{{REPO}}", name.Repo(), "{{SKILL}}", skill)
	var written []string
	err := fs.WalkDir(scaffoldFS, root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel := strings.TrimPrefix(p, root+"/")
		rel = strings.ReplaceAll(rel, "SKILLNAME", skill)
		data, err := scaffoldFS.ReadFile(p)
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if path.Dir(rel) == "hooks" && path.Base(rel) != HooksJSON {
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
