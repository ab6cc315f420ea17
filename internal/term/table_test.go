package term

import (
	"bytes"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// tablewriterTable is how quiver rendered tables before issue 30, with
// olekukonko/tablewriter, whose package initialisation (an 8,192-entry
// width cache, a regexp) every run paid; Align must print the same.
func tablewriterTable(t *testing.T, header []string, rows [][]string) string {
	var buf bytes.Buffer
	tbl := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders:  tw.BorderNone,
			Settings: tw.Settings{Separators: tw.SeparatorsNone, Lines: tw.LinesNone},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithPadding(tw.Padding{Left: "", Right: "  ", Overwrite: true}),
	)
	tbl.Header(header)
	for _, r := range rows {
		if err := tbl.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := tbl.Render(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		trimmed := strings.TrimRight(line, " \n")
		if trimmed == "" && line == "" {
			continue
		}
		out.WriteString(trimmed + "\n")
	}
	return out.String()
}

// TestAlignTableAsTablewriter checks Align against tablewriter on
// tables of random cells (checkTables) in each environment that decides
// how wide East Asian ambiguous characters are. tablewriter reads the
// environment once, at start-up; its detection is re-run here through its
// exported functions, which compute the same (pkg/twwidth: EastAsianMode
// is detectEastAsian's decision, Debugging the modern-terminal check), and
// its widths set with SetOptions as its init sets them.
func TestAlignTableAsTablewriter(t *testing.T) {
	t.Cleanup(func() { twwidth.SetOptions(twwidth.Options{}) })
	vars := []string{"LANG", "LC_ALL", "LC_CTYPE", "TERM", "TERM_PROGRAM", "TERM_PROGRAM_WSL", "RUNEWIDTH_EASTASIAN",
		"VTE_VERSION", "ALACRITTY_LOG", "WT_PROFILE_ID", "ConEmuANSI"}
	for _, env := range []string{"", "RUNEWIDTH_EASTASIAN=1", "RUNEWIDTH_EASTASIAN=1 TERM=xterm", "RUNEWIDTH_EASTASIAN=On TERM=dumb",
		"LANG=ja_JP.UTF-8 TERM=dumb", "LANG=ja_JP.UTF-8 TERM=xterm-256color", "LANG=ko_KR TERM=tmux-256color", "LC_ALL=en_HK TERM=linux",
		"LC_CTYPE=zh_CN.gbk@x", "LANG=C", "LANG=POSIX LC_CTYPE=ja_JP", "LC_ALL=C LANG=ja_JP", "RUNEWIDTH_EASTASIAN=off LANG=ko_KR",
		"RUNEWIDTH_EASTASIAN=maybe LANG=Chinese", "LANG=zh_TW TERM_PROGRAM=vscode", "LANG=zh TERM_PROGRAM=Apple_Terminal",
		"LANG=ja VTE_VERSION=1", "LANG=ja ALACRITTY_LOG=/tmp/x", "RUNEWIDTH_EASTASIAN=yes TERM_PROGRAM_WSL=1",
		"RUNEWIDTH_EASTASIAN=1 TERM=xterm-mono", "LANG=en_SG.UTF-8 TERM=XTERM-Kitty", "LANG=kor_KP TERM=screen.linux"} {
		t.Run(env, func(t *testing.T) {
			for _, v := range vars {
				t.Setenv(v, "") // tablewriter and Align alike take empty for unset
			}
			for _, kv := range strings.Fields(env) {
				name, value, _ := strings.Cut(kv, "=")
				t.Setenv(name, value)
			}
			mode := twwidth.EastAsianMode()
			wide := mode == "override_on" || mode == "locale_cjk"
			twwidth.SetOptions(twwidth.Options{EastAsianWidth: wide, ForceNarrowBorders: wide && twwidth.Debugging().Derived.IsModernEnv})
			checkTables(t, 200)
		})
	}
}

// checkTables compares Align with tablewriter on n tables of random
// cells: wide, ambiguous, combining, box-drawing and zero-width
// characters, emoji, blanks around and inside cells, empty cells, long
// descriptions, after visible() as writeTable applies it.
func checkTables(t *testing.T, n int) {
	pieces := []string{"a", "hook", "org/plugin", " ", "  ", "-", "é", "e\u0301", "日本", "한", "±", "…", "°", "→", "─", "╋", "\u200b", "\u00ad",
		"👍", "👍🏽", "🇫🇷", "❤️", "\t", "\n", "\x1b[31m", "\u00a0", "\u3000", "x\u0308", "ｶ", "Ω", "\U0001F600", "\u2028", "0.1.0", "active", "untrusted"}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, seed))
	cell := func() string {
		var b strings.Builder
		for n := r.IntN(6); n > 0; n-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		if r.IntN(20) == 0 {
			b.WriteString(strings.Repeat("a long description, ", 10))
		}
		return safefs.Visible(b.String())
	}
	for range n {
		cols := 1 + r.IntN(6)
		header := make([]string, cols)
		for i := range header {
			header[i] = strings.ToUpper(cell())
		}
		rows := make([][]string, 1+r.IntN(4))
		for i := range rows {
			rows[i] = make([]string, cols)
			for j := range rows[i] {
				rows[i][j] = cell()
			}
		}
		want := tablewriterTable(t, header, rows)
		if got := Align(header, rows, os.Getenv); got != want {
			t.Fatalf("header %q rows %q:\ngot\n%s\nwant\n%s", header, rows, got, want)
		}
	}
}

// TestAlignColored: whole cells of rows named in the map are colored;
// the header, the first column, and a word inside a longer cell ("0
// failed") stay plain, and the columns stay where Align puts them.
func TestAlignColored(t *testing.T) {
	none := func(string) string { return "" }
	header := []string{"NAME", "STATUS", "MESSAGE"}
	rows := [][]string{{"a", "failed", "ok"}, {"failed", "ok", "0 failed"}}
	colors := map[string]string{"failed": "<r>", "STATUS": "<h>"}
	got := AlignColored(header, rows, none, func(w string) string { return colors[w] }, "</>")
	want := "NAME    STATUS  MESSAGE\na       <r>failed</>  ok\nfailed  ok      0 failed\n"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if plain := Align(header, rows, none); plain != strings.NewReplacer("<r>", "", "</>", "").Replace(want) {
		t.Errorf("Align and AlignColored place columns apart:\n%q", plain)
	}
}
