// Package scan finds the invisible characters of SPEC §17 in a plugin's
// files: code points a model reads as instructions and a reviewer does
// not see (tag characters that spell hidden text, bidi overrides that
// reorder it, variation selectors that encode bytes, zero-width
// characters). It is pure: it reads a folder, never follows a link,
// writes nothing and decides nothing; the installer decides what a
// finding means (Mode).
//
// What is scanned: every regular file under the folder, dotfiles
// included, except the top-level .git (exactly the files the content hash
// covers, symlinks aside: a link is not followed, so what it points at is
// scanned where it lives, if inside the plugin). A file with a NUL byte in
// its first 8 KiB is binary and skipped; so is text in an encoding with
// NUL bytes (UTF-16). Invalid UTF-8 is not a way around the scan: it is
// decoded with replacement characters, as agents read it, and scanned.
//
// Positions: lines end at '\n' and count from 1; columns count characters
// (Unicode code points, an invalid byte being one) from 1, as a reader
// moving the cursor counts them, not bytes and not UTF-16 units (SARIF
// consumers are told so by the run's columnKind "unicodeCodePoints").
// A run of characters of the same rule on one line is one finding, at its
// first character.
package scan

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Severity is how bad a finding is: critical refuses an install unless
// the user or the policy lets it in, warning is reported and recorded.
type Severity string

// The severities of SPEC §17.
const (
	Critical Severity = "critical"
	Warning  Severity = "warning"
)

// Rule ids: stable, for the records, `quiver audit` and SARIF ruleIds.
const (
	RuleTag                  = "quiver/unicode/tag"
	RuleBidi                 = "quiver/unicode/bidi"
	RuleVariationSelector    = "quiver/unicode/variation-selector"
	RuleZeroWidth            = "quiver/unicode/zero-width"
	RuleVariationSelectorBMP = "quiver/unicode/variation-selector-bmp"
	RuleSoftHyphen           = "quiver/unicode/soft-hyphen"
	RuleBidiMark             = "quiver/unicode/bidi-mark"
	RuleInvisibleOperator    = "quiver/unicode/invisible-operator"
	RuleAnnotation           = "quiver/unicode/interlinear-annotation"
	RuleDeprecatedFormat     = "quiver/unicode/deprecated-format"
	RuleBOM                  = "quiver/unicode/bom"
)

// Rule describes one rule: its id, severity and what it finds.
type Rule struct {
	ID       string
	Severity Severity
	// Name says what the characters are, for messages.
	Name string
	// Ranges are the code points, as "U+E0001–U+E007F" for humans.
	Ranges string
}

// Rules is the table of SPEC §17, in the order of the table.
var Rules = []Rule{
	{RuleTag, Critical, "tag characters", "U+E0001–U+E007F"},
	{RuleBidi, Critical, "bidi override or isolate", "U+202A–U+202E, U+2066–U+2069"},
	{RuleVariationSelector, Critical, "variation selectors (supplement)", "U+E0100–U+E01EF"},
	{RuleZeroWidth, Warning, "zero-width character", "U+200B–U+200D, U+2060"},
	{RuleVariationSelectorBMP, Warning, "variation selector", "U+FE00–U+FE0E"},
	{RuleSoftHyphen, Warning, "soft hyphen", "U+00AD"},
	{RuleBidiMark, Warning, "bidi mark", "U+200E, U+200F, U+061C"},
	{RuleInvisibleOperator, Warning, "invisible math operator", "U+2061–U+2064"},
	{RuleAnnotation, Warning, "interlinear annotation", "U+FFF9–U+FFFB"},
	{RuleDeprecatedFormat, Warning, "deprecated format character", "U+206A–U+206F"},
	{RuleBOM, Warning, "byte order mark after the start", "U+FEFF"},
}

// rule indexes Rules; 0 is "no rule".
type rule uint8

const (
	none rule = iota
	tag
	bidi
	vsSupplement
	zeroWidth
	vsBMP
	softHyphen
	bidiMark
	invisibleOp
	annotation
	deprecated
	bom
)

// classify is the table as comparisons: no map, no regexp, a single
// compare for the common case.
func classify(r rune) rule {
	switch {
	case r < 0xAD:
		return none
	case r == 0xAD:
		return softHyphen
	case r == 0x061C:
		return bidiMark
	case r < 0x200B:
		return none
	case r <= 0x200D:
		return zeroWidth
	case r <= 0x200F:
		return bidiMark
	case r < 0x202A:
		return none
	case r <= 0x202E:
		return bidi
	case r < 0x2060:
		return none
	case r == 0x2060:
		return zeroWidth
	case r <= 0x2064:
		return invisibleOp
	case r == 0x2065:
		return none
	case r <= 0x2069:
		return bidi
	case r <= 0x206F:
		return deprecated
	case r < 0xFE00:
		return none
	case r <= 0xFE0E:
		return vsBMP
	case r == 0xFEFF:
		return bom
	case r < 0xFFF9:
		return none
	case r <= 0xFFFB:
		return annotation
	case r < 0xE0001:
		return none
	case r <= 0xE007F:
		return tag
	case r < 0xE0100:
		return none
	case r <= 0xE01EF:
		return vsSupplement
	}
	return none
}

// Finding is one run of hidden characters.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// File is relative to the scanned folder, slash-separated.
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// CodePoint is the run's first character, "U+E0041".
	CodePoint string `json:"code_point"`
	// Count is how many characters the run holds.
	Count int `json:"count"`
	// Hidden is the text a run of tag characters spells (tags mirror
	// ASCII), which is what a model reads and a reviewer does not see.
	Hidden string `json:"hidden,omitempty"`
	// Context is the text around the run on its line, every hidden
	// character escaped (Visible), so that the record and a terminal
	// show it.
	Context string `json:"context,omitempty"`
}

