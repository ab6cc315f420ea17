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
		if m := scpLike.Get().FindStringSubmatch(src); m != nil && !strings.Contains(strings.SplitN(src, ":", 2)[0], "/") {
			return normalHostPath("ssh", m[1], m[2])
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
	return normalHostPath(strings.ToLower(u.Scheme), u.Host, u.Path)
}

// defaultPorts are the ports a scheme's URL means when it names none.
func defaultPorts(scheme string) string {
	switch scheme {
	case "https":
		return "443"
	case "http":
		return "80"
	case "ssh":
		return "22"
	}
	return ""
}

// normalHostPath is host and path of a URL of scheme as one source: one
// spelling for what reaches one repository, or a deny list is passed by
// another (github.com:443, github.com., evil//x): the scheme's default
// port, a fully qualified host's final dot and empty path segments are
// dropped.
func normalHostPath(scheme, host, p string) string {
	host = strings.ToLower(host)
	name, port := host, ""
	if i := strings.LastIndex(host, ":"); i >= 0 && !strings.Contains(host[i:], "]") {
		name, port = host[:i], host[i+1:]
	}
	name = strings.TrimSuffix(name, ".")
	if port != "" && port != defaultPorts(scheme) {
		name += ":" + port
	}
	var segs []string
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	p = strings.TrimSuffix(strings.Join(segs, "/"), ".git")
	return name + "/" + p
}

// SameSource reports whether two recorded sources name one repository or
// folder, as NormalSource reads them, in any letter case (as policies
// match them).
func SameSource(a, b string) bool { return strings.EqualFold(NormalSource(a), NormalSource(b)) }
