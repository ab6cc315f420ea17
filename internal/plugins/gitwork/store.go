package gitwork

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// The machine's store (plugins.Store) holds one bare repository per
// source, with every commit fetched from it: a commit already there is
// written out without a request to the host, so a second project, a
// second entry of one marketplace and a second subfolder of one
// repository cost nothing, and a lock whose commits are all here
// installs offline. Nothing read from it is believed: every object
// written out is hashed again (git's own names are the hashes of the
// objects), and the installer checks the lock's content hash after.

// storeWait bounds the wait for another quiver fetching the same source.
var storeWait = 10 * time.Minute

// errDamaged marks a store repository that cannot be read as git wrote
// it (an object whose content does not hash to its name, a pack cut short
// by a kill): it is removed and the commit fetched again.
var errDamaged = errors.New("the machine's store holds a damaged copy")

// storeFetch puts the files of ref at rawURL (only those under sub, at
// dst's top, when sub is set) into dst, through the store repository
// repoDir (dst "": only into the store, a prefetch): from it alone when it holds the commit a full commit ref
// names (fromStore), else after asking the host (one listing, then a
// fetch only of a commit the store lacks). A damaged repository is
// removed and fetched again, once.
func storeFetch(ctx context.Context, c plugins.Credentials, rawURL, shownSource, ref, repoDir, dst, sub string, progress io.Writer) (commit string, kind plugins.RefKind, fromStore bool, err error) {
	// The store and its git folder are the user's alone: a private
	// repository's commits are served only to who fetched them.
	store := filepath.Dir(filepath.Dir(repoDir))
	if err := os.MkdirAll(filepath.Dir(store), 0o755); err != nil {
		return "", "", false, err
	}
	for _, d := range []string{store, filepath.Dir(repoDir)} {
		if err := os.Mkdir(d, 0o700); err != nil && !os.IsExist(err) {
			return "", "", false, err
		}
	}
	unlock, err := plugins.HoldFileMutex(ctx, repoDir+".lock", storeWait, nil)
	if err != nil {
		return "", "", false, err
	}
	defer unlock()
	for try := 0; ; try++ {
		commit, kind, fromStore, err = storeFetchLocked(ctx, c, rawURL, shownSource, ref, repoDir, dst, sub, progress)
		if !errors.Is(err, errDamaged) || try > 0 {
			return commit, kind, fromStore, err
		}
		if dst != "" {
			os.RemoveAll(dst)
		}
		if rerr := os.RemoveAll(repoDir); rerr != nil {
			return "", "", false, fmt.Errorf("%w; removing it failed: %v", err, rerr)
		}
	}
}

func storeFetchLocked(ctx context.Context, c plugins.Credentials, rawURL, shownSource, ref, repoDir, dst, sub string, progress io.Writer) (string, plugins.RefKind, bool, error) {
	shown := plugins.Redact(rawURL)
	repo, err := openStore(repoDir, shownSource)
	if err != nil {
		return "", "", false, err
	}
	var t target
	fromStore := false
	if plugins.IsCommit(ref) && hasCommit(repo, plumbing.NewHash(ref)) {
		t, fromStore = target{kind: plugins.CommitRef, commit: plumbing.NewHash(ref)}, true
	} else {
		var auth transport.AuthMethod
		var fetchURL string
		t, auth, fetchURL, err = resolve(ctx, c, rawURL, ref)
		if err != nil {
			return "", "", false, err
		}
		if t.full || !hasCommit(repo, t.commit) {
			if t.commit, err = fetchInto(ctx, repo, t, auth, fetchURL, shown, progress); err != nil {
				return "", "", false, err
			}
		}
	}
	if err := checkCommit(repo, t.commit, ref); err != nil {
		if fromStore {
			return "", "", false, fmt.Errorf("%w: %v", errDamaged, err)
		}
		return "", "", false, fmt.Errorf("%s: %w", shown, err)
	}
	if err := checkTree(repo, t.commit); err != nil {
		if errors.Is(err, plugins.ErrUnsafeTree) {
			return "", "", false, fmt.Errorf("%s: %w", shown, err)
		}
		return "", "", false, fmt.Errorf("%w: %v", errDamaged, err)
	}
	if dst != "" {
		if err := export(repo, t.commit, sub, dst); err != nil {
			return "", "", false, err
		}
	}
	return t.commit.String(), t.kind, fromStore, nil
}

