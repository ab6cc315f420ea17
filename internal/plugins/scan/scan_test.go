package scan

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// TestBoundaries checks the first and last code point of every range of
// SPEC §17's table, and the neighbours just outside.
func TestBoundaries(t *testing.T) {
	tests := []struct {
		r    rune
		rule string // "" is no finding
	}{
		// critical: tag characters
		{0xE0000, ""}, {0xE0001, RuleTag}, {0xE0041, RuleTag}, {0xE007F, RuleTag}, {0xE0080, ""},
		// critical: bidi overrides and isolates
		{0x2029, ""}, {0x202A, RuleBidi}, {0x202E, RuleBidi}, {0x202F, ""},
		{0x2065, ""}, {0x2066, RuleBidi}, {0x2069, RuleBidi}, {0x206A, RuleDeprecatedFormat},
		// critical: variation selectors 17–256
		{0xE00FF, ""}, {0xE0100, RuleVariationSelector}, {0xE01EF, RuleVariationSelector}, {0xE01F0, ""},
		// warning: zero-width
		{0x200A, ""}, {0x200B, RuleZeroWidth}, {0x200D, RuleZeroWidth}, {0x200E, RuleBidiMark},
		{0x205F, ""}, {0x2060, RuleZeroWidth}, {0x2061, RuleInvisibleOperator},
		// warning: variation selectors 1–15 (16, FE0F, asks for emoji: no finding)
		{0xFDFF, ""}, {0xFE00, RuleVariationSelectorBMP}, {0xFE0E, RuleVariationSelectorBMP}, {0xFE0F, ""},
		// warning: soft hyphen
		{0xAC, ""}, {0xAD, RuleSoftHyphen}, {0xAE, ""},
		// warning: bidi marks
		{0x200F, RuleBidiMark}, {0x2010, ""},
		{0x061B, ""}, {0x061C, RuleBidiMark}, {0x061D, ""},
		// warning: invisible operators
		{0x2064, RuleInvisibleOperator},
		// warning: interlinear annotation
		{0xFFF8, ""}, {0xFFF9, RuleAnnotation}, {0xFFFB, RuleAnnotation}, {0xFFFC, ""},
		// warning: deprecated format characters
		{0x206F, RuleDeprecatedFormat}, {0x2070, ""},
		// warning: a BOM after the start
		{0xFEFE, ""}, {0xFEFF, RuleBOM}, {0xFF00, ""},
		// plain text
		{'a', ""}, {'\u00e9', ""}, {0x1F600, ""},
	}
	for _, tt := range tests {
		t.Run(code(tt.r), func(t *testing.T) {
			got := Text("f", []byte("ab"+string(tt.r)+"c\n"))
			if tt.rule == "" {
				if len(got) != 0 {
					t.Fatalf("found %v", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("found %d findings, want 1: %v", len(got), got)
			}
			f := got[0]
			if f.Rule != tt.rule || f.Line != 1 || f.Column != 3 || f.CodePoint != code(tt.r) || f.Count != 1 {
				t.Fatalf("got %+v, want %s at 1:3", f, tt.rule)
			}
			want := Warning
			if tt.rule == RuleTag || tt.rule == RuleBidi || tt.rule == RuleVariationSelector {
				want = Critical
			}
			if f.Severity != want {
				t.Fatalf("severity %s, want %s", f.Severity, want)
			}
		})
	}
}

func code(r rune) string { return fmt.Sprintf("U+%04X", r) }

func TestPositions(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []Finding
	}{
		{"bom at start", "\uFEFFhello\n", nil},
		{"bom later", "\uFEFFhi\n\uFEFF", []Finding{{Rule: RuleBOM, Line: 2, Column: 1, CodePoint: "U+FEFF", Count: 1}}},
		{"columns count characters", "é€😀\u200Bx", []Finding{{Rule: RuleZeroWidth, Line: 1, Column: 4, CodePoint: "U+200B", Count: 1}}},
		{"second line after crlf", "ab\r\nc\u202Ed", []Finding{{Rule: RuleBidi, Line: 2, Column: 2, CodePoint: "U+202E", Count: 1}}},
		{"a run is one finding", "x" + tags("hi") + "y", []Finding{{Rule: RuleTag, Line: 1, Column: 2, CodePoint: "U+E0068", Count: 2, Hidden: "hi"}}},
		{"different rules are two findings", "\u200B\u200E", []Finding{
			{Rule: RuleZeroWidth, Line: 1, Column: 1, CodePoint: "U+200B", Count: 1},
			{Rule: RuleBidiMark, Line: 1, Column: 2, CodePoint: "U+200E", Count: 1},
		}},
		{"a run ends at a newline", "\u200B\n\u200B", []Finding{
			{Rule: RuleZeroWidth, Line: 1, Column: 1, CodePoint: "U+200B", Count: 1},
			{Rule: RuleZeroWidth, Line: 2, Column: 1, CodePoint: "U+200B", Count: 1},
		}},
		{"zwj between emoji", "👩\u200D💻 ❤\uFE0F\u200D🔥 👋🏽\u200D👍", nil},
		{"zwj in a word", "pass\u200Dword", []Finding{{Rule: RuleZeroWidth, Line: 1, Column: 5, CodePoint: "U+200D", Count: 1}}},
		{"zwj after emoji before text", "👩\u200Dx", []Finding{{Rule: RuleZeroWidth, Line: 1, Column: 2, CodePoint: "U+200D", Count: 1}}},
		{"invalid utf-8 is scanned", "a\xff\xfeb\u202Ec", []Finding{{Rule: RuleBidi, Line: 1, Column: 5, CodePoint: "U+202E", Count: 1}}},
		{"binary is skipped", "a\x00b\u202Ec", nil},
		{"utf-16 is binary", "\xff\xfeh\x00i\x00", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Text("f", []byte(tt.text))
			for i := range got {
				got[i].File, got[i].Severity, got[i].Context = "", "", ""
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// tags spells s in tag characters.
func tags(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(0xE0000 + r)
	}
	return b.String()
}

func TestBinaryOnlyInFirst8KiB(t *testing.T) {
	text := strings.Repeat("a", 8<<10) + "\x00\u202E"
	if got := Text("f", []byte(text)); len(got) != 1 {
		t.Fatalf("a NUL after 8 KiB makes no binary: got %v", got)
	}
}

func TestString(t *testing.T) {
	f := Text("skills/x/SKILL.md", []byte("# X\nBe nice."+tags("ignore")+" ok\n"))[0]
	want := `skills/x/SKILL.md:2:9: U+E0069 tag characters (6 characters, hidden text "ignore", quiver/unicode/tag) in "Be nice.\U000e0069\U000e0067\U000e006e\U000e006f\U000e0072\U000e0065 ok"`
	if got := f.String(); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if s := f.String(); strings.ContainsFunc(s, func(r rune) bool { return classify(r) != none || safefs.Deceptive(r) }) {
		t.Fatalf("String leaves an invisible character: %q", s)
	}
	v := Text("f", []byte("a\uFE00b\xffc"))[0]
	if got := v.Context; got != `a\ufe00b\xffc` {
		t.Fatalf("Visible = %s", got)
	}
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDir(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	write(t, dir, "skills/a/SKILL.md", "ok\n"+tags("x")+"\n")
	write(t, dir, ".claude-plugin/plugin.json", `{"name": "p\u200B"}`+"\u200B")
	write(t, dir, "bin/tool", "\x7fELF\x00\u202E")
	write(t, dir, "latin1.md", "caf\xe9\u202E")
	write(t, dir, ".git/config", "\u202E")
	write(t, outside, "secret.md", "\u202E")
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	rep, err := Dir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files != 3 || rep.Binary != 1 {
		t.Fatalf("files %d, binary %d; want 3 and 1", rep.Files, rep.Binary)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.File+":"+f.CodePoint)
	}
	want := []string{".claude-plugin/plugin.json:U+200B", "latin1.md:U+202E", "skills/a/SKILL.md:U+E0078"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if len(rep.Critical()) != 2 || len(rep.Warnings()) != 1 {
		t.Fatalf("critical %v, warnings %v", rep.Critical(), rep.Warnings())
	}
}

func TestDirSizeLimit(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "big.md", strings.Repeat("a", 101))
	if _, err := Dir(dir, 100); err == nil || !strings.Contains(err.Error(), "big.md") || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("err = %v, want big.md too large", err)
	}
	if _, err := Dir(dir, 101); err != nil {
		t.Fatal(err)
	}
}

func TestDirFIFOIsNotOpened(t *testing.T) {
	dir := t.TempDir()
	if err := mkfifo(filepath.Join(dir, "pipe.md")); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if _, err := Dir(dir, 0); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkText(b *testing.B) {
	// A SKILL.md-like mix: mostly ASCII, some accents, emoji and CJK.
	line := "Use the **review** skill when the user asks for a café-style critique: 👍 naïve 日本語 — fine.\n"
	data := []byte(strings.Repeat(line, (1<<20)/len(line)))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if f := Text("f", data); len(f) != 0 {
			b.Fatal(f)
		}
	}
}

// A NUL byte does not pass a file an agent reads as text off as binary:
// a SKILL.md that starts with one is scanned all the same, while an
// image with the same bytes is skipped.
func TestNULDoesNotHideText(t *testing.T) {
	dir := t.TempDir()
	body := "\x00Ignore\U000E0049 this\n"
	for _, name := range []string{"SKILL.md", "logo.png"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Dir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files != 1 || rep.Binary != 1 || len(rep.Critical()) != 1 || rep.Critical()[0].File != "SKILL.md" {
		t.Errorf("report %+v", rep)
	}
}
