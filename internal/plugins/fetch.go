package plugins

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
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

	"github.com/quiver-cli/quiver/internal/safefs"
)

// Errors a fetch can end with, for callers that want to tell them apart.
var (
	ErrRepoNotFound = errors.New("repository not found")
	ErrAuthRequired = errors.New("authentication required")
	ErrAuthFailed   = errors.New("access denied")
	ErrRefNotFound  = errors.New("ref not found")
	ErrEmptyRepo    = errors.New("repository is empty")
	ErrNoSuchFolder = errors.New("no folder")
)

// Credentials decides what HTTP auth goes with a URL (SPEC §5): the token is
// sent only to the scheme, host and port of the git base, so typing another
// host's URL can never leak it. Credentials written in the URL itself (a
// user and password, or a token as the user) are used for that URL only
// and never stored: the URL fetched from, and so the plugin's .git/config,
// carries none.
type Credentials struct {
	// Token is QUIVER_GIT_TOKEN, else GITHUB_TOKEN.
	Token string
	// Base is QUIVER_GIT_BASE (empty means DefaultGitBase).
	Base string
}

// auth returns the transport auth and the URL to record and fetch from
// (without any password).
func (c Credentials) auth(rawURL string) (transport.AuthMethod, string, error) {
	ep, err := transport.NewEndpoint(rawURL)
	if err != nil {
		return nil, "", fmt.Errorf("%w %q: %v", ErrInvalidSpec, Redact(rawURL), err)
	}
	switch ep.Protocol {
	case "http", "https":
		clean := Redact(rawURL)
		if ep.User != "" || ep.Password != "" {
			return &githttp.BasicAuth{Username: ep.User, Password: ep.Password}, clean, nil
		}
		if c.Token != "" && c.sendsTokenTo(ep) {
			return &githttp.BasicAuth{Username: "x-access-token", Password: c.Token}, clean, nil
		}
		return nil, clean, nil
	case "ssh":
		// Keys or the agent, never a password: the URL that go-git
		// writes to the plugin's .git/config keeps only the user name.
		return sshAuth(ep.User), Redact(rawURL), nil
	}
	return nil, rawURL, nil
}

