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
		comments bool
	}{
		{`{"hooks": {}, "hooks": {}}`, `key "hooks" appears twice at the top of the file`, false},
		{`{"hooks": {"PreToolUse": [], "PreToolUse": []}}`, `key "PreToolUse" appears twice in "hooks"`, false},
		{`{"a": [{"x": 1, "x": 2}]}`, `key "x" appears twice in "a.0"`, false},
		{`{"hooks": 1, "hook\u0073": 2}`, `key "hooks" appears twice`, false},
		{"{\n  // mine\n  \"hooks\": {},\n  \"hooks\": {}\n}", `key "hooks" appears twice`, true},
		{"\xef\xbb\xbf{}", "byte-order mark", false},
		{"\xef\xbb\xbf{}", "byte-order mark", true},
	} {
		_, err := ParseDoc([]byte(tc.in), tc.comments)
		if !errors.Is(err, ErrAmbiguous) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseDoc(%q) = %v, want %s", tc.in, err, tc.want)
		}
	}
	for _, ok := range []string{`{"a": {"x": 1}, "b": {"x": 1}}`, `{"Hooks": 1, "hooks": 2}`, `[]`} {
		if _, err := ParseDoc([]byte(ok), false); errors.Is(err, ErrAmbiguous) {
			t.Errorf("ParseDoc(%q) = %v", ok, err)
		}
	}
}
