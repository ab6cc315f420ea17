package plugins

import (
	"net/url"
	"path/filepath"
	"strings"
)

// NormalSource is a source as policies and comparisons read it (SPEC §17):
// for a URL, the lowercase host (with its port) and the path (its case
// kept), without
// scheme, credentials, query, fragment, trailing slash or ".git"
// ("github.com/acme/guard"); an scp-like SSH address (git@host:org/repo)
// reads the same; a local folder is "local:/ABS/PATH". The scheme is
// dropped on purpose: https:// and ssh:// of one repository are one
// source to a policy.
func NormalSource(src string) string {
	if src == "" {
		return ""
	}
	if !strings.Contains(src, "://") {
		if m := scpLike().FindStringSubmatch(src); m != nil && !strings.Contains(strings.SplitN(src, ":", 2)[0], "/") {
			return normalHostPath(m[1], m[2])
		}
		if filepath.IsAbs(src) {
			return "local:" + filepath.Clean(src)
		}
		return src
	}
	u, err := url.Parse(src)
	if err != nil {
		return strings.ToLower(Redact(src))
	}
	if u.Scheme == "file" {
		return "local:" + filepath.Clean(u.Path)
	}
	return normalHostPath(u.Host, u.Path)
}

func normalHostPath(host, p string) string {
	p = strings.Trim(p, "/")
	p = strings.TrimSuffix(p, ".git")
	return strings.ToLower(host) + "/" + p
}

// SameSource reports whether two recorded sources name one repository or
// folder, as NormalSource reads them, in any letter case (as policies
// match them).
func SameSource(a, b string) bool { return strings.EqualFold(NormalSource(a), NormalSource(b)) }
