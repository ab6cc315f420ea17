package safefs

// Excerpt is at most n bytes of b, with "..." when it was cut: a piece of
// a stranger's output for a message (quote it where it may hold control
// characters).
func Excerpt(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
