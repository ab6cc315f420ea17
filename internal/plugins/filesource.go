package plugins

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/quiver-cli/quiver/internal/lazy"
)

// ErrFileSource is wrapped by every refusal of a source read from a file;
// its text is the rule.
var ErrFileSource = errors.New("a source read from a file must be https://, ssh://, user@host:path, org/repo or a URL under QUIVER_GIT_BASE")

// remoteHelper matches git's "transport::address" form, which makes git
// run the program git-remote-<transport>.
var remoteHelper = lazy.Regexp{Expr: `^[A-Za-z][A-Za-z0-9+.-]*::`}

// CheckFileSource checks a source read from a file (a lock entry's or a
// lock marketplace's source, a marketplace entry's url or repo) as it is
// written there, before the user's url.insteadOf rewrites (SPEC §5). The
// file may have come with a repository, so it may name only what a
// stranger can name without harm: an https:// or ssh:// URL, an scp-like
// user@host:path, an org/repo shorthand (which resolves through the
// user's QUIVER_GIT_BASE), or any URL under gitBase, the user's own
// QUIVER_GIT_BASE ("" means DefaultGitBase). Plain http would let anyone
// on the network choose what is installed; file:// and paths would copy
// the user's own files into the project; a value starting with '-' or a
// transport::address would reach git as an option or a program to run.
// Anything else is refused here and taken only when the user types it.
func CheckFileSource(src, gitBase string) error {
	shown := shownSpec(src)
	refuse := func(why string) error { return fmt.Errorf("%q %s; %w", shown, why, ErrFileSource) }
	switch {
	case src == "":
		return fmt.Errorf("the source is empty; %w", ErrFileSource)
	case strings.HasPrefix(src, "-"):
		return refuse("starts with '-', which git reads as an option")
	case remoteHelper.Get().MatchString(src):
		return refuse("is a git transport::address, which runs a program")
	}
	spec, err := ParseSpec(src, gitBase, "/")
	switch {
	case err != nil:
		return refuse("is not a valid source")
	case spec.Ref != "":
		return refuse("ends in @" + spec.Ref + "; a file gives the ref in a field of its own")
	case underBase(src, gitBase):
		return nil
	case spec.IsLocal():
		return refuse("is a file or folder of this machine")
	case spec.Shorthand:
		return nil
	}
	if !schemeLike.Get().MatchString(src) {
		// user@host:path, as ParseSpec read it; src itself does not
		// start with '-', so neither does the user.
		m := scpLike.Get().FindStringSubmatch(src)
		if m == nil {
			return refuse("is not a valid source")
		}
		if strings.HasPrefix(m[1], "-") || strings.HasPrefix(m[2], "-") {
			return refuse("has a host or path starting with '-', which ssh or git reads as an option")
		}
		return nil
	}
	u, err := url.Parse(src)
	if err != nil {
		return refuse("is not a valid URL")
	}
	_, password := u.User.Password()
	switch scheme := strings.ToLower(u.Scheme); {
	case scheme == "http":
		return refuse("is plain http, which anyone on the network can read and change, and it is not under your QUIVER_GIT_BASE")
	case scheme != "https" && scheme != "ssh":
		return refuse("has the scheme " + scheme)
	case password || (u.User != nil && scheme == "https"):
		return refuse("carries credentials; quiver sends QUIVER_GIT_TOKEN to QUIVER_GIT_BASE itself")
	case strings.HasPrefix(u.Hostname(), "-") || strings.HasPrefix(u.User.Username(), "-"):
		return refuse("has a host or user starting with '-', which ssh reads as an option")
	}
	return nil
}

// underBase reports whether src is a URL below gitBase: the same scheme,
// host and port, a path inside the base's path, and nothing that could
// step out of it (no credentials, no "." or ".." segment, no query).
func underBase(src, gitBase string) bool {
	if gitBase == "" {
		gitBase = DefaultGitBase
	}
	b, err := url.Parse(gitBase)
	if err != nil || b.Scheme == "" || b.Opaque != "" {
		return false
	}
	u, err := url.Parse(src)
	if err != nil || u.Opaque != "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return false
	}
	root := strings.TrimSuffix(b.Path, "/") + "/"
	if !strings.EqualFold(u.Scheme, b.Scheme) || !strings.EqualFold(u.Host, b.Host) || !strings.HasPrefix(u.Path, root) {
		return false
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	return len(u.Path) > len(root)
}

// fileSourceError names where a refused source was read and how the user
// takes it deliberately: by typing it in the command accept ("quiver
// plugin add").
func fileSourceError(file, entry, src, accept string, err error) error {
	return fmt.Errorf("%s: %s: source %w: if you mean it, run %s %s yourself", file, entry, err, accept, shownSpec(src))
}

// checkLockSource checks the source of one entry of the scope's lock
// (entry says which, "plugin acme/guard"); accept is the command that
// takes it from the user. typedHere is the source this machine's own
// install of the entry recorded ("" for none): a local folder or a
// file:// URL the user typed here, which quiver wrote into the lock
// itself, is theirs again on this machine, and on no other (SPEC §5).
func (in *Installer) checkLockSource(entry, src, accept, typedHere string) error {
	err := CheckFileSource(src, in.GitBase)
	if err == nil {
		return nil
	}
	local := filepath.IsAbs(src) || len(src) >= 7 && strings.EqualFold(src[:7], "file://")
	if local && typedHere != "" && typedHere == src {
		return nil
	}
	err = fileSourceError("lock file "+in.Scope.LockPath(), entry, src, accept, err)
	if local {
		// A folder of the machine that wrote the lock: what the team
		// should commit instead.
		return fmt.Errorf("%w; to share it, publish it where every teammate can fetch it (a git host) and add it from there, so that the lock names that URL", err)
	}
	return err
}
