package plugins

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

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
	// ErrUnreachable: the network, not git, failed (no such host,
	// nothing answers, an untrusted certificate); its message says
	// which in words.
	ErrUnreachable = errors.New("network")
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
	// FromStore: the machine's store had the commit, and nothing was
	// asked of the host.
	FromStore bool
	// notAFolder, after a sparse fetch, says what the sparse path is in
	// the commit when it is there but not a folder.
	notAFolder error
}

// Fetcher fetches plugin sources into staging folders.
type Fetcher struct {
	Credentials Credentials
	// GitConfig are the git configuration files whose url.insteadOf
	// rules (SPEC §5) apply to every URL fetched or listed: the URL that
	// starts with an insteadOf value is fetched from its base plus the
	// rest, the longest match winning, as git does (a company's mirror
	// of https://github.com/). The lock keeps the URL as written. The
	// rules are read by the git helper at each fetch.
	GitConfig []string
	// OnConfigError hears, once, of a git configuration that could not
	// be read or parsed: the fetch goes on without its rewrites. Nil
	// ignores it.
	OnConfigError func(error)
	// Progress receives go-git's progress lines; nil for silence.
	Progress io.Writer
	// Store is the machine's store (StoreDir): every git fetch goes
	// through it. "" fetches straight into the staging folder, with
	// .git, as before the store.
	Store string
	// Checkout, when set, names a folder this machine checked out of
	// source at commit (a marketplace's, verified against quiver's own
	// record of it), "" for none: a folder of that commit is copied from
	// it rather than fetched again, so a marketplace is fetched once,
	// not once per plugin installed from it.
	Checkout func(source, commit string) string

	// Jobs bounds the questions asked of hosts at once (Parallel); the
	// command's --jobs, as Installer.Jobs.
	Jobs int

	configErr sync.Once
	// answers are what the host said in this command (once).
	answers struct {
		sync.Mutex
		m map[string]*answer
	}
	// rewritten remembers Rewrite's answers: each asks the git helper.
	rewritten struct {
		sync.Mutex
		urls map[string]string
	}
}

// NewFetcher is the Fetcher the environment asks for: the token of
// QUIVER_GIT_TOKEN, else GITHUB_TOKEN, for the host of QUIVER_GIT_BASE
// (Credentials), and the user's global git configuration (GitConfigPaths)
// for its url.insteadOf rewrites.
func NewFetcher(getenv func(string) string) *Fetcher {
	token := getenv("QUIVER_GIT_TOKEN")
	if token == "" {
		token = getenv("GITHUB_TOKEN")
	}
	return &Fetcher{Credentials: Credentials{Token: token, Base: getenv("QUIVER_GIT_BASE")}, GitConfig: GitConfigPaths(getenv)}
}

// GitConfigPaths are the files git reads as the user's global config, in
// the order git reads them (a later value adds to the earlier ones):
// $GIT_CONFIG_GLOBAL alone when set, else $XDG_CONFIG_HOME/git/config
// (~/.config/git/config) and ~/.gitconfig.
func GitConfigPaths(getenv func(string) string) []string {
	if p := getenv("GIT_CONFIG_GLOBAL"); p != "" {
		return []string{p}
	}
	home := getenv("HOME")
	xdg := getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var out []string
	if xdg != "" {
		out = append(out, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		out = append(out, filepath.Join(home, ".gitconfig"))
	}
	return out
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
	if f.Store != "" && storable(spec, link) {
		return f.fetchStored(ctx, spec, dst)
	}
	if !spec.IsLocal() {
		return f.fetchGit(ctx, spec.URL, f.GitConfig, spec.Ref, dst, sparse)
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
		return f.fetchGit(ctx, spec.Path, nil, spec.Ref, dst, sparse)
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
	if f.Checkout != nil && fullCommit(spec.Ref) {
		if dir := f.Checkout(spec.Source(), spec.Ref); dir != "" {
			if sub, err := subFolder(dir, spec.Subdir); err == nil {
				return Fetched{Commit: spec.Ref}, copyTree(sub, dst)
			}
		}
	}
	if f.Store != "" {
		return f.fetchStored(ctx, spec, dst)
	}
	repo := dst + ".repo"
	defer os.RemoveAll(repo)
	got, err := f.fetch(ctx, whole, false, repo, spec.Subdir+"/")
	if err != nil {
		return got, err
	}
	sub, err := subFolder(repo, spec.Subdir)
	if errors.Is(err, ErrNoSuchFolder) {
		err = cmp.Or(got.notAFolder, err) // a file is not checked out sparsely
	}
	if err != nil {
		return Fetched{}, fmt.Errorf("%s at %s: %w", spec.Source(), shortOr(got.Commit, "its files"), err)
	}
	if err := os.Rename(sub, dst); err != nil {
		return Fetched{}, err
	}
	return Fetched{Commit: got.Commit}, nil
}

// fullCommit reports a ref that is a whole commit id: only such a ref
// names the same files in any checkout of it.
func fullCommit(ref string) bool {
	return len(ref) == 40 && strings.Trim(ref, "0123456789abcdef") == ""
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

// Latest says what ref points to now at source (a URL or a local git
// repository) without cloning: the commit (empty for an abbreviated SHA
// that no ref points at) and whether it is a branch, tag or commit.
// The answer is the command's: a second question of the same ref, here
// or from a fetch of it, gets it without asking the host again.
func (f *Fetcher) Latest(ctx context.Context, source, ref string) (string, RefKind, error) {
	a := f.once("ref "+refKey(source, ref), func() answer {
		resp, err := f.runGit(ctx, GitRequest{Op: "latest", URL: source, GitConfig: f.GitConfig, Ref: ref}, nil)
		return answer{commit: resp.Commit, kind: resp.Kind, err: err}
	})
	return a.commit, a.kind, a.err
}

// Parallel is how many questions f may ask of hosts at once.
func (f *Fetcher) Parallel() int { return cmp.Or(f.Jobs, DefaultJobs) }

// fetchGit clones rawURL (rewritten by the insteadOf rules of config) at
// ref into dst, in the git helper (gitwork): the commit's tree is checked
// before anything is written.
func (f *Fetcher) fetchGit(ctx context.Context, rawURL string, config []string, ref, dst, sparse string) (Fetched, error) {
	resp, err := f.runGit(ctx, GitRequest{Op: "fetch", URL: rawURL, GitConfig: config, Ref: ref, Dst: dst, Sparse: sparse}, f.Progress)
	if err != nil {
		return Fetched{}, err
	}
	return Fetched{Commit: resp.Commit, Kind: resp.Kind, notAFolder: resp.NotAFolder.err()}, nil
}

// runGit does req in the git helper with the Fetcher's credentials, and
// reports a git configuration the helper could not use.
func (f *Fetcher) runGit(ctx context.Context, req GitRequest, progress io.Writer) (GitResponse, error) {
	req.Token, req.Base = f.Credentials.Token, f.Credentials.Base
	resp, err := runGit(ctx, req, progress)
	if resp.ConfigError != "" && f.OnConfigError != nil {
		f.configErr.Do(func() { f.OnConfigError(errors.New(resp.ConfigError)) })
	}
	return resp, err
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
)

// ErrUnsafeTree is wrapped by refusals of a repository's file tree.
var ErrUnsafeTree = errors.New("repository refused")

// ErrNotACommit is wrapped by the error for a ref that points at a tree or
// a blob (a tag can), which cannot be installed.
var ErrNotACommit = errors.New("not a commit")