func (c Credentials) sendsTokenTo(ep *transport.Endpoint) bool {
	base := c.Base
	if base == "" {
		base = DefaultGitBase
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

// Fetched describes what a fetch put into the staging folder.
type Fetched struct {
	// Commit is the 40-hex commit checked out; empty for plain folders
	// and links.
	Commit string
	// Link reports a --link install: the staging entry is a symlink.
	Link bool
	// Kind is what the requested ref turned out to be (a git fetch's
	// answer; "" for folders).
	Kind RefKind
}

// Fetcher fetches plugin sources into staging folders.
type Fetcher struct {
	Credentials Credentials
	// Rewrites are applied to every URL fetched or listed.
	Rewrites Rewrites
	// Progress receives go-git's progress lines; nil for silence.
	Progress io.Writer
}

// NewFetcher is the Fetcher the environment asks for: the token of
// QUIVER_GIT_TOKEN, else GITHUB_TOKEN, for the host of QUIVER_GIT_BASE
// (Credentials), and git's url.insteadOf rewrites. A git configuration
// that cannot be read is the error, beside a Fetcher that does without
// its rewrites.
func NewFetcher(getenv func(string) string) (*Fetcher, error) {
	token := getenv("QUIVER_GIT_TOKEN")
	if token == "" {
		token = getenv("GITHUB_TOKEN")
	}
	rw, err := LoadRewrites(GitConfigPaths(getenv))
	return &Fetcher{Credentials: Credentials{Token: token, Base: getenv("QUIVER_GIT_BASE")}, Rewrites: rw}, err
}

// Fetch puts the content of spec into dst, which must not exist: a clone of
// a git repository (remote or local), a copy of a plain folder, or, with
// link, a symlink to the folder.
func (f *Fetcher) Fetch(ctx context.Context, spec Spec, link bool, dst string) (Fetched, error) {
	return f.fetch(ctx, spec, link, dst, "")
}

// fetch is Fetch; a git checkout writes only the files under sparse
// when it is set.
func (f *Fetcher) fetch(ctx context.Context, spec Spec, link bool, dst, sparse string) (Fetched, error) {
	if spec.Subdir != "" {
		return f.fetchSubdir(ctx, spec, link, dst)
	}
	if !spec.IsLocal() {
		return f.fetchGit(ctx, f.Rewrites.Apply(spec.URL), spec.Ref, dst, sparse)
	}
	fi, err := os.Stat(spec.Path)
	if err != nil {
		return Fetched{}, fmt.Errorf("%s: %w", spec.Path, errors.Unwrap(err))
	}
	if !fi.IsDir() {
		return Fetched{}, fmt.Errorf("%s is not a folder", spec.Path)
	}
	if link {
		if spec.Ref != "" {
			return Fetched{}, fmt.Errorf("%w: --link installs the folder as it is; it takes no ref", ErrInvalidSpec)
		}
		return Fetched{Link: true}, os.Symlink(spec.Path, dst)
	}
	if isGitRepo(spec.Path) {
		return f.fetchGit(ctx, spec.Path, spec.Ref, dst, sparse)
	}
	if within(dst, spec.Path) {
		return Fetched{}, fmt.Errorf("%s holds the scope's folder %s: a folder cannot be copied into itself; commit it to git, or move the plugin to a folder of its own", spec.Path, filepath.Dir(filepath.Dir(dst)))
	}
	if spec.Ref != "" {
		return Fetched{}, fmt.Errorf("%w: %s is a plain folder, not a git repository; it has no ref %q", ErrInvalidSpec, spec.Path, spec.Ref)
	}
	return Fetched{}, copyTree(spec.Path, dst)
}

// fetchSubdir puts one folder of spec's repository at dst (SPEC §12): a
// local plain folder's subfolder is copied (or linked) directly; a git
// repository is fetched whole beside dst (a staging name, so an
// interrupted command's leftover is cleaned), checked like any fetch, and
// checked out sparsely, only the folder's files written, which is then
// moved into place. (go-git has no partial clone: every blob is fetched
// either way. Writing the files is what costs: checking out a 400-file
// repository took about 430 ms here, its one folder sparsely about 65 ms;
// see BenchmarkSubfolderFetch.)
func (f *Fetcher) fetchSubdir(ctx context.Context, spec Spec, link bool, dst string) (Fetched, error) {
	whole := spec
	whole.Subdir = ""
	if spec.IsLocal() && (link || !isGitRepo(spec.Path)) {
		sub, err := subFolder(spec.Path, spec.Subdir)
		if err != nil {
			return Fetched{}, err
		}
		whole.Path = sub
		return f.Fetch(ctx, whole, link, dst)
	}
	if link {
		return Fetched{}, fmt.Errorf("%w: --link needs a local folder", ErrInvalidSpec)
	}
	repo := dst + ".repo"
	defer os.RemoveAll(repo)
	got, err := f.fetch(ctx, whole, false, repo, spec.Subdir+"/")
	if err != nil {
		return got, err
	}
	sub, err := subFolder(repo, spec.Subdir)
	if errors.Is(err, ErrNoSuchFolder) {
		err = cmp.Or(notAFolder(repo, spec.Subdir), err) // a file is not checked out sparsely
	}
	if err != nil {
		return Fetched{}, fmt.Errorf("%s at %s: %w", spec.Source(), shortOr(got.Commit, "its files"), err)
	}
	if err := os.Rename(sub, dst); err != nil {
		return Fetched{}, err
	}
	return got, nil
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
		return fmt.Errorf("%w: %s is a symlink, not a folder", ErrUnsafeTree, sub)
	case e.Mode == filemode.Submodule:
		return fmt.Errorf("%s is a submodule, which quiver does not fetch, not a folder", sub)
	}
	return fmt.Errorf("%s is a regular file, not a folder", sub)
}

// subFolder returns root/sub after checking that each step is a real
// folder, not a symlink (which could lead anywhere) nor a file.
func subFolder(root, sub string) (string, error) {
	p := root
	for _, seg := range strings.Split(sub, "/") {
		p = filepath.Join(p, seg)
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("%w %s in the repository", ErrNoSuchFolder, sub)
		case err != nil:
			return "", err
		case fi.Mode()&fs.ModeSymlink != 0:
			return "", fmt.Errorf("%w: %s is a symlink, not a folder", ErrUnsafeTree, sub)
		case !fi.IsDir():
			return "", fmt.Errorf("%s is %s, not a folder", sub, safefs.Kind(fi.Mode()))
		}
	}
	return p, nil
}

