package wiring

import (
	"errors"
	"strings"
	"testing"
)

// A document the agent would read otherwise is refused, at any depth and
// in either syntax (issue 42, defect 2).
func TestParseDocRefusesWhatTheAgentReadsOtherwise(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		syntax   Syntax
	}{
		{`{"hooks": {}, "hooks": {}}`, `key "hooks" appears twice at the top of the file`, JSON},
		{`{"hooks": {"PreToolUse": [], "PreToolUse": []}}`, `key "PreToolUse" appears twice in "hooks"`, JSON},
		{`{"a": [{"x": 1, "x": 2}]}`, `key "x" appears twice in "a.0"`, JSON},
		{`{"hooks": 1, "hook\u0073": 2}`, `key "hooks" appears twice`, JSON},
		{"{\n  // mine\n  \"hooks\": {},\n  \"hooks\": {}\n}", `key "hooks" appears twice`, JSONC},
		{"\xef\xbb\xbf{}", "byte-order mark", JSON},
		{"\xef\xbb\xbf{}", "byte-order mark", JSONC},
	} {
		_, err := ParseDoc([]byte(tc.in), tc.syntax)
		if !errors.Is(err, ErrAmbiguous) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseDoc(%q) = %v, want %s", tc.in, err, tc.want)
		}
	}
	// Gemini CLI strips comments and then JSON.parse's: a trailing comma
	// stops it; OpenCode reads one.
	for _, in := range []string{"{\"a\": 1,}", "{\"a\": [1, 2,]}", "{\n  // x\n  \"a\": {\"b\": 1,},\n}"} {
		if _, err := ParseDoc([]byte(in), JSONComments); !errors.Is(err, ErrAmbiguous) || !strings.Contains(err.Error(), "trailing comma") {
			t.Errorf("ParseDoc(%q, JSONComments) = %v, want a trailing comma refused", in, err)
		}
		if _, err := ParseDoc([]byte(in), JSONC); err != nil {
			t.Errorf("ParseDoc(%q, JSONC) = %v", in, err)
		}
	}
	for _, ok := range []string{`{"a": {"x": 1}, "b": {"x": 1}}`, `{"Hooks": 1, "hooks": 2}`, `[]`} {
		if _, err := ParseDoc([]byte(ok), JSON); errors.Is(err, ErrAmbiguous) {
			t.Errorf("ParseDoc(%q) = %v", ok, err)
		}
	}
}
