package format

import (
	"strings"
	"unicode"
)

// A glob is text in which some places stand for any run of bytes: a rule's
// "*", and in a command what the shell fills in only when it runs (a
// variable, a file-name pattern). Matching two globs asks whether one text
// could fit both, so a command the shell has yet to expand still meets
// every rule that any of its expansions would meet.
type glob []int16

// anyText is the glob element that stands for any run of bytes.
const anyText int16 = -1

func (g glob) text(s string) glob {
	for i := 0; i < len(s); i++ {
		g = append(g, int16(s[i]))
	}
	return g
}

func (g glob) any() glob {
	if len(g) > 0 && g[len(g)-1] == anyText {
		return g
	}
	return append(g, anyText)
}

// overlap reports whether some text fits both a and b. Where one glob has
// a wildcard it may take the other's bytes, or its wildcards, or nothing;
// that is enough, as wildcards stand for any bytes. The table is
// len(a)*len(b), walked backwards one row at a time.
func overlap(a, b glob) bool {
	if len(b) > len(a) {
		a, b = b, a
	}
	m := len(b)
	next := make([]bool, m+1) // row i+1: can a[i+1:] and b[j:] meet?
	cur := make([]bool, m+1)
	next[m] = true
	for j := m - 1; j >= 0; j-- {
		next[j] = b[j] == anyText && next[j+1]
	}
	for i := len(a) - 1; i >= 0; i-- {
		cur[m] = a[i] == anyText && next[m]
		for j := m - 1; j >= 0; j-- {
			switch {
			case a[i] == anyText:
				cur[j] = next[j] || cur[j+1]
			case b[j] == anyText:
				cur[j] = cur[j+1] || next[j]
			default:
				cur[j] = a[i] == b[j] && next[j+1]
			}
		}
		next, cur = cur, next
	}
	return next[0]
}

// wildcard compiles a rule's specifier the way Claude Code 2.1.328 reads
// one (its function Xse), as the globs of which a text must fit one:
// white space around it is trimmed; with blanks, a run of spaces and tabs
// counts as one space (the text's runs are collapsed too: collapseBlanks);
// "\*" is a star and "\\" a backslash, any other backslash itself; "*" is
// any text; "/**/" (or "/**/**/"...) is one slash or any folders between
// two; the pattern spans the whole text; and a pattern whose one star
// ends it after a space also takes the text without " *" ("git push *"
// takes "git push", "git * *" does not take "git x"). A specifier holding
// a NUL takes nothing.
func wildcard(spec string, blanks bool) []glob {
	if strings.IndexByte(spec, 0) >= 0 {
		return nil
	}
	spec = strings.TrimFunc(spec, jsSpace)
	var g glob
	stars := 0
	for i := 0; i < len(spec); i++ {
		switch c := spec[i]; {
		case c == '\\' && i+1 < len(spec) && (spec[i+1] == '*' || spec[i+1] == '\\'):
			i++
			g = append(g, int16(spec[i]))
		case c == '*':
			stars++
			g = append(g, anyText)
		case blanks && (c == ' ' || c == '\t'):
			if len(g) == 0 || g[len(g)-1] != ' ' {
				g = append(g, ' ')
			}
		default:
			g = append(g, int16(c))
		}
	}
	g, folders := markFolderStars(g)
	alts := []glob{g}
	if n := len(g); stars == 1 && n >= 2 && g[n-2] == ' ' && g[n-1] == anyText {
		alts = append(alts, g[:n-2:n-2])
	}
	var out []glob
	for _, a := range alts {
		out = append(out, expandFolderStars(a, folders)...)
	}
	return out
}

// folderStars stands, inside wildcard, for "/(?:.*/)?": a slash, or a
// slash, any text and a slash.
const folderStars int16 = -2

// markFolderStars replaces each "/" followed by one or more "**/" with
// folderStars, and counts them.
func markFolderStars(g glob) (glob, int) {
	var out glob
	n := 0
	for i := 0; i < len(g); i++ {
		j := i + 1
		if g[i] == '/' {
			for j+2 < len(g) && g[j] == anyText && g[j+1] == anyText && g[j+2] == '/' {
				j += 3
			}
		}
		if j > i+1 {
			out = append(out, folderStars)
			n++
			i = j - 1
			continue
		}
		out = append(out, g[i])
	}
	return out, n
}

// maxFolderStars bounds the alternatives a specifier expands to (two per
// "/**/"); past it, each is read as "/" and any text, which takes more
// paths, never fewer.
const maxFolderStars = 6

// expandFolderStars returns the globs g stands for, one per choice of
// "/" or "/*/" at each folderStars.
func expandFolderStars(g glob, n int) []glob {
	out := []glob{nil}
	for _, c := range g {
		if c != folderStars {
			for i := range out {
				if c == anyText {
					out[i] = out[i].any()
				} else {
					out[i] = append(out[i], c)
				}
			}
			continue
		}
		if n > maxFolderStars {
			for i := range out {
				out[i] = append(out[i], '/').any()
			}
			continue
		}
		next := make([]glob, 0, 2*len(out))
		for _, o := range out {
			next = append(next, append(o[:len(o):len(o)], '/'), append(o[:len(o):len(o)], '/', anyText, '/'))
		}
		out = next
	}
	return out
}

// collapseBlanks makes each run of spaces and tabs in a command's text
// one space, as Claude does before it matches a glob rule. Next to text
// the shell fills in, a space is left to the wildcard: that text may hold
// or join blanks itself ("git $X push" may run as "git push").
func collapseBlanks(g glob) glob {
	out := make(glob, 0, len(g))
	for _, c := range g {
		switch {
		case c == ' ' || c == '\t':
			if n := len(out); n > 0 && (out[n-1] == ' ' || out[n-1] == anyText) {
				continue
			}
			out = append(out, ' ')
		case c == anyText:
			if n := len(out); n > 0 && out[n-1] == ' ' {
				out = out[:n-1]
			}
			out = out.any()
		default:
			out = append(out, c)
		}
	}
	return out
}

// fitsAny reports whether some text fits t and one of the globs.
func fitsAny(alts []glob, t glob) bool {
	for _, g := range alts {
		if overlap(g, t) {
			return true
		}
	}
	return false
}

// jsSpace is JavaScript's white space for String.prototype.trim: Go's
// unicode.IsSpace less U+0085, plus the byte order mark.
func jsSpace(r rune) bool {
	return r != 0x85 && unicode.IsSpace(r) || r == 0xfeff
}