// isGitRepo reports a work tree (.git inside) or a bare repository.
func isGitRepo(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return true
	}
	for _, p := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			return false
		}
	}
	return true
}

// within reports whether path lies inside dir (or is dir), comparing the
// paths with symlinks resolved as far as they exist.
func within(path, dir string) bool {
	resolve := func(p string) string {
		// path may not exist yet: resolve its nearest existing parent.
		rest := ""
		for {
			if r, err := filepath.EvalSymlinks(p); err == nil {
				return filepath.Join(r, rest)
			}
			parent := filepath.Dir(p)
			if parent == p {
				return filepath.Join(p, rest)
			}
			rest = filepath.Join(filepath.Base(p), rest)
			p = parent
		}
	}
	return InsideRoot(resolve(path), resolve(dir))
}

// RefKind says what a requested ref turned out to be.
type RefKind string

// The kinds of refs (SPEC §5). A branch (or no ref: the default branch)
// tracks; a tag or a commit is a pin.
const (
	BranchRef RefKind = "branch"
	TagRef    RefKind = "tag"
	CommitRef RefKind = "commit"
)

// target is what to fetch for a requested ref.
type target struct {
	kind    RefKind
	refspec config.RefSpec // what to fetch, depth 1
	commit  plumbing.Hash  // the commit to check out
	branch  plumbing.ReferenceName
	full    bool   // fetch everything and resolve prefix locally
	prefix  string // abbreviated SHA to resolve after a full fetch
}

