package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditExitCodes: quiver audit exits 0 when no finding is an error
// (warnings are listed), 1 when one is or, with --strict, when a warning
// is, and 2 on a usage error, --format sarif included: that --format is a
// CI job's, not an agent's, to which hook run's own usage errors still
// exit 1.
func TestAuditExitCodes(t *testing.T) {
	app, stdout, stderr := newTestApp(t)
	project, _ := app.Getwd()
	run := func(args ...string) int {
		stdout.Reset()
		stderr.Reset()
		return app.run(t.Context(), args)
	}
	want := func(code int, args ...string) {
		t.Helper()
		if got := run(args...); got != code {
			t.Errorf("%s: exit %d, want %d; stderr:\n%s", strings.Join(args, " "), got, code, stderr)
		}
	}
	want(exitOK, "audit")
	want(exitOK, "audit", "-g", "--format", "sarif")
	want(exitOK, "audit", "--scope", "global", "--json")
	for _, args := range [][]string{
		{"audit", "--format", "xml"},
		{"audit", "--format", "sarif", "--json"},
		{"audit", "--scope", "everywhere"},
		{"audit", "-g", "--scope", "project"},
		{"audit", "extra"},
		{"audit", "--format=sarif", "--bogus"},
	} {
		want(exitUsage, args...)
		if !strings.HasPrefix(stderr.String(), "quiver: ") || !strings.Contains(stderr.String(), "Usage: quiver audit [flags]") {
			t.Errorf("%v: stderr %q", args, stderr)
		}
	}
	want(exitFailure, "hook", "run", "--format", "nosuch", "before_tool_call")
	want(exitUsage, "plugin", "init", filepath.Join(t.TempDir(), "p"), "--format", "nosuch")

	// An untrusted project hook: a warning.
	hook := filepath.Join(project, ".quiver", "hooks", "guard")
	os.MkdirAll(filepath.Dir(hook), 0o755)
	if err := os.WriteFile(hook, []byte("#!/bin/sh\n[ \"$1\" = hook ] && echo before_tool_call\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	want(exitOK, "audit")
	if !strings.Contains(stdout.String(), "warning   quiver/hooks/untrusted  .quiver/hooks/guard  project hook guard is not trusted") {
		t.Errorf("stdout:\n%s", stdout)
	}
	want(exitFailure, "audit", "--strict")
	want(exitFailure, "audit", "--strict", "--format", "sarif")
	if !strings.Contains(stdout.String(), `"ruleId": "quiver/hooks/untrusted"`) || stderr.String() != "quiver: audit of the project failed: 0 errors, 1 warning, warnings counted as errors (--strict)\n" {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}

	// A locked plugin that is not installed: an error.
	lock := "version: 1\nplugins:\n  acme/gone:\n    source: https://example.com/acme/gone\n    hash: sha256:00\n"
	if err := os.WriteFile(filepath.Join(project, ".quiver", "quiver.lock"), []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}
	want(exitFailure, "audit", "--json")
	if !strings.Contains(stdout.String(), `"passed": false`) || !strings.Contains(stdout.String(), `"file": ".quiver/quiver.lock",`+"\n"+`          "line": 3`) {
		t.Errorf("stdout:\n%s", stdout)
	}
	want(exitOK, "audit", "-g") // the user's scope is another matter
}
