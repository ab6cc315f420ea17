package plugins

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The files `plugin init` writes, per format; {{NAME}}, {{ORG}}, {{REPO}}
// and {{SKILL}} are replaced. Files under hooks/ but hooks.json are made
// executable. A file named F.persistent is the persistent variant of F
// (SPEC §14), written as F instead of it when asked for.
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

// persistentSuffix marks a template's persistent variant.
const persistentSuffix = ".persistent"

// ScaffoldOptions are the choices of `plugin init`.
type ScaffoldOptions struct {
	// Format is FormatNative (also "") or FormatClaude.
	Format string
	// Persistent makes the example hooks persistent ones, answering
	// `serve` as well as `run`; the native format only, since Claude
	// handlers are never persistent.
	Persistent bool
	// Force writes into a folder that already has files (overwriting
	// files of the same names, keeping others).
	Force bool
}

// ErrNotPersistent is returned by Scaffold and Create for a persistent
// Claude-format plugin.
//
//lint:ignore ST1005 Claude Code is a product's name
var ErrNotPersistent = errors.New("Claude Code hooks (hooks.json) are never persistent")

// ErrUnknownFormat is returned by Create for a format that is neither
// FormatNative nor FormatClaude.
var ErrUnknownFormat = errors.New("unknown --format")

// Create is plugin init: it checks o's choices, names the plugin rawName
// (by default local/ and dir's folder name, lowercased) and scaffolds
// dir. It returns the name and the files written, relative to dir. The
// choices' and the name's errors (ErrUnknownFormat, ErrNotPersistent,
// ErrInvalidName) are the caller's mistakes, found before anything is
// written.
func Create(dir, rawName string, o ScaffoldOptions) (Name, []string, error) {
	if o.Format != FormatNative && o.Format != FormatClaude {
		return Name{}, nil, fmt.Errorf("%w %q; want native or claude", ErrUnknownFormat, o.Format)
	}
	if o.Persistent && o.Format == FormatClaude {
		return Name{}, nil, fmt.Errorf("--persistent needs the native format: %w", ErrNotPersistent)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Name{}, nil, err
	}
	if rawName == "" {
		rawName = "local/" + strings.ToLower(filepath.Base(abs))
	}
	name, err := ParseName(rawName)
	if err != nil {
		return Name{}, nil, fmt.Errorf("%w; give the plugin's name with --name org/repo", err)
	}
	written, err := Scaffold(abs, name, o)
	return name, written, err
}

// NextSteps is what to run once dir holds a new plugin of format: validate
// it (running its native hooks; a Claude-format plugin has none, and Claude
// Code's own validator checks it too), then add it, as ./dir when dir is
// relative (a spec without ./ would be read as org/repo).
func NextSteps(dir, format string) string {
	addArg := dir
	if !filepath.IsAbs(dir) {
		addArg = "./" + strings.TrimPrefix(dir, "./")
	}
	if format == FormatClaude {
		return fmt.Sprintf("quiver plugin validate %s && quiver plugin add %s (Claude Code's own check: claude plugin validate --profile directory %s)", dir, addArg, dir)
	}
	return fmt.Sprintf("quiver plugin validate --run %s && quiver plugin add %s", dir, addArg)
}

// Scaffold writes a new plugin repository into dir: plugin.yaml, a
// commented example hook per blocking event, a skill, a recipe and a
// README. A non-empty dir is refused unless o.Force.
func Scaffold(dir string, name Name, o ScaffoldOptions) ([]string, error) {
	root := "scaffold"
	switch o.Format {
	case FormatNative, "":
	case FormatClaude:
		if o.Persistent {
			return nil, ErrNotPersistent
		}
		root = "scaffold-claude"
	default:
		return nil, fmt.Errorf("unknown format %q; want native or claude", o.Format)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 && !o.Force {
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
	repl := strings.NewReplacer("{{NAME}}", name.String(), "{{ORG}}", name.Org(), "{{REPO}}", name.Repo(), "{{SKILL}}", skill,
		"{{YEAR}}", strconv.Itoa(time.Now().Year()))
	var written []string
	err := fs.WalkDir(scaffoldFS, root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel := strings.TrimPrefix(p, root+"/")
		rel = strings.ReplaceAll(rel, "SKILLNAME", skill)
		if o.Persistent {
			if base, ok := strings.CutSuffix(rel, persistentSuffix); ok {
				rel = base
			} else if _, err := fs.Stat(scaffoldFS, p+persistentSuffix); err == nil {
				return nil // its persistent variant is written instead
			}
		} else if strings.HasSuffix(rel, persistentSuffix) {
			return nil
		}
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
	if err == nil && root == "scaffold-claude" {
		// Claude Code's plugin directory wants a square PNG of 512 to
		// 2048 pixels: one drawn for the name, to be replaced.
		var icon bytes.Buffer
		if err = png.Encode(&icon, scaffoldIcon(name)); err == nil {
			err = WriteFileAtomic(filepath.Join(dir, ".claude-plugin", "icon.png"), icon.Bytes(), 0o644)
			written = append(written, ".claude-plugin/icon.png")
		}
	}
	return written, err
}

// scaffoldIcon is a 512-pixel square in a color drawn from the name, with
// a lighter disc in its middle.
func scaffoldIcon(n Name) image.Image {
	const size = 512
	sum := sha256.Sum256([]byte(n.String()))
	bg := color.RGBA{sum[0]/2 + 32, sum[1]/2 + 32, sum[2]/2 + 32, 255}
	fg := color.RGBA{bg.R/2 + 128, bg.G/2 + 128, bg.B/2 + 128, 255}
	img := image.NewPaletted(image.Rect(0, 0, size, size), color.Palette{bg, fg})
	for y := range size {
		for x := range size {
			dx, dy := x-size/2, y-size/2
			if dx*dx+dy*dy < (size*3/10)*(size*3/10) {
				img.SetColorIndex(x, y, 1)
			}
		}
	}
	return img
}
