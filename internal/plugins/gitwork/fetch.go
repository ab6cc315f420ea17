package gitwork

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// Limits on a path in a plugin's tree.
const (
	maxPathLen = 1024
	maxNameLen = 255
)

// isHexPrefix reports an abbreviated or full commit SHA: 7 to 40
// lowercase hex digits.
func isHexPrefix(s string) bool {
	return len(s) >= 7 && len(s) <= 40 && strings.Trim(s, "0123456789abcdef") == ""
}

// authFor returns the transport auth and the URL to record and fetch from
// (without any password).
func authFor(c plugins.Credentials, rawURL string) (transport.AuthMethod, string, error) {
	ep, err := transport.NewEndpoint(rawURL)
	if err != nil {
		return nil, "", fmt.Errorf("%w %q: %v", plugins.ErrInvalidSpec, plugins.Redact(rawURL), err)
	}
	switch ep.Protocol {
	case "http", "https":
		clean := plugins.Redact(rawURL)
		if ep.User != "" || ep.Password != "" {
			return &githttp.BasicAuth{Username: ep.User, Password: ep.Password}, clean, nil
		}
		if c.Token != "" && sendsTokenTo(c, ep) {
			return &githttp.BasicAuth{Username: "x-access-token", Password: c.Token}, clean, nil
		}
		return nil, clean, nil
	case "ssh":
		// Keys or the agent, never a password: the URL that go-git
		// writes to the plugin's .git/config keeps only the user name.
		return sshAuth(ep.User), plugins.Redact(rawURL), nil
	}
	return nil, rawURL, nil
}

func sendsTokenTo(c plugins.Credentials, ep *transport.Endpoint) bool {
	base := c.Base
	if base == "" {
		base = plugins.DefaultGitBase
	}
	b, err := url.Parse(base)
	if err != nil {
		return false
	}
	port := b.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[b.Scheme]
	}
	epPort := fmt.Sprint(ep.Port)
	if ep.Port == 0 {
		epPort = map[string]string{"https": "443", "http": "80"}[ep.Protocol]
	}
	return strings.EqualFold(b.Scheme, ep.Protocol) && strings.EqualFold(b.Hostname(), ep.Host) && port == epPort
}

// sshAuth uses the SSH agent when there is one, else the first key in
// ~/.ssh that needs no passphrase; nil lets go-git report the failure.
func sshAuth(user string) transport.AuthMethod {
	if user == "" {
		user = "git"
	}
	if os.Getenv("SSH_AUTH_SOCK") != "" {
		if a, err := gitssh.NewSSHAgentAuth(user); err == nil {
			return a
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil
	}
	for _, k := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
		if a, err := gitssh.NewPublicKeysFromFile(user, filepath.Join(home, ".ssh", k), ""); err == nil {
			return a
		}
	}
	return nil
}

// target is what to fetch for a requested ref.
type target struct {
	kind    plugins.RefKind
	refspec config.RefSpec // what to fetch, depth 1
	commit  plumbing.Hash  // the commit to check out
	branch  plumbing.ReferenceName
	full    bool   // fetch everything and resolve prefix locally
	prefix  string // abbreviated SHA to resolve after a full fetch
}

// resolve lists the remote's refs (one cheap request, no clone) and picks
// the target for ref.
func resolve(ctx context.Context, c plugins.Credentials, rawURL, ref string) (target, transport.AuthMethod, string, error) {
	installTransport()
	auth, fetchURL, err := authFor(c, rawURL)
	if err != nil {
		return target{}, nil, "", err
	}
	shown := plugins.Redact(rawURL)
	remote := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{fetchURL}})
	refs, err := remote.ListContext(ctx, &git.ListOptions{Auth: auth, PeelingOption: git.AppendPeeled})
	if err != nil {
		return target{}, nil, "", gitError(shown, err)
	}
	t, err := chooseTarget(refs, ref)
	if err != nil {
		return target{}, nil, "", fmt.Errorf("%s: %w", shown, err)
	}
	return t, auth, fetchURL, nil
}

