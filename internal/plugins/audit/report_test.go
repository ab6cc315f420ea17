package audit

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestNewReportPlacesSortsAndJudges(t *testing.T) {
	checks := []Check{
		{Name: "scan", Message: "2 findings", Findings: []Finding{
			{Rule: "quiver/unicode/zero-width", Severity: Warning, Message: "b", File: "/p/.quiver/plugins/a@b/x.md", Line: 3, Column: 2},
			{Rule: "quiver/unicode/bidi", Severity: Error, Message: "a", File: "/p/.quiver/plugins/a@b/x.md", Line: 1, Column: 9},
			{Rule: "quiver/unicode/tag", Severity: Error, Message: "c", File: "/p/.quiver/plugins/a@b/a.md", Line: 7, Column: 1},
		}},
		{Name: "agents", Message: "1 finding", Findings: []Finding{
			{Rule: "quiver/agents/entries-missing", Severity: Warning, Message: "gone", File: "/home/u/.claude.json"},
			{Rule: "quiver/agents/config-unreadable", Severity: Warning, Message: "no file"},
		}},
		{Name: "lock", Message: "ok"}, // nil findings: [] in JSON
	}
	tests := []struct {
		name   string
		strict bool
		passed []bool
	}{
		{"errors fail, warnings do not", false, []bool{false, true, true}},
		{"--strict: warnings fail too", true, []bool{false, false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReport(checks, Options{Strict: tt.strict, Root: "/p", Fallback: "/p/.quiver/quiver.lock"})
			var got []bool
			for _, c := range r.Checks {
				got = append(got, c.Passed)
			}
			if !slices.Equal(got, tt.passed) || r.Passed {
				t.Errorf("passed = %v (report %v), want %v (report false)", got, r.Passed, tt.passed)
			}
			var files []string
			for _, f := range r.Checks[0].Findings {
				files = append(files, f.Location())
			}
			want := []string{".quiver/plugins/a@b/a.md:7:1", ".quiver/plugins/a@b/x.md:1:9", ".quiver/plugins/a@b/x.md:3:2"}
			if !slices.Equal(files, want) {
				t.Errorf("scan findings = %q, want %q (relative, sorted)", files, want)
			}
			agents := r.Checks[1].Findings
			if agents[0].File != ".quiver/quiver.lock" || agents[1].File != "/home/u/.claude.json" {
				t.Errorf("agents findings at %q, %q: want the fallback, then the absolute file outside the project", agents[0].File, agents[1].File)
			}
			data, _ := json.Marshal(r)
			if !strings.Contains(string(data), `{"name":"lock","passed":true,"message":"ok","findings":[]}`) {
				t.Errorf("JSON = %s: want findings [] for a clean check, and no rules", data)
			}
		})
	}
	if c := NewReport(checks, Options{}).Count(); c != (Counts{Errors: 2, Warnings: 3}) || c.String() != "2 errors, 3 warnings" {
		t.Errorf("Count = %+v (%s)", c, c)
	}
}

func TestNewReportPassesWithNotesAndWarnings(t *testing.T) {
	r := NewReport([]Check{{Name: "lock", Findings: []Finding{
		{Rule: "quiver/drift/leftover", Severity: Note, Message: "x", File: "/p/.quiver/plugins/.tmp"},
		{Rule: "quiver/hooks/untrusted", Severity: Warning, Message: "y", File: "/p/.quiver/hooks/h"},
	}}}, Options{Root: "/p"})
	if !r.Passed || !r.Checks[0].Passed {
		t.Errorf("a report of a note and a warning failed: %+v", r)
	}
	if NewReport(r.Checks, Options{Strict: true}).Passed {
		t.Error("--strict passed a warning")
	}
}

func TestPlace(t *testing.T) {
	for _, tt := range []struct{ file, root, want string }{
		{"/p/a/b.md", "/p", "a/b.md"},
		{"/p", "/p", "."},
		{"/pq/a", "/p", "/pq/a"},
		{"/a/../p/x", "/p", "x"},
		{"/elsewhere/x", "", "/elsewhere/x"},
		{"already/relative", "/p", "already/relative"},
	} {
		if got := place(tt.file, tt.root); got != tt.want {
			t.Errorf("place(%q, %q) = %q, want %q", tt.file, tt.root, got, tt.want)
		}
	}
}

func TestRows(t *testing.T) {
	r := NewReport([]Check{
		{Name: "lock", Message: "1 plugin differs", Findings: []Finding{{Rule: "quiver/drift/missing", Severity: Error, Message: "gone", File: "/p/.quiver/quiver.lock", Line: 4}}},
		{Name: "hooks", Message: "fine"},
	}, Options{Root: "/p"})
	if got := r.CheckRows(); !slices.Equal(got[0], []string{"lock", "failed", "1", "1 plugin differs"}) || !slices.Equal(got[1], []string{"hooks", "passed", "0", "fine"}) {
		t.Errorf("CheckRows = %q", got)
	}
	if got := r.FindingRows(); len(got) != 1 || !slices.Equal(got[0], []string{"error", "quiver/drift/missing", ".quiver/quiver.lock:4", "gone"}) {
		t.Errorf("FindingRows = %q", got)
	}
}

// TestFlagsResolve: -g and --scope, --json and --format agree or are a
// usage error; the table is the default output.
func TestFlagsResolve(t *testing.T) {
	for _, c := range []struct {
		f      Flags
		format string
		global bool
		err    string
	}{
		{Flags{}, "table", false, ""},
		{Flags{Global: true}, "table", true, ""},
		{Flags{Scope: "global"}, "table", true, ""},
		{Flags{Global: true, Scope: "global"}, "table", true, ""},
		{Flags{Scope: "project"}, "table", false, ""},
		{Flags{Global: true, Scope: "project"}, "", false, "-g and --scope project name different scopes"},
		{Flags{Scope: "home"}, "", false, `--scope "home": want project or global`},
		{Flags{JSON: true}, "json", false, ""},
		{Flags{JSON: true, Format: "json"}, "json", false, ""},
		{Flags{Format: "sarif"}, "sarif", false, ""},
		{Flags{JSON: true, Format: "sarif"}, "", false, "--json and --format sarif name different outputs"},
		{Flags{Format: "xml"}, "", false, `--format "xml": want table, json or sarif`},
	} {
		format, global, err := c.f.Resolve()
		if c.err != "" {
			if err == nil || err.Error() != c.err || !errors.Is(err, ErrUsage) {
				t.Errorf("%+v: err %v, want usage error %q", c.f, err, c.err)
			}
			continue
		}
		if err != nil || format != c.format || global != c.global {
			t.Errorf("%+v: %q %v %v, want %q %v", c.f, format, global, err, c.format, c.global)
		}
	}
}

// TestVerdict: a failed audit is an error naming the scope and counts; a
// passed one a line to say.
func TestVerdict(t *testing.T) {
	failed := NewReport([]Check{{Name: "lock", Findings: []Finding{{Severity: Warning, Message: "m"}}}}, Options{Strict: true})
	if _, err := failed.Verdict(true, true); err == nil || err.Error() != "audit of the global scope failed: 0 errors, 1 warning, warnings counted as errors (--strict)" {
		t.Errorf("failed verdict: %v", err)
	}
	passed := NewReport(nil, Options{})
	if line, err := passed.Verdict(false, false); err != nil || line != "Audit of the project passed: 0 errors, 0 warnings." {
		t.Errorf("passed verdict: %q, %v", line, err)
	}
}
