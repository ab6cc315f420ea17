package plugins

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RootGuard tells whether paths, followed through any symlinks, stay
// inside a root folder: a plugin's folder, or a scope's .quiver folder.
// A repository's symlink to ~/.aws/credentials must not become a recipe,
// nor /bin/sh a hook (SPEC §9). The root is resolved once, on first use,
// and only paths known to cross a link need checking at all.
type RootGuard struct {
	root       string
	resolved   string
	resolveErr error
}

// NewRootGuard returns a guard for root.
func NewRootGuard(root string) *RootGuard { return &RootGuard{root: root} }

// Root is the folder the guard keeps paths in.
func (g *RootGuard) Root() string { return g.root }

// Escape returns why p leaves the root, or "" when it resolves inside.
func (g *RootGuard) Escape(p string) string {
	if g.resolved == "" && g.resolveErr == nil {
		g.resolved, g.resolveErr = filepath.EvalSymlinks(g.root)
	}
	target, err := filepath.EvalSymlinks(p)
	if err != nil || g.resolveErr != nil {
		return fmt.Sprintf("cannot resolve %s: %v", p, errors.Join(err, g.resolveErr))
	}
	if InsideRoot(target, g.resolved) {
		return ""
	}
	shown := target
	if link, err := os.Readlink(p); err == nil {
		shown = link
	}
	return fmt.Sprintf("symlink to %s leaves %s", shown, g.root)
}

// InsideRoot reports whether target lies in root (or is root), as written:
// resolve both first where links matter.
func InsideRoot(target, root string) bool {
	rel, err := filepath.Rel(root, target)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
