package term

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Status is one line on a terminal that says what is under way: each
// Show replaces it, Clear erases it, so the lines printed before and
// after it are all that stays on the screen.
type Status struct {
	W io.Writer
	// Getenv reads COLUMNS, the terminal's width (80 when unset); a
	// line longer than that would wrap, and a carriage return would
	// then redraw only its last row.
	Getenv func(string) string

	mu    sync.Mutex
	shown bool
}

// Show replaces the line with line, cut to the terminal's width.
func (s *Status) Show(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.W, "\r\x1b[K%s", cut(line, s.width()-1))
	s.shown = true
}

// Clear erases the line, if one is shown.
func (s *Status) Clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shown {
		io.WriteString(s.W, "\r\x1b[K")
		s.shown = false
	}
}

func (s *Status) width() int {
	if s.Getenv != nil {
		if n, err := strconv.Atoi(s.Getenv("COLUMNS")); err == nil && n >= 20 {
			return n
		}
	}
	return 80
}

// cut is line in at most n characters, "..." ending a line that was cut;
// control characters are dropped (a name could hold one).
func cut(line string, n int) string {
	line = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || 0x80 <= r && r < 0xa0 {
			return -1
		}
		return r
	}, line)
	if utf8.RuneCountInString(line) <= n {
		return line
	}
	runes := []rune(line)
	return string(runes[:max(0, n-3)]) + "..."
}
