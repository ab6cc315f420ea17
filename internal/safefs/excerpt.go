package safefs

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Visible makes control characters (terminal escapes, newlines, NUL) and
// invisible formatting ones (bidi overrides, zero-width spaces) of s
// visible as Go escapes, so that text other people wrote (names,
// descriptions, reasons) can never drive the user's terminal.
func Visible(s string) string {
	if strings.IndexFunc(s, Deceptive) < 0 {
		return s
	}
	q := strconv.QuoteToGraphic(s)
	return q[1 : len(q)-1]
}

// VisibleText is Visible for a text of many lines: newlines and tabs
// stay, every other deceptive character (an escape, a bidi override, an
// invalid byte) becomes its Go escape, and the rest is left as it is.
func VisibleText(s string) string {
	shown := func(r rune) bool { return r == '\n' || r == '\t' || !Deceptive(r) }
	if strings.IndexFunc(s, func(r rune) bool { return !shown(r) }) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case shown(r):
			b.WriteString(s[i : i+size])
		default:
			q := strconv.QuoteRuneToGraphic(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}

// Excerpt is at most n bytes of b, with "..." when it was cut: a piece of
// a stranger's output for a message (quote it where it may hold control
// characters).
func Excerpt(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// Cut is s cut to at most n bytes on a rune boundary, nothing added: a
// hook's text kept within a limit.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n]
}
