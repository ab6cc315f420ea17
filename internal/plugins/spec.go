package plugins

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"github.com/quiver-cli/quiver/internal/lazy"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// ErrInvalidSpec is wrapped by every error about a malformed repository spec
// or ref.
var ErrInvalidSpec = errors.New("invalid plugin spec")

// DefaultGitBase is where org/repo shorthands point when QUIVER_GIT_BASE is
// not set.
const DefaultGitBase = "https://github.com"

// Spec is a parsed `plugin add` argument (SPEC §5).
type Spec struct {
	// Raw is the argument as the user typed it.
	Raw string
	// URL is what go-git fetches from. Empty for local specs.
	URL string
	// Path is the absolute path of a local spec (file://, ./, ../, /).
	Path string
	// Ref is the requested branch, tag or commit; empty means the default
	// branch.
	Ref string
	// Name is the name derived from the last two path segments, or the zero
	// Name when they do not form a valid name (local specs may still find
	// one in plugin.yaml; see Source.ResolveName).
	Name Name
	// Shorthand reports whether Raw was an org/repo shorthand.
	Shorthand bool
	// Subdir is the folder of the repository to install (SPEC §12), slash
	// separated and validated; "" for the whole repository.
	Subdir string
}

// SetSubdir makes the spec install only the folder sub of its repository,
// named org/<last segment of sub> after the org of the repository's name
// (SPEC §12). "" or "./" means the whole repository.
func (s *Spec) SetSubdir(sub string) error {
	if sub == "" || sub == "./" || sub == "." {
		s.Subdir = ""
		return nil
	}
	clean, err := safefs.RelPath(sub)
	if err != nil {
		return fmt.Errorf("%w: the folder to install: %w", ErrInvalidSpec, err)
	}
	s.Subdir = clean
	if !s.Name.IsZero() {
		if n, err := NewName(s.Name.Org(), strings.ToLower(path.Base(clean))); err == nil {
			s.Name = n
		} else {
			s.Name = Name{}
		}
	}
	return nil
}

// IsLocal reports whether the spec names a folder on this machine.
func (s Spec) IsLocal() bool { return s.Path != "" }

// Source returns what the lock file records as the plugin's source: the URL
// (without any password) or the absolute local path.
func (s Spec) Source() string {
	if s.IsLocal() {
		return s.Path
	}
	return Redact(s.URL)
}

// Shown is the source as messages name it, with the subfolder:
// "https://github.com/acme/tools.git (folder plugins/guard)".
func (s Spec) Shown() string {
	if s.Subdir == "" {
		return s.Source()
	}
	return s.Source() + " (folder " + s.Subdir + ")"
}

// The spec patterns are compiled when a spec is first parsed, not at every
// process start: hook run never parses one.
var (
	scpLike    = lazy.Regexp{Expr: `^(?:[A-Za-z0-9._~-]+@)?([A-Za-z0-9.-]+):(.+)$`}
	schemeLike = lazy.Regexp{Expr: `^[A-Za-z][A-Za-z0-9+.-]*://`}
)

