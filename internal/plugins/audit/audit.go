// Package audit holds the shapes `quiver audit` reports in (SPEC §17):
// a finding, a check made of findings, and the report of all checks. Each
// room of the house offers its own checks as functions returning a Check
// (plugins: lock drift, hashes, the content scan, policy; discovery:
// trust; hooks/agents: wiring drift); cmd/quiver composes them. Encoding
// the report (table, JSON, SARIF) lives here too, as pure functions.
package audit

// Severity of a finding. Errors fail the audit; warnings fail it only
// under --strict; notes never do.
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Note    Severity = "note"
)

// Finding is one thing an audit check found. Rule is a stable id such as
// "quiver/unicode/bidi" or "quiver/policy/source-denied" (SARIF ruleId).
// File is relative to the project root for the project scope, absolute
// for the global one; Line and Column count from 1, 0 when not known.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	File     string   `json:"file,omitempty"`
	Line     int      `json:"line,omitempty"`
	Column   int      `json:"column,omitempty"`
}

// Check is one named check and what it found. Passed is false when any
// finding counts as an error (under the report's strictness).
type Check struct {
	Name     string    `json:"name"`
	Passed   bool      `json:"passed"`
	Message  string    `json:"message"`
	Findings []Finding `json:"findings"`
	// Rules are the rules the check may report, found or not (SARIF
	// lists them); not part of the JSON report.
	Rules []Rule `json:"-"`
}

// Fails reports whether f fails the audit: an error always, a warning
// under strict (--strict), a note never.
func (f Finding) Fails(strict bool) bool {
	return f.Severity == Error || (strict && f.Severity == Warning)
}

// Rule describes one rule id a check may report, for SARIF's list of
// rules: the room that owns a check owns its rules.
type Rule struct {
	ID string
	// Severity is the level the rule's findings usually have.
	Severity Severity
	// Description says in one line what a finding of the rule means.
	Description string
	// SecuritySeverity is GitHub code scanning's score for a rule about
	// security ("9.5": critical above 9, high from 7, medium from 4);
	// "" for a rule that is not.
	SecuritySeverity string
}