// fetch clones rawURL at ref into dst (which must not exist) and returns
// the commit checked out: the commit's tree is checked (checkTree) before
// anything is written, and only the files under sparse are written when
// it is set.
func fetch(ctx context.Context, c plugins.Credentials, rawURL, ref, dst, sparse string, progress io.Writer) (string, plugins.RefKind, error) {
	shown := plugins.Redact(rawURL)
	t, auth, fetchURL, err := resolve(ctx, c, rawURL, ref)
	if err != nil {
		return "", "", err
	}

	repo, err := git.PlainInit(dst, false)
	if err != nil {
		return "", "", err
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{fetchURL}}); err != nil {
		return "", "", err
	}
	if t.commit, err = fetchInto(ctx, repo, t, auth, fetchURL, shown, progress); err != nil {
		return "", "", err
	}
	if err := checkCommit(repo, t.commit, ref); err != nil {
		return "", "", fmt.Errorf("%s: %w", shown, err)
	}
	if err := checkTree(repo, t.commit); err != nil {
		return "", "", fmt.Errorf("%s: %w", shown, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return "", "", err
	}
	co := &git.CheckoutOptions{Hash: t.commit, Force: true}
	if t.branch != "" {
		co = &git.CheckoutOptions{Branch: t.branch, Force: true}
	}
	if sparse != "" {
		// go-git keeps index entries whose path starts with the
		// pattern: the trailing / keeps plugins/x from matching
		// plugins/xy.
		co.SparseCheckoutDirectories = []string{sparse}
	}
	if err := wt.Checkout(co); err != nil {
		// Name repository paths, not the staging folder they were going to.
		msg := strings.ReplaceAll(err.Error(), dst+string(filepath.Separator), "")
		return "", "", fmt.Errorf("check out %s: %s", t.commit, msg)
	}
	return t.commit.String(), t.kind, nil
}

// chooseTarget maps a requested ref onto the advertised refs: no ref is the
// default branch; then a branch, then a tag (locking the commit an annotated
// tag points to), then a full or abbreviated commit SHA (SPEC §5).
func chooseTarget(refs []*plumbing.Reference, ref string) (target, error) {
	byName := map[plumbing.ReferenceName]*plumbing.Reference{}
	for _, r := range refs {
		byName[r.Name()] = r
	}
	// commitOf peels annotated tags: their "^{}" entry is the commit.
	commitOf := func(r *plumbing.Reference) plumbing.Hash {
		if p, ok := byName[plumbing.ReferenceName(r.Name().String()+"^{}")]; ok {
			return p.Hash()
		}
		return r.Hash()
	}
	branch := func(name plumbing.ReferenceName) target {
		r := byName[name]
		return target{
			kind:    plugins.BranchRef,
			refspec: config.RefSpec("+" + name.String() + ":" + name.String()),
			commit:  r.Hash(), branch: name,
		}
	}
	if ref == "" {
		head, ok := byName[plumbing.HEAD]
		if !ok {
			var branches []string
			for _, r := range refs {
				if r.Name().IsBranch() {
					branches = append(branches, r.Name().Short())
				}
			}
			if len(branches) == 0 {
				return target{}, plugins.ErrEmptyRepo
			}
			sort.Strings(branches)
			return target{}, fmt.Errorf("%w: the remote's HEAD names no existing branch, so it has no default branch; give a ref (branches: %s)", plugins.ErrRefNotFound, plugins.ChangedList(branches))
		}
		if head.Type() == plumbing.SymbolicReference {
			if _, ok := byName[head.Target()]; ok {
				return branch(head.Target()), nil
			}
		}
		// No symref advertised: the branch HEAD points at, main first.
		for _, cand := range []string{"main", "master"} {
			n := plumbing.NewBranchReferenceName(cand)
			if r, ok := byName[n]; ok && r.Hash() == head.Hash() {
				return branch(n), nil
			}
		}
		for _, r := range refs {
			if r.Name().IsBranch() && r.Hash() == head.Hash() {
				return branch(r.Name()), nil
			}
		}
		return target{}, fmt.Errorf("%w: cannot tell the default branch; give a ref", plugins.ErrRefNotFound)
	}
	// A full commit SHA is that commit, as git reads 40 hex digits,
	// whatever a branch or tag of that name holds: a repository can name
	// a branch like a commit and move it, and a pin must not follow it.
	if _, ok := byName[plumbing.NewBranchReferenceName(ref)]; ok && !plugins.IsCommit(ref) {
		return branch(plumbing.NewBranchReferenceName(ref)), nil
	}
	if r, ok := byName[plumbing.NewTagReferenceName(ref)]; ok && !plugins.IsCommit(ref) {
		return target{kind: plugins.TagRef, refspec: config.RefSpec("+" + r.Name().String() + ":" + r.Name().String()), commit: commitOf(r)}, nil
	}
	if isHexPrefix(ref) {
		// A ref that points at the commit can be fetched from any server.
		var found []*plumbing.Reference
		for _, r := range refs {
			if strings.HasSuffix(r.Name().String(), "^{}") || r.Name() == plumbing.HEAD {
				continue
			}
			if c := commitOf(r); strings.HasPrefix(c.String(), ref) {
				found = append(found, r)
			}
		}
		if len(found) > 0 {
			c := commitOf(found[0])
			for _, r := range found[1:] {
				if commitOf(r) != c {
					return target{}, fmt.Errorf("%w: commit %s is ambiguous; give more digits", plugins.ErrRefNotFound, ref)
				}
			}
			return target{kind: plugins.CommitRef, refspec: config.RefSpec("+" + found[0].Name().String() + ":" + found[0].Name().String()), commit: c}, nil
		}
		if len(ref) == 40 {
			h := plumbing.NewHash(ref)
			return target{kind: plugins.CommitRef, refspec: config.RefSpec(ref + ":refs/heads/quiver-pinned"), commit: h}, nil
		}
		return target{kind: plugins.CommitRef, full: true, prefix: ref}, nil
	}
	return target{}, fmt.Errorf("%w: no branch, tag or commit %q", plugins.ErrRefNotFound, ref)
}