// ParseSpec parses one `plugin add` argument. base is QUIVER_GIT_BASE (empty
// means DefaultGitBase); dir is the directory relative paths start from. A
// ref given with @REF is returned in Spec.Ref; the caller merges --ref.
func ParseSpec(raw, base, dir string) (Spec, error) {
	s := Spec{Raw: raw}
	shown := shownSpec(raw) // errors quote the spec, never its password
	if raw == "" || strings.TrimSpace(raw) != raw || strings.ContainsAny(raw, "\x00\n\r\t") {
		return s, fmt.Errorf("%w %q: empty or contains whitespace", ErrInvalidSpec, shown)
	}
	body, ref := splitRef(raw)
	if ref != "" {
		if err := ValidateRef(ref); err != nil {
			return s, err
		}
		s.Ref = ref
	}
	var repoPath string
	switch {
	case len(body) >= 7 && strings.EqualFold(body[:7], "file://"):
		body = "file://" + body[7:]
		u, err := url.Parse(body)
		if err != nil || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
			return s, fmt.Errorf("%w %q: want file:///absolute/path", ErrInvalidSpec, shown)
		}
		s.Path = filepath.Clean(u.Path)
		repoPath = s.Path
	case schemeLike.Get().MatchString(body):
		u, err := url.Parse(body)
		if err != nil {
			// url.Parse's error quotes the URL, and a password in it can
			// look like a port: say what is wrong without it.
			return s, fmt.Errorf("%w %q: not a valid URL (a password needs %%-escaping of @ / ? # and spaces; better, use QUIVER_GIT_TOKEN)", ErrInvalidSpec, shown)
		}
		switch strings.ToLower(u.Scheme) {
		case "https", "http", "ssh":
		default:
			return s, fmt.Errorf("%w %q: unsupported scheme %q (use https, http, ssh or file)", ErrInvalidSpec, shown, u.Scheme)
		}
		if u.Host == "" || strings.Trim(u.Path, "/") == "" {
			return s, fmt.Errorf("%w %q: the URL needs a host and a repository path", ErrInvalidSpec, shown)
		}
		if strings.IndexFunc(u.Host, func(r rune) bool { return r < 0x21 || r > 0x7e }) >= 0 {
			// The dialer maps a name such as "ｇｉｔｈｕｂ.com" to
			// another (IDNA), which a policy would not see: only the
			// ASCII form is taken.
			return s, fmt.Errorf("%w %q: the host is not ASCII; write it in its ASCII (xn--) form", ErrInvalidSpec, shown)
		}
		for _, seg := range strings.Split(u.Path, "/") {
			if seg == "." || seg == ".." {
				return s, fmt.Errorf("%w %q: the URL path has a %q segment", ErrInvalidSpec, shown, seg)
			}
		}
		s.URL = body
		repoPath = u.Path
	case body == "." || body == ".." || strings.HasPrefix(body, "./") || strings.HasPrefix(body, "../") || strings.HasPrefix(body, "/"):
		p := body
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		s.Path = filepath.Clean(p)
		repoPath = s.Path
	case scpLike.Get().MatchString(body) && strings.Contains(scpLike.Get().FindStringSubmatch(body)[2], "@"):
		// user:password@host:path reads as host "user" with a path that
		// holds the password; never echo it.
		return s, fmt.Errorf("%w: an address like user:password@host:path does not work over SSH, and quiver never stores passwords; use an SSH key, or https with QUIVER_GIT_TOKEN", ErrInvalidSpec)
	case scpLike.Get().MatchString(body) && !strings.Contains(strings.SplitN(body, ":", 2)[0], "/"):
		s.URL = body
		repoPath = scpLike.Get().FindStringSubmatch(body)[2]
		// As for a URL: an ssh server resolves the path as a file
		// system does, so host:acme/../evil/x is evil/x.
		for _, seg := range strings.Split(repoPath, "/") {
			if seg == "." || seg == ".." {
				return s, fmt.Errorf("%w %q: the path has a %q segment", ErrInvalidSpec, shown, seg)
			}
		}
	case strings.Count(body, "/") >= 2 && !strings.Contains(body, ":"):
		// org/repo/sub/dir: a folder of the repository (SPEC §12).
		parts := strings.SplitN(body, "/", 3)
		short, err := ParseSpec(parts[0]+"/"+parts[1], base, dir)
		if err != nil || strings.Contains(parts[1], "@") {
			return s, fmt.Errorf("%w %q: want org/repo, a URL or a path (./dir)", ErrInvalidSpec, shown)
		}
		short.Raw, short.Ref = raw, s.Ref
		if err := short.SetSubdir(parts[2]); err != nil {
			return s, err
		}
		return short, nil
	case strings.Count(body, "/") == 1 && !strings.Contains(body, ":"):
		org, repo, _ := strings.Cut(body, "/")
		repo = strings.TrimSuffix(repo, ".git")
		n, err := NewName(org, repo)
		if err != nil {
			return s, fmt.Errorf("%w %q: not org/repo, a URL or a path (write a folder as ./%s): %w", ErrInvalidSpec, shown, body, err)
		}
		if base == "" {
			base = DefaultGitBase
		}
		s.URL = strings.TrimSuffix(base, "/") + "/" + org + "/" + repo + ".git"
		s.Name, s.Shorthand = n, true
		return s, nil
	default:
		return s, fmt.Errorf("%w %q: want org/repo, a URL or a path (./dir)", ErrInvalidSpec, shown)
	}
	s.Name = nameFromPath(repoPath)
	return s, nil
}

// shownSpec is a spec as errors quote it. A spec that may not parse can
// hold a password with characters that end a URL's authority early
// (https://u:pa/ss@host), so everything between "://" and the last @
// before any @REF goes, whatever it looks like.
func shownSpec(raw string) string {
	s := Redact(raw)
	i := strings.Index(s, "://")
	if i < 0 {
		return s
	}
	body, ref := splitRef(s)
	if at := strings.LastIndex(body, "@"); at > i {
		body = body[:i+3] + body[at+1:]
	}
	if ref != "" {
		body += "@" + ref
	}
	return body
}

// splitRef splits SPEC@REF at the last '@' after the last '/'. An '@' that
// is the user part of an scp-like or ssh URL comes before a '/' or ':' and is
// kept.
func splitRef(raw string) (body, ref string) {
	slash := strings.LastIndexAny(raw, "/:")
	at := strings.LastIndex(raw, "@")
	if at <= slash || at == len(raw)-1 {
		return raw, ""
	}
	return raw[:at], raw[at+1:]
}

