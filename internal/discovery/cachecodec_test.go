package discovery

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// The hook-type cache reads back exactly what parseDeclared took and
// Declared.String wrote, and nothing else (a line in another form is a
// corrupt cache, rebuilt).
func TestHookTypeCodecReadsOnlyTheWrittenForm(t *testing.T) {
	old := func(s string) (Declared, bool) {
		d, ok := parseDeclared(s)
		return d, ok && d.String() == s
	}
	for _, s := range []string{
		"before_tool_call", "before_tool_call persistent", "session_start", "agent_stop persistent",
		"before_tool_call  persistent", " before_tool_call", "before_tool_call ", "before_tool_call persistent ",
		"before_tool_call persistent persistent", "before_tool_call other", "before_tool_call\tpersistent",
		"persistent", "nope", "nope persistent", "", " ", "PreToolUse",
	} {
		want, wantOK := old(s)
		got, ok := hookTypeCodec.decode(s)
		if ok != wantOK || (ok && got.Declared != want) {
			t.Errorf("decode(%q) = %+v, %v; want %+v, %v", s, got.Declared, ok, want, wantOK)
		}
		if ok && hookTypeCodec.encode(got) != s {
			t.Errorf("encode(decode(%q)) = %q", s, hookTypeCodec.encode(got))
		}
	}
}

func TestCutQuoted(t *testing.T) {
	for _, c := range []struct{ in, v, rest string }{
		{"a b", "a", " b"}, {"a", "a", ""}, {"a  b", "a", "  b"}, {`"x y" z`, "x y", " z"}, {`"x"`, "x", ""},
	} {
		v, rest, ok := cutQuoted(c.in)
		if !ok || v != c.v || rest != c.rest {
			t.Errorf("cutQuoted(%q) = %q, %q, %v", c.in, v, rest, ok)
		}
	}
	for _, in := range []string{"", " a", `"x`} {
		if _, _, ok := cutQuoted(in); ok {
			t.Errorf("cutQuoted(%q) ok", in)
		}
	}
}

// TestDocSummaryCodecRoundTrips: whatever a skill's frontmatter says, the
// summary read back is the one written, byte for byte, through the cache
// file's own quoting too.
func TestDocSummaryCodecRoundTrips(t *testing.T) {
	odd := []string{"", " ", "  lead and trail  ", `"quoted"`, `back\slash`, "new\nline", "nul\x00byte",
		"\xff\xfe not UTF-8", "tab\there", "3 \"\" looks like a count", "🎯 emoji", `""`, "0 "}
	r := rand.New(rand.NewPCG(30, 5))
	pick := func() string {
		if r.IntN(3) == 0 {
			b := make([]byte, r.IntN(40))
			for i := range b {
				b[i] = byte(r.IntN(256))
			}
			return string(b)
		}
		return odd[r.IntN(len(odd))]
	}
	cases := []docSummary{{}, {Description: "Reviews a pull request."}, {Invalid: "no description"}, {Warnings: []string{""}}}
	for range 2000 {
		d := docSummary{Description: pick(), Invalid: pick()}
		for range r.IntN(4) {
			d.Warnings = append(d.Warnings, pick())
		}
		cases = append(cases, d)
	}
	for _, d := range cases {
		enc := docSummaryCodec.encode(d)
		// As the cache file holds it: a quoted field in a line.
		back, rest, ok := cutQuoted(quoteField(enc))
		if !ok || rest != "" || back != enc {
			t.Fatalf("the cache line does not keep %q", enc)
		}
		got, ok := docSummaryCodec.decode(back)
		if !ok || !reflect.DeepEqual(got, d) {
			t.Fatalf("decode(encode(%#v)) = %#v, %v", d, got, ok)
		}
	}
}

// TestDocSummaryCodecReadsOnlyItsForm: a value in another form (an
// earlier quiver's JSON, a cut line, a count that does not match) is a
// corrupt cache, rebuilt, never a summary made up of its pieces.
func TestDocSummaryCodecReadsOnlyItsForm(t *testing.T) {
	for _, s := range []string{
		`{"description":"Reviews a pull request."}`, "", "0", "0 ", `0 ""`, `0 "" `[:4], `1 "" desc`,
		`-1 "" desc`, `+0 "" desc`, `00 "" desc`, `99999999999 "" desc`, `2 "" "w" desc`,
		`0 "unterminated desc`, `0 ""desc`, `0 '' desc`, "0 `x` desc", `1 "" "w"desc`, "x \"\" desc",
		`0 "\x41" desc`, `0 "\u0041" desc`, `1 "" "\101" desc`,
	} {
		if d, ok := docSummaryCodec.decode(s); ok {
			t.Errorf("decode(%q) = %#v, want a corrupt cache", s, d)
		}
	}
	if d, ok := docSummaryCodec.decode(`1 "bad" "careful" Reviews it.`); !ok ||
		!reflect.DeepEqual(d, docSummary{Description: "Reviews it.", Invalid: "bad", Warnings: []string{"careful"}}) {
		t.Errorf("decode = %#v, %v", d, ok)
	}
}
