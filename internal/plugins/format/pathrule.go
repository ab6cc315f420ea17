package format

import (
	"errors"
	"path"
	"regexp"
	"strings"
)

// pathRule is a file tool's rule (Read, Edit, Write, NotebookEdit) read as
// Claude Code 2.1.328 reads one (its function R0t): a gitignore pattern
// below a root, "//x" below "/", "~/x" below the home folder, "/x" below
// the project, "./x" and anything else below cwd, matched against the
// file's path relative to that root or a folder the file is in, ignoring
// case; and a rule that starts with "*" or has no wildcard also matches
// when it fits the file_path exactly as the call wrote it (see wildcard).
// So Edit(*.ts) takes a .ts file anywhere, Edit(src) anything in a folder
// src below cwd, and Edit(/etc/hosts) the file_path "/etc/hosts".
type pathRule struct {
	root     string         // "/", "~", "project" or "cwd"
	ignore   *regexp.Regexp // nil: the pattern ignores nothing
	fallback []glob         // nil: no fallback
}

// errUnreadable is a pattern that Claude's gitignore matcher turns into
// an expression quiver does not copy: a bracket set holding a wildcard,
// a slash or a backslash, or an escape such as \s or \x41 that its
// expressions read as a class or a code.
var errUnreadable = errors.New("its brackets or escapes are read by Claude in a way quiver does not copy")

func parsePathRule(rule string) (pathRule, error) {
	pattern, r := rule, pathRule{root: "cwd"}
	switch {
	case strings.HasPrefix(rule, "//"):
		pattern, r.root = rule[1:], "/"
	case strings.HasPrefix(rule, "~/"):
		pattern, r.root = rule[1:], "~"
	case strings.HasPrefix(rule, "/"):
		r.root = "project"
	case strings.HasPrefix(rule, "./"):
		pattern = rule[2:]
	}
	for strings.Contains(pattern, "//") {
		pattern = strings.ReplaceAll(pattern, "//", "/")
	}
	var err error
	if r.ignore, err = gitignoreRegexp(folderPattern(pattern)); err != nil {
		return r, err
	}
	trimmed := strings.TrimFunc(rule, jsSpace)
	if strings.HasPrefix(trimmed, "*") || !hasUnescapedStar(trimmed) && !strings.HasSuffix(trimmed, ":*") {
		r.fallback = wildcard(rule, false)
	}
	return r, nil
}

// folderPattern is Claude's own step before its matcher: "src/**" is
// "/src", the folder and everything below it.
func folderPattern(p string) string {
	head, ok := strings.CutSuffix(p, "/**")
	switch {
	case !ok:
		return p
	case strings.Trim(head, "/") == "":
		return "/**"
	case strings.Contains(head, "/") || strings.HasPrefix(head, "!") || strings.HasPrefix(head, "#"):
		return head
	}
	return "/" + head
}

// match reports whether the rule takes the file a call names, for a
// session in cwd: as Claude does (claude), or when the fallback fits the
// file's clean absolute path. Claude fits the fallback to file_path as
// written only, so that "/etc/../etc/hosts", or "hosts" in /etc, slips
// past Edit(/etc/hosts); quiver runs that guard.
func (r pathRule) match(file, cwd, project, home string) bool {
	abs := absolute(file, cwd, home)
	return r.claude(file, abs, cwd, project, home) || fitsAny(r.fallback, glob(nil).text(abs))
}

// claude is Claude's verdict on a file, abs its clean absolute path.
func (r pathRule) claude(file, abs, cwd, project, home string) bool {
	root := map[string]string{"/": "/", "~": home, "project": project, "cwd": cwd}[r.root]
	if r.ignore != nil && path.IsAbs(root) {
		if rel, ok := below(path.Clean(root), abs); ok && ignores(r.ignore, rel) {
			return true
		}
	}
	return fitsAny(r.fallback, glob(nil).text(file))
}

// absolute is a call's file as a clean absolute path: "~/" in the home
// folder, a relative path in cwd.
func absolute(file, cwd, home string) string {
	if rest, ok := strings.CutPrefix(file, "~/"); ok && home != "" {
		file = path.Join(home, rest)
	}
	if !path.IsAbs(file) {
		file = path.Join(cwd, file)
	}
	return path.Clean(file)
}

// below returns target relative to base when it is strictly below it.
func below(base, target string) (string, bool) {
	if base == "/" {
		return target[1:], target != "/"
	}
	rest, ok := strings.CutPrefix(target, base+"/")
	return rest, ok
}

// ignores reports whether the expression of a gitignore pattern matches
// rel or a folder above it ("a/", "a/b/"), as Claude's matcher tests.
func ignores(re *regexp.Regexp, rel string) bool {
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' && re.MatchString(rel[:i+1]) {
			return true
		}
	}
	return re.MatchString(rel)
}

// hasUnescapedStar is Claude's test for a wildcard rule (its s0i): a star
// after an even number of backslashes, in a rule not ending in ":*".
func hasUnescapedStar(s string) bool {
	if strings.HasSuffix(s, ":*") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '*' {
			continue
		}
		n := 0
		for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return true
		}
	}
	return false
}

