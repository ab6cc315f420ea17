package audit

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Report is what `quiver audit` found: every check, in the order run,
// and whether all passed. Its JSON is the --json output (SPEC §17).
type Report struct {
	Passed bool    `json:"passed"`
	Checks []Check `json:"checks"`
}

// Options say how NewReport judges and places findings.
type Options struct {
	// Strict counts warnings as errors (--strict).
	Strict bool
	// Root is the project folder: a finding's file inside it is made
	// relative to it, with slashes (the project scope, whose SARIF a
	// team uploads for its repository). "" leaves files absolute (the
	// global scope).
	Root string
	// Fallback is the file a finding that names none is shown at (the
	// scope's lock file): SARIF wants a location for every result.
	Fallback string
}

// NewReport makes the report of checks: each finding's file placed as o
// says, the findings of each check sorted (by file, line, column, rule
// and message, so that output never depends on the order folders were
// read in), each check passed when none of its findings fails under
// o.Strict, and the report passed when every check did.
func NewReport(checks []Check, o Options) Report {
	r := Report{Passed: true, Checks: make([]Check, 0, len(checks))}
	for _, c := range checks {
		fs := make([]Finding, 0, len(c.Findings))
		c.Passed = true
		for _, f := range c.Findings {
			if f.File == "" {
				f.File = o.Fallback
			}
			f.File = place(f.File, o.Root)
			c.Passed = c.Passed && !f.Fails(o.Strict)
			fs = append(fs, f)
		}
		slices.SortStableFunc(fs, compare)
		c.Findings = fs
		r.Passed = r.Passed && c.Passed
		r.Checks = append(r.Checks, c)
	}
	return r
}

// place is file as a report shows it: relative to root (with slashes)
// when it lies inside root, else as it is.
func place(file, root string) string {
	if root == "" || file == "" || !filepath.IsAbs(file) {
		return file
	}
	rel, err := filepath.Rel(root, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.Clean(file)
	}
	return filepath.ToSlash(rel)
}

// compare orders findings by where they are, then by what they say.
func compare(a, b Finding) int {
	return cmp.Or(
		cmp.Compare(a.File, b.File),
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Column, b.Column),
		cmp.Compare(a.Rule, b.Rule),
		cmp.Compare(a.Message, b.Message),
	)
}

// Counts are how many findings of each severity a report holds.
type Counts struct{ Errors, Warnings, Notes int }

// Count counts the report's findings by severity.
func (r Report) Count() Counts {
	var c Counts
	for _, ch := range r.Checks {
		for _, f := range ch.Findings {
			switch f.Severity {
			case Error:
				c.Errors++
			case Warning:
				c.Warnings++
			default:
				c.Notes++
			}
		}
	}
	return c
}

// String is the counts in words: "1 error, 2 warnings".
func (c Counts) String() string {
	return plural(c.Errors, "error") + ", " + plural(c.Warnings, "warning")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// CheckHeader heads the rows of CheckRows.
var CheckHeader = []string{"CHECK", "RESULT", "FINDINGS", "MESSAGE"}

// CheckRows are the report's checks as table rows, in the order run.
func (r Report) CheckRows() [][]string {
	rows := make([][]string, 0, len(r.Checks))
	for _, c := range r.Checks {
		result := "passed"
		if !c.Passed {
			result = "failed"
		}
		rows = append(rows, []string{c.Name, result, strconv.Itoa(len(c.Findings)), c.Message})
	}
	return rows
}

// FindingHeader heads the rows of FindingRows.
var FindingHeader = []string{"SEVERITY", "RULE", "LOCATION", "MESSAGE"}

// FindingRows are the report's findings as table rows, check by check.
func (r Report) FindingRows() [][]string {
	var rows [][]string
	for _, c := range r.Checks {
		for _, f := range c.Findings {
			rows = append(rows, []string{string(f.Severity), f.Rule, f.Location(), f.Message})
		}
	}
	return rows
}

// Location is where f is, as a compiler says it: FILE, FILE:LINE or
// FILE:LINE:COLUMN.
func (f Finding) Location() string {
	switch {
	case f.Line == 0:
		return f.File
	case f.Column == 0:
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
}
