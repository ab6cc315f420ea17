package format

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConditionClaudeVerdicts checks quiver's reading of rules against
// verdicts computed by Claude Code's own functions (see the file's
// header): the rule language for Bash, Glob/Grep and file tools, exactly.
func TestConditionClaudeVerdicts(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "claude-if-verdicts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var refused []string // rules quiver refuses (the handler is invalid) rather than read otherwise
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		var rule, text string
		if len(f) != 5 || json.Unmarshal([]byte(f[1]), &rule) != nil || json.Unmarshal([]byte(f[2]), &text) != nil {
			t.Fatalf("line %d: %q", i+1, line)
		}
		var got bool
		switch f[0] {
		case "bash":
			r := parseBashRule(rule)
			cmd := glob(nil).text(text)
			if r.blanks {
				cmd = collapseBlanks(cmd)
			}
			got = fitsAny(r.alts, cmd)
		case "pattern":
			got = fitsAny(wildcard(rule, false), glob(nil).text(text))
		case "path":
			r, err := parsePathRule(rule)
			if err != nil {
				refused = append(refused, rule)
				continue
			}
			got = r.claude(text, absolute(text, f[3], "/home/u"), f[3], "/p", "/home/u")
		default:
			t.Fatalf("line %d: kind %q", i+1, f[0])
		}
		if want := f[4] == "true"; got != want {
			t.Errorf("line %d: %s rule %q on %q (cwd %q) = %v, Claude says %v", i+1, f[0], rule, text, f[3], got, want)
		}
		n++
	}
	if n < 1000 {
		t.Errorf("only %d verdicts read", n)
	}
	if len(refused) > n/50 {
		t.Errorf("quiver refuses %d of %d rules: %q", len(refused), n, refused)
	}
}