// Name says what the finding's characters are: "tag characters".
func (f Finding) Name() string {
	for _, r := range Rules {
		if r.ID == f.Rule {
			return r.Name
		}
	}
	return f.Rule
}

// String is the finding on one line, every invisible character escaped:
// `skills/x/SKILL.md:3:7: U+E0049 tag characters (x12, hidden text
// "ignore all"; quiver/unicode/tag) in "Be nice.\U000e0049..."`.
func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d:%d: %s %s", Visible(f.File), f.Line, f.Column, f.CodePoint, f.Name())
	b.WriteString(" (")
	if f.Count > 1 {
		fmt.Fprintf(&b, "%d characters, ", f.Count)
	}
	if f.Hidden != "" {
		fmt.Fprintf(&b, "hidden text %q, ", f.Hidden)
	}
	b.WriteString(f.Rule + ")")
	if f.Context != "" {
		b.WriteString(` in "` + f.Context + `"`)
	}
	return b.String()
}

// Visible escapes every character a rule finds, and control and format
// characters, as Go escapes (\u200b, \U000e0041), so that a terminal
// shows them: safefs.Visible leaves variation selectors alone (they are
// marks, not format characters).
func Visible(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case classify(r) != none || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029':
			if r > 0xFFFF {
				fmt.Fprintf(&b, `\U%08x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Mode is what an install does with a plugin's findings: the seam that
// the policy's scan.hidden_unicode (block | warn | off) and the
// --allow-hidden-unicode flag set. The zero value blocks.
type Mode uint8

// The modes.
const (
	// Block refuses a plugin with a critical finding.
	Block Mode = iota
	// Warn installs it, reporting and recording critical findings at
	// their severity like warnings.
	Warn
	// Off scans nothing.
	Off
)

// ModeFor is a command's mode before any policy speaks: Block, or Warn
// when it was given --allow-hidden-unicode.
func ModeFor(allowHiddenUnicode bool) Mode {
	if allowHiddenUnicode {
		return Warn
	}
	return Block
}

// binarySniff is how much of a file is looked at for a NUL byte.
const binarySniff = 8 << 10

// Binary reports whether data is binary: a NUL byte in its first 8 KiB.
func Binary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0
}

// contextRunes is how many characters of the line are kept on each side
// of a finding.
const contextRunes = 20

// Text scans one file's content, named file in the findings; binary
// content is not scanned (Binary). One pass, one decode per non-ASCII
// character.
func Text(file string, data []byte) []Finding {
	if Binary(data) {
		return nil
	}
	return scanText(file, data)
}

// scanText is Text whatever data holds.
func scanText(file string, data []byte) []Finding {
	var out []Finding
	line, col := 1, 0
	lineStart := 0
	var cur *Finding // the run being extended, if the last character had a rule
	var curRule rule
	var prev rune // the last character that was not FE0F or an emoji modifier
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			i++
			col++
			cur, prev = nil, rune(c)
			if c == '\n' {
				line, col, lineStart = line+1, 0, i
			}
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		start := i
		i += size
		col++
		k := classify(r)
		switch {
		case k == bom && start == 0:
			k = none // a BOM that starts the file is an encoding mark
		case r == 0x200D && emoji(prev) && i < len(data):
			if next, _ := utf8.DecodeRune(data[i:]); emoji(next) {
				k = none // a ZWJ between two emoji joins them (👩‍💻)
			}
		}
		if r != 0xFE0F && (r < 0x1F3FB || r > 0x1F3FF) {
			prev = r
		}
		if k == none {
			cur = nil
			continue
		}
		if cur != nil && curRule == k {
			cur.Count++
			if k == tag {
				cur.Hidden += tagText(r)
			}
			continue
		}
		def := Rules[k-1]
		out = append(out, Finding{
			Rule: def.ID, Severity: def.Severity, File: file,
			Line: line, Column: col, CodePoint: fmt.Sprintf("U+%04X", r), Count: 1,
			Context: context(data, lineStart, start),
		})
		if k == tag {
			out[len(out)-1].Hidden = tagText(r)
		}
		cur, curRule = &out[len(out)-1], k
	}
	return out
}

// tagText is the ASCII character a tag character mirrors; U+E0001 (the
// deprecated language tag) and the cancel tag U+E007F spell nothing.
func tagText(r rune) string {
	if r < 0xE0020 || r == 0xE007F {
		return ""
	}
	return string(r - 0xE0000)
}

// emoji reports whether r is a pictographic symbol (Unicode category So,
// as microsoft/apm judges a ZWJ sequence): cheap, and enough to tell 👩‍💻
// from a word with a zero-width joiner inside.
func emoji(r rune) bool {
	return r >= utf8.RuneSelf && unicode.Is(unicode.So, r)
}

// context is the line around the character at byte start, escaped: up
// to contextRunes characters before it and after it.
func context(data []byte, lineStart, start int) string {
	from := start
	for n := 0; n < contextRunes && from > lineStart; n++ {
		_, size := utf8.DecodeLastRune(data[lineStart:from])
		from -= size
	}
	to := start
	for n := 0; n <= contextRunes && to < len(data) && data[to] != '\n'; n++ {
		_, size := utf8.DecodeRune(data[to:])
		to += size
	}
	return Visible(strings.TrimRight(string(data[from:to]), "\r"))
}