// checkTree inspects the commit's files before anything is written: paths
// with control characters, paths that run through a symlink (a crafted tree
// can hold "hooks" as both), over-long paths and oversized files are
// refused with the repository path named.
func checkTree(repo *git.Repository, commit plumbing.Hash) error {
	c, err := repo.CommitObject(commit)
	if err != nil {
		return err
	}
	tree, err := c.Tree()
	if err != nil {
		return err
	}
	links := map[string]bool{}
	var files []*object.File
	var total int64
	// The limits are checked while walking: a tree that fans out (one
	// tree object naming itself 16 times per level) names millions of
	// files from a few KiB, so counting after the walk bounds nothing.
	tooMany := fmt.Errorf("%w: more than %d files; a plugin may have at most that", plugins.ErrUnsafeTree, plugins.MaxPluginFiles)
	tooBig := fmt.Errorf("%w: its files add up to more than %d MiB", plugins.ErrUnsafeTree, plugins.MaxPluginTotal>>20)
	err = tree.Files().ForEach(func(f *object.File) error {
		if f.Mode == filemode.Symlink {
			links[f.Name] = true
		}
		if files = append(files, f); len(files) > plugins.MaxPluginFiles {
			return tooMany
		}
		if total += f.Size; total > plugins.MaxPluginTotal {
			return tooBig
		}
		return nil
	})
	if errors.Is(err, plugins.ErrUnsafeTree) {
		return err
	}
	if err != nil {
		// go-git refuses names with control characters while walking.
		return fmt.Errorf("%w: %v", plugins.ErrUnsafeTree, err)
	}
	for _, f := range files {
		name := f.Name
		for _, r := range name {
			if r < 0x20 || r == 0x7f {
				return fmt.Errorf("%w: path %q contains a control character", plugins.ErrUnsafeTree, name)
			}
		}
		if len(name) > maxPathLen {
			return fmt.Errorf("%w: path %.80q... is %d bytes long (at most %d)", plugins.ErrUnsafeTree, name, len(name), maxPathLen)
		}
		for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
			if links[dir] {
				return fmt.Errorf("%w: path %q lies inside %q, which is a symlink", plugins.ErrUnsafeTree, name, dir)
			}
			if len(path.Base(dir)) > maxNameLen {
				return fmt.Errorf("%w: a folder name in %.80q... is longer than %d bytes", plugins.ErrUnsafeTree, name, maxNameLen)
			}
		}
		if f.Size > plugins.MaxPluginFile {
			return fmt.Errorf("%w: %s is %d MiB; plugin files may be at most %d MiB", plugins.ErrUnsafeTree, name, f.Size>>20, plugins.MaxPluginFile>>20)
		}
	}
	return nil
}

