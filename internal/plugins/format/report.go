package format

import (
	"fmt"

	"github.com/quiver-cli/quiver/internal/safefs"
	"github.com/quiver-cli/quiver/internal/term"
)

// Report is findings as plugin validate and doctor give them (their
// --json output): counted by severity, never a null list.
type Report struct {
	Dir      string    `json:"dir,omitempty"`
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
	Findings []Finding `json:"findings"`
}

// NewReport counts fs, the findings about dir ("" for doctor's).
func NewReport(dir string, fs []Finding) Report {
	r := Report{Dir: dir, Findings: fs}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	for _, f := range fs {
		switch f.Severity {
		case "error":
			r.Errors++
		case "warning":
			r.Warnings++
		}
	}
	return r
}

// Lines are r's findings as plugin validate and doctor print them for
// people: the severity, the file and the reason, then the fix indented
// under it; what a plugin wrote is made visible (safefs.Visible).
func (r Report) Lines() []string {
	var out []string
	for _, f := range r.Findings {
		where := f.File
		if where != "" {
			where += ": "
		}
		out = append(out, fmt.Sprintf("%-8s %s%s", f.Severity, safefs.Visible(where), safefs.Visible(f.Reason)))
		if f.Fix != "" {
			out = append(out, fmt.Sprintf("%-8s fix: %s", "", safefs.Visible(f.Fix)))
		}
	}
	return out
}

// Healthy is quiver doctor's verdict on r, the findings about where: an
// error when anything but notes was found, else the line that says so.
func (r Report) Healthy(where string) (string, error) {
	if r.Errors+r.Warnings > 0 {
		return "", fmt.Errorf("found %s and %s", term.Count(r.Errors, "error"), term.Count(r.Warnings, "warning"))
	}
	if n := len(r.Findings) - r.Errors - r.Warnings; n > 0 {
		return fmt.Sprintf("No problems found in %s (%s above).", where, term.Count(n, "note")), nil
	}
	return fmt.Sprintf("No problems found in %s.", where), nil
}

// Valid is plugin validate's verdict on r, the findings about the plugin
// in dir (as the user named it): an error when an error was found, else
// the line that says it is valid.
func (r Report) Valid(dir string) (string, error) {
	if r.Errors > 0 {
		return "", fmt.Errorf("%s has %s and %s", dir, term.Count(r.Errors, "error"), term.Count(r.Warnings, "warning"))
	}
	return fmt.Sprintf("%s is a valid plugin (%s).", dir, term.Count(r.Warnings, "warning")), nil
}
