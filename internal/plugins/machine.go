package plugins

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// MigrateMachine moves what earlier versions kept in a project's .quiver
// folder but belongs to this machine (SPEC §1, §9: plugin data, the agents'
// wiring record) to the project's machine folder under the user's home,
// once: it acts only while that folder does not exist yet, and costs a
// hook run one to four lstat calls. What git
// tracks in the project came with the repository, not from this machine,
// and is left where it is, ignored. Caches are not moved (they are
// rebuilt). notify reports each move.
func MigrateMachine(l Layout, notify func(string)) error {
	if l.Local == nil || l.Local.Machine == "" {
		return nil
	}
	s := *l.Local
	if _, err := os.Lstat(s.Machine); !errors.Is(err, fs.ErrNotExist) {
		return nil // migrated already (or not ours to decide)
	}
	if fi, err := os.Lstat(s.Root); err != nil || !fi.IsDir() {
		// No .quiver, or one that is a link (a repository may commit
		// .quiver as a link to a tracked folder): nothing to move.
		return nil
	}
	old := []string{filepath.Join(s.Root, "data"), filepath.Join(s.Root, "agents.yaml")}
	var present []string
	for _, p := range old {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink == 0 {
			present = append(present, p)
		}
	}
	if len(present) == 0 {
		return nil // nothing to move: the folder is made when first written
	}
	tracked, err := trackedByGit(l.ProjectDir, present)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.Machine, 0o700); err != nil {
		return err
	}
	for _, p := range present {
		switch {
		case tracked[p]:
			notify("left " + p + " in place: git tracks it, so it came with the repository and quiver ignores it")
		case hasLink(p):
			notify("left " + p + " in place: it holds a symlink, which quiver does not carry into your home; quiver ignores it")
		default:
			if err := os.Rename(p, filepath.Join(s.Machine, filepath.Base(p))); err != nil {
				return err
			}
			notify("moved " + p + " to " + s.Machine + " (it belongs to this machine, not to the repository)")
		}
	}
	return nil
}

// hasLink reports whether p is or holds a symlink (or anything but
// folders and regular files): what is moved into the user's home is
// plain data, never a link a repository could aim.
func hasLink(p string) bool {
	found := false
	filepath.WalkDir(p, func(_ string, e fs.DirEntry, err error) error {
		if err != nil || !(e.IsDir() || e.Type().IsRegular()) {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// trackedByGit reports which of paths git tracks (any file under a
// folder counts for the folder), reading the repository's index in the
// git helper (gitwork): running git on a cloned repository would run what
// its .git/config says (core.fsmonitor). A repository whose index cannot
// be read tracks everything, so nothing of it moves; a helper that cannot
// be run is the error, before anything moved.
func trackedByGit(dir string, paths []string) (map[string]bool, error) {
	resp, err := runGit(context.Background(), GitRequest{Op: "tracked", Dir: dir, Paths: paths}, nil)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, p := range resp.Tracked {
		out[p] = true
	}
	return out, nil
}

// TrackedByGit reports which of paths (absolute, under dir) the git
// repository around dir tracks, read from its index by quiver-git
// (trackedByGit): a folder counts when any file under it is tracked.
func TrackedByGit(dir string, paths []string) (map[string]bool, error) {
	return trackedByGit(dir, paths)
}
