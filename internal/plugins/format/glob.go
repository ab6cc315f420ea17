package format

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