// resolve lists the remote's refs (one cheap request, no clone) and picks
// the target for ref.
func (f *Fetcher) resolve(ctx context.Context, rawURL, ref string) (target, transport.AuthMethod, string, error) {
	installTransport()
	auth, fetchURL, err := f.Credentials.auth(rawURL)
	if err != nil {
		return target{}, nil, "", err
	}
	shown := Redact(rawURL)
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

// Latest says what ref points to now at source (a URL or a local git
// repository) without cloning: the commit (empty for an abbreviated SHA
// that no ref points at) and whether it is a branch, tag or commit.
func (f *Fetcher) Latest(ctx context.Context, source, ref string) (string, RefKind, error) {
	t, _, _, err := f.resolve(ctx, f.Rewrites.Apply(source), ref)
	if err != nil {
		return "", "", err
	}
	if t.full {
		return "", t.kind, nil
	}
	return t.commit.String(), t.kind, nil
}

func (f *Fetcher) fetchGit(ctx context.Context, rawURL, ref, dst, sparse string) (Fetched, error) {
	shown := Redact(rawURL)
	t, auth, fetchURL, err := f.resolve(ctx, rawURL, ref)
	if err != nil {
		return Fetched{}, err
	}

	repo, err := git.PlainInit(dst, false)
	if err != nil {
		return Fetched{}, err
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{fetchURL}}); err != nil {
		return Fetched{}, err
	}
	opts := &git.FetchOptions{RemoteName: "origin", Auth: auth, Progress: f.Progress, Tags: git.NoTags, Depth: 1}
	if !t.full {
		opts.RefSpecs = []config.RefSpec{t.refspec}
		err = repo.FetchContext(ctx, opts)
		switch {
		case errors.Is(err, git.ErrExactSHA1NotSupported):
			t.full, t.prefix = true, t.commit.String()
		case err != nil && t.kind == CommitRef && strings.Contains(err.Error(), "not our ref"):
			return Fetched{}, fmt.Errorf("%s: %w: commit %s is not available any more (deleted branch or rewritten history?)", shown, ErrRefNotFound, t.commit)
		case err != nil:
			return Fetched{}, gitError(shown, err)
		}
	}
	if t.full {
		opts.Depth, opts.Tags = 0, git.AllTags
		opts.RefSpecs = []config.RefSpec{"+refs/heads/*:refs/remotes/origin/*"}
		if err := repo.FetchContext(ctx, opts); err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
			return Fetched{}, gitError(shown, err)
		}
		if t.commit, err = resolvePrefix(repo, t.prefix); err != nil {
			return Fetched{}, fmt.Errorf("%s: %w", shown, err)
		}
	}
	if err := checkCommit(repo, t.commit, ref); err != nil {
		return Fetched{}, fmt.Errorf("%s: %w", shown, err)
	}
	if err := checkTree(repo, t.commit); err != nil {
		return Fetched{}, fmt.Errorf("%s: %w", shown, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return Fetched{}, err
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
		return Fetched{}, fmt.Errorf("check out %s: %s", t.commit, msg)
	}
	return Fetched{Commit: t.commit.String(), Kind: t.kind}, nil
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
			kind:    BranchRef,
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
				return target{}, ErrEmptyRepo
			}
			sort.Strings(branches)
			return target{}, fmt.Errorf("%w: the remote's HEAD names no existing branch, so it has no default branch; give a ref (branches: %s)", ErrRefNotFound, ChangedList(branches))
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
		return target{}, fmt.Errorf("%w: cannot tell the default branch; give a ref", ErrRefNotFound)
	}
	// A full commit SHA is that commit, as git reads 40 hex digits,
	// whatever a branch or tag of that name holds: a repository can name
	// a branch like a commit and move it, and a pin must not follow it.
	if _, ok := byName[plumbing.NewBranchReferenceName(ref)]; ok && !IsCommit(ref) {
		return branch(plumbing.NewBranchReferenceName(ref)), nil
	}
	if r, ok := byName[plumbing.NewTagReferenceName(ref)]; ok && !IsCommit(ref) {
		return target{kind: TagRef, refspec: config.RefSpec("+" + r.Name().String() + ":" + r.Name().String()), commit: commitOf(r)}, nil
	}
	if hexSHA().MatchString(ref) {
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
					return target{}, fmt.Errorf("%w: commit %s is ambiguous; give more digits", ErrRefNotFound, ref)
				}
			}
			return target{kind: CommitRef, refspec: config.RefSpec("+" + found[0].Name().String() + ":" + found[0].Name().String()), commit: c}, nil
		}
		if len(ref) == 40 {
			h := plumbing.NewHash(ref)
			return target{kind: CommitRef, refspec: config.RefSpec(ref + ":refs/heads/quiver-pinned"), commit: h}, nil
		}
		return target{kind: CommitRef, full: true, prefix: ref}, nil
	}
	return target{}, fmt.Errorf("%w: no branch, tag or commit %q", ErrRefNotFound, ref)
}

// Limits on what a plugin repository may contain. A plugin is hooks,
// skills and recipes: files this large are a mistake or an attack, and
// go-git holds a file in memory several times over while checking it out.
// The total and the count bound what a checkout writes: a tree may name
// one blob any number of times, so a repository of a few hundred KiB could
// otherwise write gigabytes.
const (
	MaxPluginFile  = 64 << 20
	MaxPluginTotal = 512 << 20
	MaxPluginFiles = 20_000
	maxPathLen     = 1024
	maxNameLen     = 255
)

