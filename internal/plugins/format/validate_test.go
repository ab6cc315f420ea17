package format

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateRunsNothing: validate reads a plugin and reports what an
// author got wrong, and executes none of it (SPEC §9).
func TestValidateRunsNothing(t *testing.T) {
	dir := t.TempDir()
	ran := filepath.Join(t.TempDir(), "ran")
	write := func(rel, body string, mode os.FileMode) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("hooks/check", "#!/bin/sh\ntouch "+ran+"\n", 0o755)
	write("hooks/noshebang", "echo hi\n", 0o755)
	write("skills/s/SKILL.md", "---\nname: s\n---\nbody\n", 0o644)
	write(".claude-plugin/plugin.json", `{"name": "x"}`, 0o644)
	write("cc/hooks.json", "", 0o644)
	findings, natives := Validate(dir)
	var got []string
	for _, f := range findings {
		got = append(got, f.Severity+" "+f.File+": "+f.Reason)
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"error hooks/noshebang: no #! line",
		"warning skills/s/SKILL.md: frontmatter has no description",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %q in:\n%s", want, all)
		}
	}
	if len(natives) != 1 || filepath.Base(natives[0].Path) != "check" {
		t.Errorf("native hooks to run: %+v", natives)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("validate ran a hook")
	}
}

// TestNewReport: a report counts errors and warnings (not notes) and
// lists [] rather than null.
func TestNewReport(t *testing.T) {
	r := NewReport("", nil)
	if r.Findings == nil || r.Errors != 0 || r.Warnings != 0 {
		t.Errorf("empty: %+v", r)
	}
	r = NewReport("/p", []Finding{{Severity: "error"}, {Severity: "warning"}, {Severity: "warning"}, {Severity: "info"}})
	if r.Dir != "/p" || r.Errors != 1 || r.Warnings != 2 || len(r.Findings) != 4 {
		t.Errorf("counted: %+v", r)
	}
}

// TestValidateHandlerTypes: validate says what an exec form, an http
// handler and a prompt handler do here.
func TestValidateHandlerTypes(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "hooks"), 0o755)
	os.WriteFile(filepath.Join(dir, "hooks", "hooks.json"), []byte(`{"hooks":{"PreToolUse":[{"hooks":[
		{"type":"command","command":"node script.js","args":["${CLAUDE_PLUGIN_ROOT}/missing.js"]},
		{"type":"http","url":"https://hooks.example/","headers":{"Authorization":"Bearer $GITHUB_TOKEN"},"allowedEnvVars":["GITHUB_TOKEN"]},
		{"type":"prompt","prompt":"safe?"}]}]}}`), 0o644)
	findings, _ := Validate(dir)
	var got []string
	for _, f := range findings {
		got = append(got, f.Severity+" "+f.Reason)
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		`warning "command" holds whitespace, but with "args" it is one executable's name`,
		"error the command names ${CLAUDE_PLUGIN_ROOT}/missing.js, which is not in the plugin",
		"warning allowedEnvVars lists GITHUB_TOKEN, a credential quiver never puts in a header",
		"info needs Claude Code's model: Claude Code runs it itself",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %q in:\n%s", want, all)
		}
	}
}