// fetchInto fetches t into repo (one commit, depth 1, where the server
// allows; everything when it cannot send one commit or the ref is an
// abbreviated commit) and returns the commit it names. The URL is given
// to this fetch alone: a store repository's config names no remote, so
// it never holds a credential.
func fetchInto(ctx context.Context, repo *git.Repository, t target, auth transport.AuthMethod, fetchURL, shown string, progress io.Writer) (plumbing.Hash, error) {
	remote := git.NewRemote(repo.Storer, &config.RemoteConfig{Name: "origin", URLs: []string{fetchURL}})
	opts := &git.FetchOptions{RemoteName: "origin", Auth: auth, Progress: progress, Tags: git.NoTags, Depth: 1}
	if !t.full {
		opts.RefSpecs = []config.RefSpec{t.refspec}
		err := remote.FetchContext(ctx, opts)
		switch {
		case err == nil, errors.Is(err, git.NoErrAlreadyUpToDate):
			return t.commit, nil
		case errors.Is(err, git.ErrExactSHA1NotSupported):
			t.full, t.prefix = true, t.commit.String()
		case t.kind == plugins.CommitRef && strings.Contains(err.Error(), "not our ref"):
			return plumbing.ZeroHash, fmt.Errorf("%s: %w: commit %s is not available any more (deleted branch or rewritten history?)", shown, plugins.ErrRefNotFound, t.commit)
		default:
			return plumbing.ZeroHash, gitError(shown, err)
		}
	}
	opts.Depth, opts.Tags = 0, git.AllTags
	opts.RefSpecs = []config.RefSpec{"+refs/heads/*:refs/remotes/origin/*"}
	if err := remote.FetchContext(ctx, opts); err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return plumbing.ZeroHash, gitError(shown, err)
	}
	h, err := resolvePrefix(repo, t.prefix)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("%s: %w", shown, err)
	}
	return h, nil
}

// openStore opens the store repository at dir, making it (in a staging
// folder renamed into place, so a kill leaves none half made) when it is
// not there; one that does not open is made again. Its source file names
// the source it holds, for quiver cache.
func openStore(dir, source string) (*git.Repository, error) {
	if repo, err := git.PlainOpen(dir); err == nil {
		cleanTemp(dir)
		return repo, nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, err
	}
	stage := dir + ".new"
	os.RemoveAll(stage)
	if _, err := git.PlainInit(stage, true); err != nil {
		os.RemoveAll(stage)
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(stage, plugins.StoreSourceFile), []byte(source+"\n"), 0o600); err != nil {
		os.RemoveAll(stage)
		return nil, err
	}
	if err := os.Rename(stage, dir); err != nil {
		os.RemoveAll(stage)
		return nil, err
	}
	return git.PlainOpen(dir)
}

// cleanTemp removes what a fetch killed midway left in the repository's
// pack folder (its temporary files); the caller holds the store's lock.
func cleanTemp(dir string) {
	pack := filepath.Join(dir, "objects", "pack")
	entries, _ := os.ReadDir(pack)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "tmp_") {
			os.Remove(filepath.Join(pack, e.Name()))
		}
	}
}

// hasCommit reports whether the store holds commit h, its content
// hashing to its name.
func hasCommit(repo *git.Repository, h plumbing.Hash) bool {
	obj, err := repo.Storer.EncodedObject(plumbing.CommitObject, h)
	return err == nil && verified(obj, h) == nil
}

// verified checks that obj's content hashes to h.
func verified(obj plumbing.EncodedObject, h plumbing.Hash) error {
	r, err := obj.Reader()
	if err != nil {
		return fmt.Errorf("%w: %s: %v", errDamaged, h, err)
	}
	defer r.Close()
	hs := plumbing.NewHasher(obj.Type(), obj.Size())
	if _, err := io.Copy(hs, r); err != nil {
		return fmt.Errorf("%w: %s: %v", errDamaged, h, err)
	}
	if got := hs.Sum(); got != h {
		return fmt.Errorf("%w: object %s hashes to %s", errDamaged, h, got)
	}
	return nil
}

// export writes the files of commit's tree (only sub's, at dst's top,
// when sub is set) into dst, which must not exist: every object read is
// hashed again, every name checked as git checks it.
func export(repo *git.Repository, commit plumbing.Hash, sub, dst string) error {
	cobj, err := repo.Storer.EncodedObject(plumbing.CommitObject, commit)
	if err != nil {
		return fmt.Errorf("%w: %v", errDamaged, err)
	}
	if err := verified(cobj, commit); err != nil {
		return err
	}
	c, err := object.DecodeCommit(repo.Storer, cobj)
	if err != nil {
		return fmt.Errorf("%w: %v", errDamaged, err)
	}
	tree := c.TreeHash
	if sub != "" {
		if tree, err = subTree(repo, tree, sub); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		return err
	}
	return writeTree(repo, tree, dst)
}

// subTree finds folder sub in tree, each step verified; a step that is
// missing, or is not a folder, is named.
func subTree(repo *git.Repository, tree plumbing.Hash, sub string) (plumbing.Hash, error) {
	for _, seg := range strings.Split(sub, "/") {
		t, err := readTree(repo, tree)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		var found *object.TreeEntry
		for i := range t.Entries {
			if t.Entries[i].Name == seg {
				found = &t.Entries[i]
				break
			}
		}
		switch {
		case found == nil:
			return plumbing.ZeroHash, fmt.Errorf("%w %s in the repository", plugins.ErrNoSuchFolder, sub)
		case found.Mode == filemode.Dir:
			tree = found.Hash
		case found.Mode == filemode.Symlink:
			return plumbing.ZeroHash, fmt.Errorf("%w: %s is a symlink, not a folder", plugins.ErrUnsafeTree, sub)
		case found.Mode == filemode.Submodule:
			return plumbing.ZeroHash, fmt.Errorf("%s is a submodule, which quiver does not fetch, not a folder", sub)
		default:
			return plumbing.ZeroHash, fmt.Errorf("%s is a regular file, not a folder", sub)
		}
	}
	return tree, nil
}

