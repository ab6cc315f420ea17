package plugins

import (
	"fmt"
	"net/netip"
	"net/url"
	"path/filepath"
	"strconv"
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
// another (github.com:443, github.com:0443, github.com., 127.1, evil//x):
// the host and port as the network code reads them (NormalHost), empty
// path segments dropped.
func normalHostPath(scheme, host, p string) string {
	var segs []string
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	p = strings.Join(segs, "/")
	// ".git" in any case, any number of times: hosts serve x.GIT and
	// x.git.git as x.
	for len(p) > 4 && strings.EqualFold(p[len(p)-4:], ".git") {
		p = p[:len(p)-4]
	}
	return NormalHost(scheme, host) + "/" + p
}

// NormalHost is a URL's host[:port] as the dialer reads it, in one
// spelling: lowercase; a port as its number (Go's dialer and git read
// "0443" as 443), dropped when it is the scheme's default; a fully
// qualified name's final dot dropped; an IPv4 address in any form the C
// resolver takes (127.1, 0x7f.0.0.1, 2130706433, 0177.0.0.1) as its
// dotted quad; an IPv6 address in its canonical form (an IPv4-mapped
// one as its IPv4 address). A port that is not
// a number is kept as written (nothing can dial it).
func NormalHost(scheme, host string) string {
	host = strings.ToLower(host)
	name, port := host, ""
	if i := strings.LastIndex(host, ":"); i >= 0 && !strings.Contains(host[i:], "]") {
		name, port = host[:i], host[i+1:]
	}
	if n, err := strconv.ParseUint(port, 10, 16); err == nil {
		port = strconv.FormatUint(n, 10)
	}
	switch {
	case strings.HasPrefix(name, "[") && strings.HasSuffix(name, "]"):
		if a, err := netip.ParseAddr(name[1 : len(name)-1]); err == nil {
			// An IPv4-mapped address (::ffff:127.0.0.1) is dialled as
			// the IPv4 address it carries.
			if a = a.Unmap(); a.Is4() {
				name = a.String()
			} else {
				name = "[" + a.String() + "]"
			}
		}
	default:
		name = strings.TrimSuffix(name, ".")
		if a, ok := inetAton(name); ok {
			name = a
		}
	}
	if port != "" && port != defaultPorts(scheme) {
		name += ":" + port
	}
	return name
}

// inetAton reads s as inet_aton(3) does, which getaddrinfo, and so git
// and ssh, apply to a host name before any lookup: one to four parts,
// each decimal, octal (a leading 0) or hex (0x), the last filling the
// remaining bytes. ok is false for anything else (a host name).
func inetAton(s string) (string, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return "", false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base, digits := 10, p
		switch {
		case len(p) > 1 && (p[:2] == "0x" || p[:2] == "0X"):
			base, digits = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		if digits == "" && base != 8 {
			return "", false
		}
		v := uint64(0)
		if digits != "" {
			var err error
			if v, err = strconv.ParseUint(digits, base, 32); err != nil {
				return "", false
			}
		}
		vals[i] = v
	}
	var addr uint64
	last := len(vals) - 1
	for i, v := range vals[:last] {
		if v > 0xff {
			return "", false
		}
		addr |= v << (24 - 8*i)
	}
	if vals[last] >= 1<<(8*(4-last)) {
		return "", false
	}
	addr |= vals[last]
	return fmt.Sprintf("%d.%d.%d.%d", addr>>24, addr>>16&0xff, addr>>8&0xff, addr&0xff), true
}

// SameSource reports whether two recorded sources name one repository or
// folder, as NormalSource reads them, in any letter case (as policies
// match them).
func SameSource(a, b string) bool { return strings.EqualFold(NormalSource(a), NormalSource(b)) }
