package audit

import (
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// SARIF 2.1.0, the subset GitHub code scanning reads (SPEC §17): the
// driver with its rules, and one result per finding, each with a
// location. Columns count characters (code points), as the content
// scan counts them.

// SARIFSchema is the schema a SARIF log names.
const SARIFSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// SARIFLog is a SARIF 2.1.0 log of one run.
type SARIFLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []SARIFRun `json:"runs"`
}

// SARIFRun is the one run of quiver audit.
type SARIFRun struct {
	Tool       sarifTool     `json:"tool"`
	Results    []sarifResult `json:"results"`
	ColumnKind string        `json:"columnKind"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name    string      `json:"name"`
	Version string      `json:"version"`
	Rules   []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string             `json:"id"`
	ShortDescription     sarifMessage       `json:"shortDescription"`
	DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
	Properties           *sarifProperties   `json:"properties,omitempty"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifProperties struct {
	Tags             []string `json:"tags"`
	SecuritySeverity string   `json:"security-severity"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
}

// SARIF encodes the report as a SARIF log of quiver at version: the
// rules every check declares (and any other a finding names), sorted by
// id, and a result per finding, in the report's order. A file relative
// to the project is a relative URI, as GitHub wants it; an absolute one
// (the global scope) a file:// URI. A finding without a line stands for
// its whole file: line 1, column 1.
func (r Report) SARIF(version string) SARIFLog {
	byID := map[string]Rule{}
	for _, c := range r.Checks {
		for _, rule := range c.Rules {
			byID[rule.ID] = rule
		}
		for _, f := range c.Findings {
			if _, ok := byID[f.Rule]; !ok {
				byID[f.Rule] = Rule{ID: f.Rule, Severity: f.Severity, Description: f.Rule}
			}
		}
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	run := SARIFRun{
		Tool:       sarifTool{Driver: sarifDriver{Name: "quiver", Version: version, Rules: make([]sarifRule, 0, len(ids))}},
		Results:    []sarifResult{},
		ColumnKind: "unicodeCodePoints",
	}
	index := map[string]int{}
	for i, id := range ids {
		rule := byID[id]
		index[id] = i
		sr := sarifRule{ID: id, ShortDescription: sarifMessage{Text: rule.Description},
			DefaultConfiguration: sarifConfiguration{Level: level(rule.Severity)}}
		if rule.SecuritySeverity != "" {
			sr.Properties = &sarifProperties{Tags: []string{"security"}, SecuritySeverity: rule.SecuritySeverity}
		}
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sr)
	}
	for _, c := range r.Checks {
		for _, f := range c.Findings {
			run.Results = append(run.Results, sarifResult{
				RuleID: f.Rule, RuleIndex: index[f.Rule], Level: level(f.Severity),
				Message: sarifMessage{Text: f.Message},
				Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
					ArtifactLocation: sarifArtifact{URI: URI(f.File)},
					Region:           sarifRegion{StartLine: max(f.Line, 1), StartColumn: max(f.Column, 1)},
				}}},
			})
		}
	}
	return SARIFLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []SARIFRun{run}}
}

// level is a severity as SARIF names it.
func level(s Severity) string {
	switch s {
	case Error, Warning, Note:
		return string(s)
	}
	return "warning"
}

// URI is file as a SARIF artifact location: a relative reference with
// slashes, each segment escaped, for a file relative to the project; a
// file:// URI for an absolute one.
func URI(file string) string {
	if filepath.IsAbs(file) {
		p := filepath.ToSlash(file)
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // C:/x becomes file:///C:/x
		}
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
	segs := strings.Split(filepath.ToSlash(file), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
