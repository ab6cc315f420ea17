package plugins

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins/audit"
	"github.com/quiver-cli/quiver/internal/plugins/scan"
)

// findings renders a check's findings as "severity rule file:line:col"
// lines, files relative to the scope's root.
func findings(s Scope, c audit.Check) []string {
	var out []string
	for _, f := range audit.NewReport([]audit.Check{c}, audit.Options{Root: s.Root}).Checks[0].Findings {
		out = append(out, fmt.Sprintf("%s %s %s", f.Severity, f.Rule, f.Location()))
	}
	return out
}

func TestLockCheck(t *testing.T) {
	tests := []struct {
		name    string
		tamper  func(t *testing.T, s Scope, n Name)
		want    []string
		message string
	}{
		{"clean", func(*testing.T, Scope, Name) {}, nil, "1 of 1 locked plugin match the lock"},
		{"a file edited", func(t *testing.T, s Scope, n Name) {
			writeTree(t, s.PluginDir(n), map[string]string{"recipes/a.md": "v1, edited"})
		}, []string{"error quiver/drift/modified plugins/acme@guard"}, "0 of 1 locked plugin match the lock"},
		{"the folder removed", func(t *testing.T, s Scope, n Name) {
			os.RemoveAll(s.PluginDir(n))
		}, []string{"error quiver/drift/missing quiver.lock:4"}, "0 of 1 locked plugin match the lock"},
		{"an extra folder", func(t *testing.T, s Scope, n Name) {
			writeTree(t, filepath.Join(s.PluginsDir(), "evil@extra"), map[string]string{"hooks/x*": "#!/bin/sh\n"})
		}, []string{"error quiver/drift/orphaned plugins/evil@extra"}, "1 of 1 locked plugin match the lock"},
		{"the lock's hash edited", func(t *testing.T, s Scope, n Name) {
			data, _ := os.ReadFile(s.LockPath())
			os.WriteFile(s.LockPath(), []byte(strings.Replace(string(data), "hash: sha256:", "hash: sha256:0", 1)), 0o644)
		}, []string{"error quiver/drift/modified plugins/acme@guard"}, "0 of 1 locked plugin match the lock"},
		{"a leftover", func(t *testing.T, s Scope, n Name) {
			os.MkdirAll(filepath.Join(s.PluginsDir(), ".stage-acme@guard-1"), 0o755)
		}, []string{"note quiver/drift/leftover plugins/.stage-acme@guard-1"}, "1 of 1 locked plugin match the lock"},
		{"the lock unreadable", func(t *testing.T, s Scope, n Name) {
			os.WriteFile(s.LockPath(), []byte("plugins: [\n"), 0o644)
		}, []string{"error quiver/lock/invalid quiver.lock"}, "the lock file cannot be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			s := f.in.Scope
			tt.tamper(t, s, f.name)
			c := LockCheck(s)
			if got := findings(s, c); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if c.Message != tt.message || c.Name != "lock" || len(c.Rules) == 0 {
				t.Errorf("check %q, message %q, want %q", c.Name, c.Message, tt.message)
			}
		})
	}
}

// The scope's own items and settings reach agents as plugins' do, so
// the scan covers them too (issue 42, defect 8).
func TestScanCheckOwnItems(t *testing.T) {
	f := newFixture(t)
	s := f.in.Scope
	writeTree(t, s.Root, map[string]string{
		"skills/mine/SKILL.md":  "---\nname: mine\n---\nDo \U000E0041\U000E0042 this\n",
		"recipes/ops/deploy.md": "deploy \u2066now\n",
		"hooks/guard":           "#!/bin/sh\n# \u200b\n",
		"config.yaml":           "plugins:\n  acme/guard:\n    motto: \"be \u202egood\"\n",
	})
	c := ScanCheck(s)
	want := []string{
		"error quiver/unicode/bidi config.yaml:3:16",
		"warning quiver/unicode/zero-width hooks/guard:2:3",
		"error quiver/unicode/bidi recipes/ops/deploy.md:1:8",
		"error quiver/unicode/tag skills/mine/SKILL.md:4:4",
	}
	if got := findings(s, c); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(c.Message, "and 4 of the scope's own scanned: 3 critical, 1 warning") {
		t.Errorf("message %q", c.Message)
	}
}

func TestScanCheck(t *testing.T) {
	f := newFixture(t)
	s := f.in.Scope
	writeTree(t, s.PluginDir(f.name), map[string]string{
		"skills/x/SKILL.md": "---\nname: x\n---\nRun \u202eevil now\n",
		"recipes/soft.md":   "some\u200bthing\n",
	})
	c := ScanCheck(s)
	want := []string{
		"warning quiver/unicode/zero-width plugins/acme@guard/recipes/soft.md:1:5",
		"error quiver/unicode/bidi plugins/acme@guard/skills/x/SKILL.md:4:5",
	}
	if got := findings(s, c); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c.Message != "4 files of 1 plugin and 0 of the scope's own scanned: 1 critical, 1 warning" {
		t.Errorf("message %q", c.Message)
	}
	for _, fd := range c.Findings {
		if fd.Rule == scan.RuleBidi && (strings.Contains(fd.Message, "\u202e") || !strings.HasPrefix(fd.Message, `U+202E bidi override or isolate in plugin acme/guard, in "Run `)) {
			t.Errorf("bidi message %q", fd.Message)
		}
	}

	// The record of the install says the bidi override was let in: it
	// is reported once, saying so; a recorded finding the scan does not
	// make today is kept; a record about other content is not read.
	lock, _ := ReadLock(s.LockPath())
	record := func(hash string, fs ...scan.Finding) {
		data, _ := json.Marshal(ScanRecord{Plugin: f.name.String(), Hash: hash, Findings: fs})
		os.MkdirAll(filepath.Dir(s.ScanRecordPath(f.name)), 0o755)
		if err := os.WriteFile(s.ScanRecordPath(f.name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	bidi := scan.Finding{Rule: scan.RuleBidi, Severity: scan.Critical, File: "skills/x/SKILL.md", Line: 4, Column: 5, CodePoint: "U+202E", Count: 1}
	tag := scan.Finding{Rule: scan.RuleTag, Severity: scan.Critical, File: "old.md", Line: 1, Column: 1, CodePoint: "U+E0041", Count: 1, Hidden: "A"}
	record(lock.Plugins[f.name.String()].Hash, bidi, tag)
	c = ScanCheck(s)
	want = []string{
		"error quiver/unicode/tag plugins/acme@guard/old.md:1:1",
		"warning quiver/unicode/zero-width plugins/acme@guard/recipes/soft.md:1:5",
		"error quiver/unicode/bidi plugins/acme@guard/skills/x/SKILL.md:4:5",
	}
	if got := findings(s, c); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("with the record:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, fd := range c.Findings {
		if letIn := strings.Contains(fd.Message, "let in when it was installed"); letIn != (fd.Rule != scan.RuleZeroWidth) {
			t.Errorf("%s: %q", fd.Rule, fd.Message)
		}
	}
	record("sha256:other", tag)
	if got := findings(s, ScanCheck(s)); len(got) != 2 {
		t.Errorf("a record of other content was read: %q", got)
	}
}
