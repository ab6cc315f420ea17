package discovery

import "testing"

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