// gitignoreRegexp translates one gitignore pattern into the expression
// Claude's matcher builds for it (its function gi), nil when the pattern
// ignores nothing: a blank pattern, a comment, a negation (alone in its
// file), one ending in a lone backslash, one that makes no valid
// expression. A pattern with a slash before its end is anchored at the
// root, one without matches at any depth; a trailing slash matches
// folders only; "*" and "?" stay within a folder, "**/" at the start and
// "/**/" span any folders, "/**" at the end is everything below; "[...]"
// is a set of characters (never negated); case is ignored.
func gitignoreRegexp(p string) (*regexp.Regexp, error) {
	if strings.TrimSpace(p) == "" || p[0] == '#' || p[0] == '!' ||
		strings.HasSuffix(p, `\`) && !strings.HasSuffix(p, `\\`) {
		return nil, nil
	}
	if p[0] == '\\' && len(p) > 1 && (p[1] == '!' || p[1] == '#') {
		p = p[1:]
	}
	o := strings.TrimRightFunc(p, jsSpace)
	if o != p && strings.HasSuffix(o, `\`) { // "x\ " keeps its escaped space
		o += " "
	}
	var b strings.Builder
	b.WriteString("(?i)")
	switch {
	case strings.HasPrefix(o, "**/"), strings.HasPrefix(o, "/**/"):
		b.WriteString(`^(?:.*/)?`)
		o = o[strings.Index(o, "**/")+3:]
	case strings.HasPrefix(o, "/"):
		b.WriteString("^")
		o = o[1:]
	case strings.Contains(strings.TrimSuffix(p, "/"), "/"):
		b.WriteString("^")
	default:
		b.WriteString(`(?:^|/)`)
	}
	dirOnly := strings.HasSuffix(o, "/")
	prev := byte(0)
	for i := 0; i < len(o); i++ {
		c := o[i]
		switch {
		case c == '\\':
			// Claude's matcher reads a run of backslashes together with
			// what follows it.
			j := i
			for j < len(o) && o[j] == '\\' {
				j++
			}
			d := j - i
			b.WriteString(strings.Repeat(`\\`, d/2))
			i = j - 1
			if j == len(o) {
				break
			}
			switch next := o[j]; {
			case next == '*' && j+1 == len(o):
				if d > 1 {
					return nil, errUnreadable
				}
				// An escaped star that ends the pattern is a star all the same.
				b.WriteString(starAtEnd(prev))
				i = j
			case next == '*' && d%2 == 0:
				b.WriteString("*") // the star repeats the backslash before it
				i = j
			case d%2 == 0:
			case next == '/' || next == '?' || next == '[':
				return nil, errUnreadable
			default:
				esc, err := jsEscape(next)
				if err != nil {
					return nil, err
				}
				b.WriteString(esc)
				i = j
			}
		case c == '/' && strings.HasPrefix(o[i:], "/**") && (i+3 == len(o) || o[i+3] == '/'):
			if i+3 == len(o) {
				b.WriteString(`/.+`)
			} else {
				b.WriteString(`(?:/[^/]+)*`)
			}
			i += 2
		case c == '*':
			j := i
			for j < len(o) && o[j] == '*' {
				j++
			}
			if j == len(o) && j-i == 1 {
				b.WriteString(starAtEnd(prev))
			} else {
				b.WriteString(`[^/]*`)
			}
			i = j - 1
		case c == '?':
			b.WriteString(`[^/]`)
		case c == '[':
			set, ok := bracketSet(o[i+1:])
			if !ok {
				return nil, errUnreadable
			}
			if set == "" {
				return nil, nil // an empty or unclosed set matches nothing
			}
			b.WriteString(set)
			i += strings.IndexByte(o[i:], ']')
		default:
			b.WriteString(regexp.QuoteMeta(o[i : i+1]))
		}
		prev = c
	}
	if dirOnly {
		b.WriteString("$")
	} else {
		b.WriteString("(?:$|/$)")
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, nil
	}
	return re, nil
}

// starAtEnd is a "*" that ends a pattern: at least one character right
// after a slash ("src/*" is not "src/"), else any.
func starAtEnd(prev byte) string {
	if prev == '/' {
		return `[^/]+`
	}
	return `[^/]*`
}

// bracketSet reads the set that follows a "[" up to its "]" and returns
// it as an expression: the characters and ranges as written, a reversed
// range dropped as Claude drops it. It returns "" for a set that matches
// nothing (empty, or never closed before the pattern ends), ok false for
// one Claude reads otherwise (a wildcard, slash, backslash or "[" inside).
func bracketSet(s string) (set string, ok bool) {
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return "", !strings.ContainsAny(s, `*?/\`)
	}
	body := s[:end]
	if strings.ContainsAny(body, `*?/\[`) {
		return "", false
	}
	var b strings.Builder
	for k := 0; k < len(body); k++ {
		if k+2 < len(body) && body[k+1] == '-' {
			if body[k] <= body[k+2] {
				b.WriteString(regexp.QuoteMeta(body[k:k+1]) + "-" + regexp.QuoteMeta(body[k+2:k+3]))
			}
			k += 2
			continue
		}
		b.WriteString(regexp.QuoteMeta(body[k : k+1]))
	}
	if b.Len() == 0 {
		return "", true
	}
	return "[" + b.String() + "]", true
}

// jsEscape is what a backslash and c mean in the JavaScript expressions
// Claude's matcher builds: a class (\d, \w, \b...) or control character
// (\n, \t...) where JavaScript has one, else c itself.
func jsEscape(c byte) (string, error) {
	switch c {
	case 'b', 'B', 'd', 'D', 'w', 'W', 'n', 't', 'r', 'f', 'v':
		return `\` + string(c), nil
	case 's', 'S', 'c', 'x', 'u', 'k', 'p', 'P', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return "", errUnreadable
	}
	return regexp.QuoteMeta(string(c)), nil
}
