package wiring

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// What quiver keeps for agents in a project that only this machine
// should have (copies of what this user trusted, files that name this
// machine's paths, Claude Code's personal settings) is kept out of git,
// as Claude Code keeps its settings.local.json: in the clone's own
// exclude file (.git/info/exclude), which no commit carries and no
// teammate's quiver sees, so a team's git status stays clean and no
// teammate is handed another's copies (issue 43). quiver keeps one block
// there, rewritten whole from what it keeps now, and removed when it
// keeps nothing.

const (
	excludeStart = "# quiver: what it keeps for agents on this machine only; it rewrites this block itself"
	excludeEnd   = "# quiver: end"
)

// gitExcludeFile is the exclude file of the git work tree at project, ""
// when project is not the top of one: .git/info/exclude, or for a linked
// work tree or a submodule (.git a file naming its git folder) that of
// its common folder.
func gitExcludeFile(project string) string {
	dot := filepath.Join(project, ".git")
	fi, err := os.Lstat(dot)
	if err != nil {
		return ""
	}
	dir := dot
	if !fi.IsDir() {
		data, err := safefs.ReadFile(dot, 4096)
		if err != nil {
			return ""
		}
		line, _, _ := strings.Cut(string(data), "\n")
		g, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir: ")
		if !ok {
			return ""
		}
		if !filepath.IsAbs(g) {
			g = filepath.Join(project, g)
		}
		dir = g
		if c, err := safefs.ReadFile(filepath.Join(g, "commondir"), 4096); err == nil {
			common := strings.TrimSpace(string(c))
			if !filepath.IsAbs(common) {
				common = filepath.Join(g, common)
			}
			dir = common
		}
	}
	return filepath.Join(dir, "info", "exclude")
}

// SyncExcludes makes quiver's block of the project's git exclude file list
// exactly paths (relative to the project), and reports whether it changed
// the file. A project that is no git work tree needs none.
func SyncExcludes(project string, paths []string) (bool, error) {
	file := gitExcludeFile(project)
	if file == "" {
		return false, nil
	}
	data, err := safefs.ReadFileNoFollow(file, 1<<20)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	var kept []string
	lines := strings.SplitAfter(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimRight(lines[i], "\r\n") == excludeStart {
			for i < len(lines) && strings.TrimRight(lines[i], "\r\n") != excludeEnd {
				i++
			}
			continue
		}
		if lines[i] != "" {
			kept = append(kept, lines[i])
		}
	}
	out := strings.Join(kept, "")
	if len(paths) > 0 {
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		block := []string{excludeStart}
		for _, p := range slices.Sorted(slices.Values(paths)) {
			block = append(block, excludePattern(p))
		}
		block = slices.Compact(block)
		out += strings.Join(append(block, excludeEnd), "\n") + "\n"
	}
	if out == string(data) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return false, err
	}
	return true, writeAtomic(file, []byte(out))
}

// excludePattern is path as an exclude line that matches it and only it:
// anchored at the top, git's special characters escaped.
func excludePattern(path string) string {
	var b strings.Builder
	b.WriteByte('/')
	for _, r := range filepath.ToSlash(path) {
		if strings.ContainsRune(`\*?[]!# `, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// writeAtomic writes data to path through a file beside it.
func writeAtomic(path string, data []byte) error {
	tmp := path + ".quiver-tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
