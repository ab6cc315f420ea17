package format

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestConfigTimeoutIsBounded: a handler's timeout that is no limit makes
// that handler invalid with the value in its Problem (before, 1e-10 and
// 1e10 seconds both ran it with no timeout at all); one above an hour
// is capped. The neighbouring handler in the same file is unaffected.
func TestConfigTimeoutIsBounded(t *testing.T) {
	tests := []struct {
		timeout string // as written in hooks.json
		want    time.Duration
		problem string
	}{
		{"1e-10", 0, "timeout 1e-10 seconds rounds to less than 1ms"},
		{"1e10", 0, "timeout 1e10 seconds is too large to be a duration"},
		{"1e400", 0, "timeout 1e400 seconds is not finite"},
		{"0", 0, "timeout 0 seconds is not positive"},
		{"-3", 0, "timeout -3 seconds is not positive"},
		{`"5"`, 0, `timeout "5" is not a number of seconds`},
		{`[5]`, 0, `timeout [5] is not a number of seconds`},
		{"0.0004", 0, "timeout 0.0004 seconds rounds to less than 1ms"},
		{"7200", time.Hour, ""},
		{"3600", time.Hour, ""},
		{"0.25", 250 * time.Millisecond, ""},
		{"null", 0, ""}, // absent: the default applies
	}
	for _, tc := range tests {
		t.Run(tc.timeout, func(t *testing.T) {
			c, err := ParseConfig(fmt.Appendf(nil, `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[
				{"type":"command","command":"guard.sh","timeout":%s},
				{"type":"command","command":"other.sh","timeout":5}]}]}}`, tc.timeout))
			if err != nil {
				t.Fatalf("the file is refused (%v); only the handler may be", err)
			}
			h := c.Handlers[0]
			if h.Timeout != tc.want {
				t.Errorf("Timeout = %v; want %v", h.Timeout, tc.want)
			}
			if tc.problem == "" && h.Problem != "" || !strings.Contains(h.Problem, tc.problem) {
				t.Errorf("Problem = %q; want %q", h.Problem, tc.problem)
			}
			if other := c.Handlers[1]; other.Problem != "" || other.Timeout != 5*time.Second {
				t.Errorf("the neighbour changed: %+v", other)
			}
		})
	}
}