// ErrUnsafeTree is wrapped by refusals of a repository's file tree.
var ErrUnsafeTree = errors.New("repository refused")

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
	tooMany := fmt.Errorf("%w: more than %d files; a plugin may have at most that", ErrUnsafeTree, MaxPluginFiles)
	tooBig := fmt.Errorf("%w: its files add up to more than %d MiB", ErrUnsafeTree, MaxPluginTotal>>20)
	err = tree.Files().ForEach(func(f *object.File) error {
		if f.Mode == filemode.Symlink {
			links[f.Name] = true
		}
		if files = append(files, f); len(files) > MaxPluginFiles {
			return tooMany
		}
		if total += f.Size; total > MaxPluginTotal {
			return tooBig
		}
		return nil
	})
	if errors.Is(err, ErrUnsafeTree) {
		return err
	}
	if err != nil {
		// go-git refuses names with control characters while walking.
		return fmt.Errorf("%w: %v", ErrUnsafeTree, err)
	}
	for _, f := range files {
		name := f.Name
		for _, r := range name {
			if r < 0x20 || r == 0x7f {
				return fmt.Errorf("%w: path %q contains a control character", ErrUnsafeTree, name)
			}
		}
		if len(name) > maxPathLen {
			return fmt.Errorf("%w: path %.80q... is %d bytes long (at most %d)", ErrUnsafeTree, name, len(name), maxPathLen)
		}
		for dir := path.Dir(name); dir != "."; dir = path.Dir(dir) {
			if links[dir] {
				return fmt.Errorf("%w: path %q lies inside %q, which is a symlink", ErrUnsafeTree, name, dir)
			}
			if len(path.Base(dir)) > maxNameLen {
				return fmt.Errorf("%w: a folder name in %.80q... is longer than %d bytes", ErrUnsafeTree, name, maxNameLen)
			}
		}
		if f.Size > MaxPluginFile {
			return fmt.Errorf("%w: %s is %d MiB; plugin files may be at most %d MiB", ErrUnsafeTree, name, f.Size>>20, MaxPluginFile>>20)
		}
	}
	return nil
}

// ErrNotACommit is wrapped by the error for a ref that points at a tree or
// a blob (a tag can), which cannot be installed.
var ErrNotACommit = errors.New("not a commit")

// checkCommit makes sure the object to check out is a commit, so that a tag
// pointing at a tree or a blob is named for what it is rather than "object
// not found".
func checkCommit(repo *git.Repository, h plumbing.Hash, ref string) error {
	obj, err := repo.Storer.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return fmt.Errorf("%w: %s (%s) was not sent by the server", ErrRefNotFound, h, refOrDefault(ref))
	}
	if obj.Type() != plumbing.CommitObject {
		return fmt.Errorf("%w: %s points at a %s (%s), %s", ErrRefNotFound, refOrDefault(ref), obj.Type(), h, ErrNotACommit)
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
			return plumbing.ZeroHash, fmt.Errorf("%w: no commit %s", ErrRefNotFound, prefix)
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
		return plumbing.ZeroHash, fmt.Errorf("%w: no branch, tag or commit %q", ErrRefNotFound, prefix)
	case 1:
		return found[0], nil
	}
	return plumbing.ZeroHash, fmt.Errorf("%w: commit %s is ambiguous; give more digits", ErrRefNotFound, prefix)
}

// gitError turns go-git's transport errors into ones that say what to do.
func gitError(shownURL string, err error) error {
	switch {
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return fmt.Errorf("%w at %s", ErrRepoNotFound, shownURL)
	case errors.Is(err, transport.ErrAuthenticationRequired):
		return fmt.Errorf("%w by %s; set QUIVER_GIT_TOKEN (or GITHUB_TOKEN) for that host", ErrAuthRequired, shownURL)
	case errors.Is(err, transport.ErrAuthorizationFailed):
		return fmt.Errorf("%w by %s; check that the token can read the repository", ErrAuthFailed, shownURL)
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		return fmt.Errorf("%w: %s has no commits", ErrEmptyRepo, shownURL)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("fetch %s: %w", shownURL, err)
	}
	return fmt.Errorf("fetch %s: %s", shownURL, Redact(err.Error()))
}
