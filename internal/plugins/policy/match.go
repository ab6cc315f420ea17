package policy

import (
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// marketplacePrefix starts a pattern (and a form of a plugin's source)
// that names the marketplace an entry came from: marketplace:SOURCE, with
// the marketplace's normalised source, never the name it was added under.
const marketplacePrefix = "marketplace:"

// Match reports whether a pattern of sources or marketplaces matches a
// normalised source (plugins.NormalSource, or marketplace:SOURCE), in any
// letter case. Both are split at "/": a pattern segment "**" matches any
// number of segments, none included; "*" within a segment matches any
// text of that one segment ("github.com/acme/*", "127.0.0.1:*/acme/x",
// "github.com/acme/tools-*"). Every other character matches itself.
func Match(pattern, source string) bool {
	ps := collapse(strings.Split(strings.ToLower(pattern), "/"))
	ss := strings.Split(strings.ToLower(source), "/")
	// ok[j] says whether ps[i:] matches ss[j:], for i from the end: one
	// row at a time, so a pattern full of ** costs len(ps)*len(ss).
	ok := make([]bool, len(ss)+1)
	ok[len(ss)] = true
	for i := len(ps) - 1; i >= 0; i-- {
		next := ok
		ok = make([]bool, len(ss)+1)
		if ps[i] == "**" {
			// ** takes none of ss[j:] (next[j]) or one more (ok[j+1]).
			ok[len(ss)] = next[len(ss)]
			for j := len(ss) - 1; j >= 0; j-- {
				ok[j] = next[j] || ok[j+1]
			}
			continue
		}
		for j := len(ss) - 1; j >= 0; j-- {
			ok[j] = next[j+1] && wildcard(ps[i], ss[j])
		}
	}
	return ok[0]
}

// collapse makes runs of "**" segments one: they match what one does.
func collapse(segs []string) []string {
	out := segs[:0:0]
	for i, s := range segs {
		if s == "**" && i > 0 && segs[i-1] == "**" {
			continue
		}
		out = append(out, s)
	}
	return out
}

// MatchText reports whether a pattern of hooks.http_urls or mcp.allow
// matches s exactly, where "*" is any text, "/" included (Claude Code's
// allowedHttpHookUrls habit): "http://127.0.0.1:*", "npx -y @acme/*".
func MatchText(pattern, s string) bool { return wildcard(pattern, s) }

// wildcard matches s against p, in which '*' is any run of bytes: the
// linear greedy match with one backtrack point, which is exact for a
// pattern whose only wildcard is '*'.
func wildcard(p, s string) bool {
	i, j := 0, 0
	star, mark := -1, 0
	for j < len(s) {
		switch {
		case i < len(p) && p[i] == '*':
			star, mark = i, j
			i++
		case i < len(p) && p[i] == s[j]:
			i++
			j++
		case star >= 0:
			mark++
			i, j = star+1, mark
		default:
			return false
		}
	}
	for i < len(p) && p[i] == '*' {
		i++
	}
	return i == len(p)
}

// normalSourcePattern is a source pattern as sources are normalised
// (plugins.NormalSource): without a scheme, credentials, query, fragment,
// trailing "/" or ".git", its host and port read as the dialer reads them
// (github.com:0443 is github.com) unless the host holds a wildcard. The
// pattern is already lowercase.
func normalSourcePattern(v string) string {
	scheme := ""
	if i := strings.Index(v, "://"); i >= 0 {
		scheme, v = v[:i], v[i+3:]
		host, _, _ := strings.Cut(v, "/")
		if at := strings.LastIndex(host, "@"); at >= 0 {
			v = v[at+1:]
		}
	}
	if i := strings.IndexAny(v, "?#"); i >= 0 {
		v = v[:i]
	}
	v = strings.TrimRight(v, "/")
	for strings.HasSuffix(v, ".git") {
		v = strings.TrimSuffix(v, ".git")
	}
	host, rest, found := strings.Cut(v, "/")
	if strings.Contains(host, "*") || strings.HasPrefix(v, "local:") {
		return v
	}
	host = plugins.NormalHost(scheme, host)
	if found {
		return host + "/" + rest
	}
	return host
}

// A "*" of an mcp.allow command-line pattern stands for no text that
// names other code than the pattern does (MatchCommandLine): "npx -y
// @modelcontextprotocol/*" admits "npx -y @modelcontextprotocol/server-memory"
// and "...server-memory@1.2.3", never "...server-memory@file:${CLAUDE_PLUGIN_ROOT}/pkg",
// "...@npm:evil", "...@HTTP://host/x.tgz", "...@evil/repo" (GitHub) or
// "...@evil.tgz". What a "*" stands for may not hold:
//
//   - a reference to the plugin's own folders (${CLAUDE_PLUGIN_ROOT},
//     ${CLAUDE_PLUGIN_DATA}), which hold code the plugin ships;
//   - a colon, in any case and form: every scheme a package runner takes
//     (file:, link:, npm:, git+ssh:, github:, https:) and scp-like
//     git@host:path has one;
//   - an "@" inside a word (a package's version) followed by anything but
//     a version or a tag: a path (evil/repo, ./pkg, ~/x), or a file name
//     of an archive (x.tgz, x.tar.gz).
//
// A pattern that names such a form itself
// ("uvx --from git+https://github.com/oraios/serena serena *") admits it:
// the text is the pattern's, not the wildcard's.

// spanForbidden returns, for each position of s, the end of the nearest
// forbidden text that starts there or later (len(s)+1 for none): a "*"
// starting at j may stand for s[j:k] only for k < end[j].
func spanForbidden(s string) []int {
	lower := strings.ToLower(s)
	end := make([]int, len(s)+2)
	end[len(s)] = len(s) + 1
	end[len(s)+1] = len(s) + 1
	for j := len(s) - 1; j >= 0; j-- {
		end[j] = end[j+1]
		at := func(n int) {
			if j+n < end[j] {
				end[j] = j + n
			}
		}
		switch {
		case s[j] == ':':
			at(1)
		case strings.HasPrefix(lower[j:], "${claude_plugin_root"), strings.HasPrefix(lower[j:], "${claude_plugin_data"):
			at(len("${claude_plugin_root"))
		case s[j] == '@' && j > 0 && s[j-1] != ' ' && !versionWord(wordAt(s, j+1)):
			at(1)
		}
	}
	return end
}

// wordAt is the text of s from i to the next white space.
func wordAt(s string, i int) string {
	if e := strings.IndexAny(s[i:], " \t"); e >= 0 {
		return s[i : i+e]
	}
	return s[i:]
}

// versionWord reports a package version, range or tag: letters, digits
// and . + - ^ ~ < > = * | x, no path and no archive's name.
func versionWord(w string) bool {
	if w == "" {
		return false
	}
	l := strings.ToLower(w)
	if strings.HasSuffix(l, ".tgz") || strings.HasSuffix(l, ".tar") || strings.HasSuffix(l, ".tar.gz") || strings.HasSuffix(l, ".zip") {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".+-^~<>=*|", r)) {
			return false
		}
	}
	return true
}

// MatchCommandLine reports whether an mcp.allow pattern admits a command
// line: MatchText, with no "*" standing for text that names other code
// (see above).
func MatchCommandLine(pattern, s string) bool {
	end := spanForbidden(s)
	// ok[j]: pattern[i:] matches s[j:], for i from the end, one row at a
	// time.
	ok := make([]bool, len(s)+1)
	ok[len(s)] = true
	for i := len(pattern) - 1; i >= 0; i-- {
		next := ok
		ok = make([]bool, len(s)+1)
		if pattern[i] == '*' {
			// nearest[j] is the first k >= j with next[k].
			nearest := make([]int, len(s)+2)
			nearest[len(s)+1] = len(s) + 1
			for k := len(s); k >= 0; k-- {
				nearest[k] = nearest[k+1]
				if next[k] {
					nearest[k] = k
				}
			}
			for j := 0; j <= len(s); j++ {
				ok[j] = nearest[j] <= len(s) && nearest[j] < end[j]
			}
			continue
		}
		for j := len(s) - 1; j >= 0; j-- {
			ok[j] = next[j+1] && pattern[i] == s[j]
		}
	}
	return ok[0]
}
