package wiring

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Folders quiver makes for an agent (.claude/skills, .codex/agents,
// .gemini) are its own as much as the files in them: recorded when made,
// removed once empty, so agent remove gives back the tree it found.

// Missing lists the folders of rels (folders relative to base, each with
// its parents) that do not exist now: those that exist after a change
// were made by it (NoteDirs).
func Missing(base string, rels ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, rel := range rels {
		rel = filepath.Clean(filepath.FromSlash(rel))
		if !filepath.IsLocal(rel) {
			continue
		}
		for d := rel; d != "." && !seen[d]; d = filepath.Dir(d) {
			seen[d] = true
			if _, err := os.Lstat(filepath.Join(base, d)); os.IsNotExist(err) {
				out = append(out, filepath.ToSlash(d))
			}
		}
	}
	return out
}

// NoteDirs records the folders of missing (Missing, before a change)
// that are folders now.
func (r *Record) NoteDirs(base string, missing []string) {
	for _, d := range missing {
		if fi, err := os.Lstat(filepath.Join(base, filepath.FromSlash(d))); err == nil && fi.IsDir() && !slices.Contains(r.Dirs, d) {
			r.Dirs = append(r.Dirs, d)
		}
	}
	slices.Sort(r.Dirs)
}

// PruneDirs removes the recorded folders that are empty, deepest first,
// and forgets those that are gone; it reports whether the record
// changed. A recorded path that leaves base, or that runs through a
// symbolic link, is forgotten and never touched.
func (r *Record) PruneDirs(base string) bool {
	if len(r.Dirs) == 0 {
		return false
	}
	dirs := slices.Clone(r.Dirs)
	slices.SortFunc(dirs, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	var kept []string
	for _, d := range dirs {
		rel := filepath.FromSlash(d)
		if !filepath.IsLocal(rel) || SafeParents(base, filepath.Join(rel, "x"), false) != nil {
			continue
		}
		full := filepath.Join(base, rel)
		if fi, err := os.Lstat(full); err != nil || !fi.IsDir() {
			continue
		}
		if empty(full) && os.Remove(full) == nil {
			continue
		}
		kept = append(kept, d)
	}
	slices.Sort(kept)
	changed := !slices.Equal(kept, r.Dirs)
	r.Dirs = kept
	return changed
}

func empty(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	return err == io.EOF
}
