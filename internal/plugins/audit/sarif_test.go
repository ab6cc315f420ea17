package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sampleReport has a finding of each kind the audit makes: in the
// project (relative), outside it (absolute), with and without a line,
// and a rule no check declared.
func sampleReport(root string) Report {
	return NewReport([]Check{
		{Name: "scan", Message: "1 finding", Rules: []Rule{
			{ID: "quiver/unicode/bidi", Severity: Error, Description: "bidi override or isolate (U+202A–U+202E, U+2066–U+2069)", SecuritySeverity: "9.5"},
			{ID: "quiver/unicode/zero-width", Severity: Warning, Description: "zero-width character", SecuritySeverity: "5.0"},
		}, Findings: []Finding{
			{Rule: "quiver/unicode/bidi", Severity: Error, Message: "U+202E bidi override or isolate in acme/guard", File: filepath.Join(root, ".quiver/plugins/acme@guard/skills/my review/SKILL.md"), Line: 3, Column: 7},
		}},
		{Name: "lock", Message: "1 plugin differs", Rules: []Rule{{ID: "quiver/drift/missing", Severity: Error, Description: "a locked plugin is not installed", SecuritySeverity: "7.5"}},
			Findings: []Finding{
				{Rule: "quiver/drift/missing", Severity: Error, Message: "acme/gone is in the lock but not installed", File: filepath.Join(root, ".quiver/quiver.lock")},
				{Rule: "quiver/drift/leftover", Severity: Note, Message: "a leftover of an interrupted command", File: filepath.Join(root, ".quiver/plugins/.tmp-1")},
			}},
		{Name: "agents", Message: "1 finding", Rules: []Rule{{ID: "quiver/agents/entries-missing", Severity: Warning, Description: "a wired agent lost quiver's entries"}},
			Findings: []Finding{{Rule: "quiver/agents/entries-missing", Severity: Warning, Message: "Claude Code lost them", File: "/home/u/.claude/settings.json"}}},
		{Name: "policy", Message: "1 finding", Findings: []Finding{{Rule: "quiver/policy/source-denied", Severity: Error, Message: "denied", File: filepath.Join(root, ".quiver/quiver.lock"), Line: 2}}},
	}, Options{Root: root})
}

func TestSARIFShape(t *testing.T) {
	log := sampleReport("/p").SARIF("v1.2.3")
	data, err := json.Marshal(log)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Version string `json:"version"`
		Runs    []struct {
			ColumnKind string `json:"columnKind"`
			Tool       struct {
				Driver struct {
					Name, Version string
					Rules         []struct {
						ID               string `json:"id"`
						ShortDescription struct{ Text string }
						Properties       map[string]any
					}
				}
			}
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	run := got.Runs[0]
	if got.Version != "2.1.0" || run.ColumnKind != "unicodeCodePoints" || run.Tool.Driver.Name != "quiver" || run.Tool.Driver.Version != "v1.2.3" {
		t.Errorf("log = %s", data)
	}
	var ids []string
	for _, r := range run.Tool.Driver.Rules {
		ids = append(ids, r.ID)
	}
	if want := "quiver/agents/entries-missing quiver/drift/leftover quiver/drift/missing quiver/policy/source-denied quiver/unicode/bidi quiver/unicode/zero-width"; strings.Join(ids, " ") != want {
		t.Errorf("rules = %v, want %s (declared and found, sorted)", ids, want)
	}
	bidi := run.Tool.Driver.Rules[4]
	if bidi.Properties["security-severity"] != "9.5" || bidi.ShortDescription.Text == "" {
		t.Errorf("bidi rule = %+v", bidi)
	}
	if p := run.Tool.Driver.Rules[0].Properties; p != nil {
		t.Errorf("a rule that is not about security has properties %v", p)
	}
	want := []struct {
		rule, level, uri string
		line, column     int
	}{
		{"quiver/unicode/bidi", "error", ".quiver/plugins/acme@guard/skills/my%20review/SKILL.md", 3, 7},
		{"quiver/drift/leftover", "note", ".quiver/plugins/.tmp-1", 1, 1},
		{"quiver/drift/missing", "error", ".quiver/quiver.lock", 1, 1},
		{"quiver/agents/entries-missing", "warning", "file:///home/u/.claude/settings.json", 1, 1},
		{"quiver/policy/source-denied", "error", ".quiver/quiver.lock", 2, 1},
	}
	if len(run.Results) != len(want) {
		t.Fatalf("%d results, want %d", len(run.Results), len(want))
	}
	for i, w := range want {
		r := run.Results[i]
		loc := r.Locations[0].PhysicalLocation
		if r.RuleID != w.rule || ids[r.RuleIndex] != w.rule || r.Level != w.level || r.Message.Text == "" ||
			loc.ArtifactLocation.URI != w.uri || loc.Region.StartLine != w.line || loc.Region.StartColumn != w.column {
			t.Errorf("result %d = %+v, want %+v", i, r, w)
		}
	}
}

func TestURI(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{".quiver/plugins/acme@guard/a b.md", ".quiver/plugins/acme@guard/a%20b.md"},
		{"x/100%.md", "x/100%25.md"},
		{"/home/u/.quiver/plugins/a@b/#1.md", "file:///home/u/.quiver/plugins/a@b/%231.md"},
	} {
		if got := URI(tt.file); got != tt.want {
			t.Errorf("URI(%q) = %q, want %q", tt.file, got, tt.want)
		}
	}
}

// TestSARIFMatchesSchema validates quiver's SARIF against the OASIS
// SARIF 2.1.0 JSON schema (kept beside the repository, in
// ../shared/data); it skips where the schema is not there.
func TestSARIFMatchesSchema(t *testing.T) {
	path := filepath.Join(moduleRoot(t), "..", "shared", "data", "sarif-schema-2.1.0.json")
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("no SARIF schema at %s", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]Report{
		"findings in both scopes": sampleReport("/p"),
		"a clean audit":           NewReport([]Check{{Name: "lock", Message: "ok"}}, Options{}),
	} {
		t.Run(name, func(t *testing.T) {
			data, err := json.Marshal(r.SARIF("dev"))
			if err != nil {
				t.Fatal(err)
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(inst); err != nil {
				t.Errorf("SARIF does not match the schema: %v\n%s", err, data)
			}
		})
	}
}

// moduleRoot is the folder of go.mod above the test's folder.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}