func readTree(repo *git.Repository, h plumbing.Hash) (*object.Tree, error) {
	obj, err := repo.Storer.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, fmt.Errorf("%w: tree %s: %v", errDamaged, h, err)
	}
	if err := verified(obj, h); err != nil {
		return nil, err
	}
	t, err := object.DecodeTree(repo.Storer, obj)
	if err != nil {
		return nil, fmt.Errorf("%w: tree %s: %v", errDamaged, h, err)
	}
	return t, nil
}

// safeName reports a tree entry name git itself would check out: one
// path element, never . or .., nor .git in any case.
func safeName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\\\x00") && !strings.EqualFold(name, ".git")
}

// writeTree writes tree h into the existing folder dir.
func writeTree(repo *git.Repository, h plumbing.Hash, dir string) error {
	t, err := readTree(repo, h)
	if err != nil {
		return err
	}
	for _, e := range t.Entries {
		if !safeName(e.Name) {
			return fmt.Errorf("%w: the tree names %q, which git does not check out", plugins.ErrUnsafeTree, e.Name)
		}
		p := filepath.Join(dir, e.Name)
		switch e.Mode {
		case filemode.Dir:
			if err := os.Mkdir(p, 0o755); err != nil {
				return err
			}
			if err := writeTree(repo, e.Hash, p); err != nil {
				return err
			}
		case filemode.Regular, filemode.Deprecated, filemode.Executable:
			mode := os.FileMode(0o644)
			if e.Mode == filemode.Executable {
				mode = 0o755
			}
			if err := writeBlob(repo, e.Hash, p, mode); err != nil {
				return err
			}
		case filemode.Symlink:
			target, err := readBlob(repo, e.Hash)
			if err != nil {
				return err
			}
			if err := os.Symlink(string(target), p); err != nil {
				return err
			}
		case filemode.Submodule:
			// A submodule is a commit of another repository, which
			// quiver does not fetch: git leaves an empty folder.
			if err := os.Mkdir(p, 0o755); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%w: %s has mode %s", plugins.ErrUnsafeTree, path.Join(dir, e.Name), e.Mode)
		}
	}
	return nil
}

// writeBlob writes blob h at p, hashing it as it goes: a blob whose
// content is not its name leaves the file and fails the export.
func writeBlob(repo *git.Repository, h plumbing.Hash, p string, mode os.FileMode) error {
	obj, err := repo.Storer.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return fmt.Errorf("%w: blob %s: %v", errDamaged, h, err)
	}
	r, err := obj.Reader()
	if err != nil {
		return fmt.Errorf("%w: blob %s: %v", errDamaged, h, err)
	}
	defer r.Close()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	hs := plumbing.NewHasher(plumbing.BlobObject, obj.Size())
	_, err = io.Copy(io.MultiWriter(f, hs), io.LimitReader(r, plugins.MaxPluginFile+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%w: blob %s: %v", errDamaged, h, err)
	}
	if got := hs.Sum(); got != h {
		return fmt.Errorf("%w: blob %s hashes to %s", errDamaged, h, got)
	}
	return nil
}

// readBlob reads a small blob (a symlink's target), verified.
func readBlob(repo *git.Repository, h plumbing.Hash) ([]byte, error) {
	obj, err := repo.Storer.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, fmt.Errorf("%w: blob %s: %v", errDamaged, h, err)
	}
	if obj.Size() > 4096 {
		return nil, fmt.Errorf("%w: a symlink's target of %d bytes", plugins.ErrUnsafeTree, obj.Size())
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("%w: blob %s: %v", errDamaged, h, err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%w: blob %s: %v", errDamaged, h, err)
	}
	if got := plumbing.ComputeHash(plumbing.BlobObject, data); got != h {
		return nil, fmt.Errorf("%w: blob %s hashes to %s", errDamaged, h, got)
	}
	return data, nil
}

// storedDigest is digest for commit's folder sub in the store
// repository repoDir: the files the lock's hash was taken of, for
// plugin verify to name what changed in a folder that has no .git.
func storedDigest(ctx context.Context, repoDir, commit, sub string) (map[string]string, error) {
	unlock, err := plugins.HoldFileMutex(ctx, repoDir+".lock", storeWait, nil)
	if err != nil {
		return nil, err
	}
	defer unlock()
	repo, err := git.PlainOpen(repoDir)
	if err != nil {
		return nil, err
	}
	if !plugins.IsCommit(commit) {
		return nil, fmt.Errorf("%w: %q is not a full commit", plugins.ErrRefNotFound, commit)
	}
	return treeDigest(repo, plumbing.NewHash(commit), sub)
}
