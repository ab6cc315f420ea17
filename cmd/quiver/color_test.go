package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/term"
)

// TestColorOnlyOnTerminals: on a terminal, what needs attention is colored
// (an untrusted hook, an error's "quiver:"); in a pipe, with --no-color or
// with NO_COLOR, nothing is.
func TestColorOnlyOnTerminals(t *testing.T) {
	for _, c := range []struct {
		name    string
		tty     bool
		noColor string
		flag    bool
		want    bool
	}{
		{"terminal", true, "", false, true},
		{"pipe", false, "", false, false},
		{"NO_COLOR", true, "1", false, false},
		{"--no-color", true, "", true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			app, stdout, stderr := newTestApp(t)
			app.StdoutIsTTY, app.StderrIsTTY = c.tty, c.tty
			env := app.Getenv
			app.Getenv = func(k string) string {
				if k == "NO_COLOR" {
					return c.noColor
				}
				return env(k)
			}
			project, _ := app.Getwd()
			hook := filepath.Join(project, ".quiver", "hooks", "guard")
			os.MkdirAll(filepath.Dir(hook), 0o755)
			os.WriteFile(hook, []byte("#!/bin/sh\necho before_tool_call\n"), 0o755)
			args := []string{"hook", "list", "--all"}
			if c.flag {
				args = append([]string{"--no-color"}, args...)
			}
			if code := app.run(t.Context(), args); code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			colored := strings.Contains(stdout.String(), term.Yellow+"untrusted\x1b[0m")
			if colored != c.want || (!c.want && strings.Contains(stdout.String(), "\x1b")) {
				t.Errorf("colored=%v, want %v:\n%q", colored, c.want, stdout)
			}
			stderr.Reset()
			args = []string{"plugin", "show", "acme/none"}
			if c.flag {
				args = append([]string{"--no-color"}, args...)
			}
			app.run(t.Context(), args)
			if strings.Contains(stderr.String(), term.Red+"quiver:\x1b[0m") != c.want {
				t.Errorf("error prefix: %q", stderr)
			}
		})
	}
}