// nameFromPath derives org/repo from the last two segments of a URL or file
// path, ".git" stripped; the zero Name when they are not a valid name.
func nameFromPath(p string) Name {
	p = strings.TrimRight(filepath.ToSlash(p), "/")
	p = strings.TrimSuffix(p, "/.git") // the .git folder of a work tree
	p = strings.TrimSuffix(p, ".git")
	repo := path.Base(p)
	org := path.Base(path.Dir(p))
	n, err := NewName(org, repo)
	if err != nil {
		return Name{}
	}
	return n
}

// ValidateRef checks a branch, tag or commit given by the user or read
// from a file: a name that `git check-ref-format --allow-onelevel`
// accepts (a full commit SHA is one), never starting with '-' (git would
// read it as an option), without a control or bidi character. So a ref
// can never be an option, a path trick or a disguise.
func ValidateRef(ref string) error {
	if !validRef(ref) {
		return fmt.Errorf("%w: ref %q is not a valid branch, tag or commit name", ErrInvalidSpec, ref)
	}
	return nil
}

// validRef applies git's ref-name rules (git check-ref-format), plus no
// leading '-' and no invisible character.
func validRef(ref string) bool {
	if ref == "" || ref == "@" || strings.HasPrefix(ref, "-") || strings.HasSuffix(ref, ".") ||
		strings.Contains(ref, "..") || strings.Contains(ref, "@{") {
		return false
	}
	if strings.IndexFunc(ref, func(r rune) bool { return safefs.Deceptive(r) || strings.ContainsRune(" ~^:?*[\\", r) }) >= 0 {
		return false
	}
	// No empty component (a leading, trailing or double '/'), none
	// starting with '.' or ending with ".lock".
	for _, c := range strings.Split(ref, "/") {
		if c == "" || strings.HasPrefix(c, ".") || strings.HasSuffix(c, ".lock") {
			return false
		}
	}
	return true
}

// IsCommit reports whether s is a full commit SHA as quiver records one:
// exactly 40 lowercase hex digits.
func IsCommit(s string) bool {
	return len(s) == 40 && strings.Trim(s, "0123456789abcdef") == ""
}

// Redact removes credentials from every URL in s, which may be a URL, a
// lock entry's source, or any message (go-git's errors quote URLs): the
// whole user part of an http(s) URL (user, password, or a token written as
// the user, https://TOKEN@host), and the password of any other URL. An SSH
// user name (ssh://git@host) is kept: it is how SSH addresses the account,
// not a secret. It is the one redaction for everything quiver stores or
// prints.
func Redact(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	return redactQuery(redactUsers(s))
}

// redactUsers takes out the user parts of the URLs in s (Redact).
func redactUsers(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		start := i
		for start > 0 && isSchemeByte(s[start-1]) {
			start--
		}
		scheme := strings.ToLower(s[start:i])
		auth := s[i+3:]
		// The authority ends where url.Parse ends it, at the first / ? or
		// #, or at white space in running text. Everything before its last
		// @ is the user part, whatever characters a password holds: the
		// way to miss one is to stop early at a character that a password
		// may contain (a comma, a quote) and find no @ before it.
		end := strings.IndexAny(auth, "/?# \t\r\n")
		if end < 0 {
			end = len(auth)
		}
		at := strings.LastIndex(auth[:end], "@")
		b.WriteString(s[:i+3])
		if at >= 0 {
			if user, _, _ := strings.Cut(auth[:at], ":"); user != "" && scheme != "http" && scheme != "https" {
				b.WriteString(user + "@")
			}
			auth, end = auth[at+1:], end-(at+1)
		}
		b.WriteString(auth[:end])
		s = auth[end:]
	}
}

// redactQuery replaces the value of every query parameter of s whose
// name says it holds a secret (token, key, secret, password, signature,
// credential, sig, auth, code: an API key or a signed URL's signature in a
// hook's URL) with REDACTED; a fragment's parameters too (an OAuth
// implicit grant's #access_token=...). Other parameters stay, as they
// help to read a message.
func redactQuery(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexAny(s, "?&;#")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+1])
		s = s[i+1:]
		eq := strings.IndexByte(s, '=')
		if eq <= 0 || strings.ContainsAny(s[:eq], "?&;#/ \t\r\n\"'<>") || !secretParam(s[:eq]) {
			continue
		}
		end := strings.IndexAny(s[eq+1:], "&;# \t\r\n\"'<>`")
		if end < 0 {
			end = len(s) - eq - 1
		}
		b.WriteString(s[:eq+1] + "REDACTED")
		s = s[eq+1+end:]
	}
}

// secretParam reports whether a query parameter of this name holds a
// secret.
func secretParam(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "sig", "auth", "code", "pwd", "pass":
		return true
	}
	// An API key goes by many names, each ending in key: key, apikey,
	// api_key, api-key, x-api-key, access_key, subscription-key, hapikey.
	if strings.HasSuffix(n, "key") {
		return true
	}
	for _, w := range []string{"token", "secret", "password", "passwd", "signature", "credential"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

func isSchemeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}
