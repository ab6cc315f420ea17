package format

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
