package format

import (
	"strings"
	"testing"
)

// TestReportLines: a finding is its severity, file and reason on one
// line and its fix indented under it, with what a plugin wrote escaped;
// the counts follow the severities.
func TestReportLines(t *testing.T) {
	r := NewReport("/p", []Finding{
		{Severity: "error", File: "hooks/x\u202e", Reason: "not executable", Fix: "chmod +x hooks/x"},
		{Severity: "warning", Reason: "an empty plugin"},
		{Severity: "info", Reason: "ok"},
	})
	want := []string{
		`error    hooks/x\u202e: not executable`,
		"         fix: chmod +x hooks/x",
		"warning  an empty plugin",
		"info     ok",
	}
	if got := r.Lines(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r.Errors != 1 || r.Warnings != 1 {
		t.Errorf("counted %d error(s), %d warning(s)", r.Errors, r.Warnings)
	}
	if NewReport("", nil).Lines() != nil {
		t.Error("no findings printed lines")
	}
}

// TestVerdicts: doctor fails on warnings too, validate on errors only.
func TestVerdicts(t *testing.T) {
	warned := NewReport("/abs/p", []Finding{{Severity: "warning"}, {Severity: "note"}})
	if _, err := warned.Healthy("/p"); err == nil || err.Error() != "found 0 errors and 1 warning" {
		t.Errorf("Healthy with a warning: %v", err)
	}
	if line, err := warned.Valid("./p"); err != nil || line != "./p is a valid plugin (1 warning)." {
		t.Errorf("Valid with a warning: %q, %v", line, err)
	}
	broken := NewReport("/abs/p", []Finding{{Severity: "error"}})
	if _, err := broken.Valid("./p"); err == nil || err.Error() != "./p has 1 error and 0 warnings" {
		t.Errorf("Valid with an error: %v", err)
	}
	if line, err := NewReport("", nil).Healthy("/p and ~/.quiver"); err != nil || line != "No problems found in /p and ~/.quiver." {
		t.Errorf("Healthy: %q, %v", line, err)
	}
}
