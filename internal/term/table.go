// Package term is what quiver prints: tables aligned as the terminal
// shows them, colored only where a person reads them, JSON for programs,
// and one-line errors and notices that never drive the terminal nor show
// a credential.
package term

import (
	"runtime"
	"slices"
	"strings"

	"github.com/clipperhouse/displaywidth"
)

// Align renders rows under a header as plain left-aligned columns,
// two blanks apart, without trailing blanks. It prints what
// olekukonko/tablewriter printed for quiver (TestAlignTableAsTablewriter
// holds the two together, its widths included) without that package's
// initialisation (an 8,192-entry width cache, regexps), which every run
// of quiver paid, hook run included. getenv says, as it said to
// tablewriter, whether the terminal counts East Asian ambiguous
// characters as wide.
func Align(header []string, rows [][]string, getenv func(string) string) string {
	return AlignColored(header, rows, getenv, nil, "")
}

// AlignColored is Align with the cells of rows (never the header, nor
// the first column, which names things) whose whole text colors gives an
// escape for wrapped in it and reset: a status column's "invalid" is
// red, the word inside a message ("0 invalid") is not. The escapes never
// count as width.
func AlignColored(header []string, rows [][]string, getenv func(string) string, colors func(cell string) string, reset string) string {
	width := cellWidth(getenv)
	all := append([][]string{header}, rows...)
	var widths []int
	for _, r := range all {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], width(strings.TrimSpace(c)))
		}
	}
	var b strings.Builder
	for n, r := range all {
		var line strings.Builder
		for i, c := range r {
			c = strings.TrimSpace(c)
			pad := strings.Repeat(" ", widths[i]-width(c)+2)
			if color := ""; n > 0 && i > 0 && colors != nil {
				if color = colors(c); color != "" {
					c = color + c + reset
				}
			}
			line.WriteString(c)
			line.WriteString(pad)
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// cellWidth returns the width of a cell on the terminal, summed rune by
// rune as tablewriter's twwidth sums it: East Asian ambiguous characters
// are wide where eastAsian says so, and box-drawing ones then narrow in a
// modern terminal.
func cellWidth(getenv func(string) string) func(string) int {
	wide := eastAsian(getenv)
	opts := displaywidth.Options{EastAsianWidth: wide}
	narrowBoxes := wide && modernTerminal(getenv)
	return func(s string) int {
		w := 0
		for _, r := range s {
			if narrowBoxes && r >= 0x2500 && r <= 0x257F {
				w++
				continue
			}
			w += opts.Rune(r)
		}
		return w
	}
}

// eastAsian is tablewriter's (v1.1.5, pkg/twwidth, MIT) detection of a
// terminal that draws East Asian ambiguous characters wide:
// RUNEWIDTH_EASTASIAN says so, else a modern terminal does not, else a
// CJK locale does.
func eastAsian(getenv func(string) string) bool {
	switch strings.ToLower(getenv("RUNEWIDTH_EASTASIAN")) {
	case "0", "off", "false", "no":
		return false
	case "1", "on", "true", "yes":
		return true
	}
	if modernTerminal(getenv) {
		return false
	}
	locale := getenv("LC_ALL")
	if locale == "" {
		locale = getenv("LC_CTYPE")
	}
	if locale == "" {
		locale = getenv("LANG")
	}
	if locale == "" || locale == "C" || locale == "POSIX" {
		return false
	}
	locale, _, _ = strings.Cut(locale, ".")
	locale, _, _ = strings.Cut(locale, "@")
	locale = strings.ToLower(locale)
	for _, p := range []string{"zh", "ja", "ko", "chi", "zho", "jpn", "kor", "chinese", "japanese", "korean"} {
		if strings.HasPrefix(locale, p) {
			return true
		}
	}
	parts := strings.Split(locale, "_")
	return slices.ContainsFunc(parts[1:], func(region string) bool {
		return slices.Contains([]string{"cn", "tw", "hk", "mo", "jp", "kr", "kp", "sg"}, region)
	})
}

// modernTerminals are the terminals tablewriter takes to draw ambiguous
// characters narrow, by TERM_PROGRAM or TERM.
var modernTerminals = []string{"vscode", "visual studio code", "iterm.app", "iterm2", "windows terminal", "windowsterminal",
	"alacritty", "kitty", "hyper", "tabby", "terminus", "fluentterminal", "warp", "ghostty", "rio", "jetbrains-jediterm",
	"xterm-kitty", "xterm-ghostty", "wezterm"}

// modernTerminal is tablewriter's detection of a modern terminal.
func modernTerminal(getenv func(string) string) bool {
	if p := getenv("TERM_PROGRAM"); p != "" && slices.Contains(modernTerminals, strings.ToLower(p)) {
		return true
	}
	if getenv("TERM_PROGRAM_WSL") != "" {
		return true
	}
	term := strings.ToLower(getenv("TERM"))
	if runtime.GOOS == "windows" {
		if getenv("WT_PROFILE_ID") != "" || getenv("ConEmuANSI") == "ON" ||
			strings.Contains(term, "xterm") || strings.Contains(term, "vt") {
			return true
		}
	}
	if getenv("VTE_VERSION") != "" || getenv("ALACRITTY_LOG") != "" {
		return true
	}
	if term == "" {
		return false
	}
	return slices.Contains(modernTerminals, term) ||
		strings.Contains(term, "xterm") && !strings.Contains(term, "xterm-mono") ||
		strings.Contains(term, "screen") || strings.Contains(term, "tmux")
}