// checkCommit makes sure the object to check out is a commit, so that a tag
// pointing at a tree or a blob is named for what it is rather than "object
// not found".
func checkCommit(repo *git.Repository, h plumbing.Hash, ref string) error {
	obj, err := repo.Storer.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return fmt.Errorf("%w: %s (%s) was not sent by the server", plugins.ErrRefNotFound, h, refOrDefault(ref))
	}
	if obj.Type() != plumbing.CommitObject {
		return fmt.Errorf("%w: %s points at a %s (%s), %s", plugins.ErrRefNotFound, refOrDefault(ref), obj.Type(), h, plugins.ErrNotACommit)
	}
	return nil
}

func refOrDefault(ref string) string {
	if ref == "" {
		return "the default branch"
	}
	return ref
}

// resolvePrefix finds the one commit whose hash starts with prefix.
func resolvePrefix(repo *git.Repository, prefix string) (plumbing.Hash, error) {
	if len(prefix) == 40 {
		if _, err := repo.CommitObject(plumbing.NewHash(prefix)); err != nil {
			return plumbing.ZeroHash, fmt.Errorf("%w: no commit %s", plugins.ErrRefNotFound, prefix)
		}
		return plumbing.NewHash(prefix), nil
	}
	iter, err := repo.CommitObjects()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer iter.Close()
	var found []plumbing.Hash
	for {
		c, err := iter.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if strings.HasPrefix(c.Hash.String(), prefix) {
			found = append(found, c.Hash)
		}
	}
	switch len(found) {
	case 0:
		return plumbing.ZeroHash, fmt.Errorf("%w: no branch, tag or commit %q", plugins.ErrRefNotFound, prefix)
	case 1:
		return found[0], nil
	}
	return plumbing.ZeroHash, fmt.Errorf("%w: commit %s is ambiguous; give more digits", plugins.ErrRefNotFound, prefix)
}

// gitError turns go-git's transport errors into ones that say what to do.
func gitError(shownURL string, err error) error {
	switch {
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return fmt.Errorf("%w at %s", plugins.ErrRepoNotFound, shownURL)
	case errors.Is(err, transport.ErrAuthenticationRequired):
		return fmt.Errorf("%w by %s: the repository does not exist or is private; check its name, or set QUIVER_GIT_TOKEN (or GITHUB_TOKEN) to read a private one", plugins.ErrAuthRequired, shownURL)
	case errors.Is(err, transport.ErrAuthorizationFailed):
		return fmt.Errorf("%w by %s; check that the token can read the repository", plugins.ErrAuthFailed, shownURL)
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		return fmt.Errorf("%w: %s has no commits", plugins.ErrEmptyRepo, shownURL)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("fetch %s: %w", shownURL, err)
	}
	if why := networkTrouble(shownURL, err); why != "" {
		return unreachable(why + "; check the network and the source, then run the command again")
	}
	return fmt.Errorf("fetch %s: %s", shownURL, plugins.Redact(err.Error()))
}

// notAFolder says what sub is in the commit checked out in repo when it
// is there but not a folder; nil otherwise.
func notAFolder(repo, sub string) error {
	r, err := git.PlainOpen(repo)
	if err != nil {
		return nil
	}
	head, err := r.Head()
	if err != nil {
		return nil
	}
	c, err := r.CommitObject(head.Hash())
	if err != nil {
		return nil
	}
	tree, err := c.Tree()
	if err != nil {
		return nil
	}
	e, err := tree.FindEntry(sub)
	switch {
	case err != nil || e.Mode == filemode.Dir:
		return nil
	case e.Mode == filemode.Symlink:
		return fmt.Errorf("%w: %s is a symlink, not a folder", plugins.ErrUnsafeTree, sub)
	case e.Mode == filemode.Submodule:
		return fmt.Errorf("%s is a submodule, which quiver does not fetch, not a folder", sub)
	}
	return fmt.Errorf("%s is a regular file, not a folder", sub)
}
