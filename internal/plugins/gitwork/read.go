package gitwork

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// digest computes the per-file lines of plugins.HashDir for the files of
// the commit checked out in dir, straight from the git objects (the
// caller has checked that dir/.git holds only folders and regular files).
func digest(dir string) (map[string]string, error) {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return nil, err
	}
	head, err := repo.Head()
	if err != nil {
		return nil, err
	}
	return treeDigest(repo, head.Hash(), "")
}

// treeDigest is digest for the files of commit's folder sub ("" for all).
func treeDigest(repo *git.Repository, commit plumbing.Hash, sub string) (map[string]string, error) {
	c, err := repo.CommitObject(commit)
	if err != nil {
		return nil, err
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, err
	}
	if sub != "" {
		if tree, err = tree.Tree(sub); err != nil {
			return nil, err
		}
	}
	files := map[string]string{}
	err = tree.Files().ForEach(func(f *object.File) error {
		r, err := f.Reader()
		if err != nil {
			return err
		}
		defer r.Close()
		h := sha256.New()
		if _, err := io.Copy(h, r); err != nil {
			return err
		}
		sum := hex.EncodeToString(h.Sum(nil))
		switch f.Mode {
		case filemode.Executable:
			files[f.Name] = "x\x00" + sum
		case filemode.Symlink:
			files[f.Name] = "l\x00" + sum // the blob is the target string
		case filemode.Regular, filemode.Deprecated:
			files[f.Name] = "-\x00" + sum
		}
		return nil
	})
	return files, err
}

// tracked lists which of paths git tracks (any file under a
// folder counts for the folder), reading the repository's index with
// go-git: running git on a cloned repository would run what its
// .git/config says (core.fsmonitor). A repository whose index cannot be
// read tracks everything, so nothing of it moves.
func tracked(dir string, paths []string) []string {
	isTracked := trackedSet(dir, paths)
	var list []string
	for _, p := range paths {
		if isTracked[p] {
			list = append(list, p)
		}
	}
	return list
}

func trackedSet(dir string, paths []string) map[string]bool {
	out := map[string]bool{}
	all := func() map[string]bool {
		for _, p := range paths {
			out[p] = true
		}
		return out
	}
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return out // not in a work tree: nothing is tracked
	}
	if err != nil {
		return all()
	}
	wt, err := repo.Worktree()
	if err != nil {
		return all()
	}
	idx, err := repo.Storer.Index()
	if err != nil {
		return all()
	}
	root, err := filepath.EvalSymlinks(wt.Filesystem.Root())
	if err != nil {
		return all()
	}
	for _, p := range paths {
		real, err := filepath.EvalSymlinks(filepath.Dir(p))
		if err != nil {
			out[p] = true
			continue
		}
		rel, err := filepath.Rel(root, filepath.Join(real, filepath.Base(p)))
		if err != nil || strings.HasPrefix(rel, "..") {
			out[p] = true
			continue
		}
		rel = strings.ToLower(filepath.ToSlash(rel))
		for _, e := range idx.Entries {
			name := strings.ToLower(e.Name) // case-insensitive file systems
			if name == rel || strings.HasPrefix(name, rel+"/") {
				out[p] = true
				break
			}
		}
	}
	return out
}
