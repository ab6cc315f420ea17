package safefs

import (
	"strconv"
	"strings"
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
