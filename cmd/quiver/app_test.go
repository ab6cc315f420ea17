package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/quiver-cli/quiver/internal/gitserver"
	"github.com/quiver-cli/quiver/internal/plugins/format"
	"github.com/quiver-cli/quiver/internal/proc"
	"github.com/quiver-cli/quiver/internal/term"
)

// newTestApp returns an App whose world is a temp project and home.
func newTestApp(t *testing.T) (*App, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	project := t.TempDir()
	env := map[string]string{"QUIVER_HOME": filepath.Join(t.TempDir(), ".quiver"), "HOME": t.TempDir()}
	var stdout, stderr bytes.Buffer
	return &App{
		Printer: term.Printer{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return env[k] }},
		Stdin:   strings.NewReader(""),
		Getwd:   func() (string, error) { return project, nil },
	}, &stdout, &stderr
}

// Exit codes are the contract scripts and agents rely on (SPEC §7): 0
// success, 1 failure, 2 usage; every error is one "quiver: " line.
func TestExitCodes(t *testing.T) {
	tests := []struct {
		args       []string
		code       int
		stderrLine string
	}{
		{[]string{"version"}, exitOK, ""},
		{[]string{"plugin", "list", "--json"}, exitOK, ""},
		{[]string{"--bogus"}, exitUsage, "quiver: unknown flag: --bogus"},
		{[]string{"nosuch"}, exitUsage, `quiver: "nosuch" is not a quiver command`},
		{[]string{"plugin", "list", "-g", "--local"}, exitUsage, "quiver: -g and --local exclude each other"},
		{[]string{"plugin", "remove", "../x"}, exitUsage, `quiver: invalid plugin name "../x"`},
		{[]string{"plugin", "show", "a/b/c"}, exitUsage, `quiver: invalid plugin name "a/b/c": want org/repo`},
		{[]string{"plugin", "add", "a/b/../c"}, exitUsage, `quiver: invalid plugin spec: the folder to install: unsafe path "../c"`},
		{[]string{"plugin", "remove", "acme/guard"}, exitFailure, "quiver: plugin acme/guard is not installed in the local scope; see quiver plugin list"},
		{[]string{"plugin", "show", "acme/guard"}, exitFailure, "quiver: plugin acme/guard is not installed; see quiver plugin list"},
		{[]string{"plugin", "add", "./nowhere"}, exitFailure, "quiver: ./nowhere: no such folder"},
		{[]string{"--project", "/nonexistent/dir", "plugin", "list"}, exitFailure, "quiver: project directory /nonexistent/dir"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			app, _, stderr := newTestApp(t)
			if code := app.run(t.Context(), tt.args); code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			if tt.stderrLine == "" {
				if stderr.Len() > 0 && tt.code == exitOK && !strings.HasPrefix(stderr.String(), "No plugins") {
					t.Errorf("unexpected stderr %q", stderr)
				}
				return
			}
			first, _, _ := strings.Cut(stderr.String(), "\n")
			if !strings.HasPrefix(first, tt.stderrLine) {
				t.Errorf("stderr first line %q, want prefix %q", first, tt.stderrLine)
			}
		})
	}
}

func TestListJSONEmptyIsArray(t *testing.T) {
	app, stdout, _ := newTestApp(t)
	if code := app.run(t.Context(), []string{"plugin", "list", "--json"}); code != 0 {
		t.Fatal(code)
	}
	if stdout.String() != "[]\n" {
		t.Errorf("stdout %q, want []", stdout)
	}
}

// Failures of add against a real server exit 1 (usage mistakes exit 2);
// the scripts check the messages and that nothing was left behind.
func TestAddFailureExitCodes(t *testing.T) {
	srv := gitserver.New(t, gitserver.Options{})
	src := t.TempDir()
	good := filepath.Join(src, "good")
	os.MkdirAll(filepath.Join(good, "recipes"), 0o755)
	os.WriteFile(filepath.Join(good, "recipes", "r.md"), []byte("r"), 0o644)
	empty := filepath.Join(src, "empty")
	os.MkdirAll(empty, 0o755)
	os.WriteFile(filepath.Join(empty, "README.md"), []byte("r"), 0o644)
	for name, dir := range map[string]string{"acme/good": good, "acme/empty": empty, "acme/private": good} {
		if _, err := srv.Commit(name, "main", dir, "c"); err != nil {
			t.Fatal(err)
		}
	}
	app, _, stderr := newTestApp(t)
	getenv := app.Getenv
	app.Getenv = func(k string) string {
		if k == "QUIVER_GIT_BASE" {
			return srv.URL
		}
		return getenv(k)
	}
	if code := app.run(t.Context(), []string{"plugin", "add", "acme/good"}); code != exitOK {
		t.Fatalf("setup: exit %d: %s", code, stderr)
	}
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"plugin", "add", "acme/nope"}, exitFailure},
		{[]string{"plugin", "add", "acme/empty"}, exitFailure},
		{[]string{"plugin", "add", "acme/good"}, exitFailure},
		{[]string{"plugin", "add", "--force", "acme/good@nope"}, exitFailure},
		{[]string{"plugin", "add", "acme/good", "--ref", "../../config"}, exitUsage},
		{[]string{"plugin", "add", "acme/good", "--name", "org@../x"}, exitUsage},
		{[]string{"plugin", "add", "acme/empty", "acme/nope"}, exitFailure},
	}
	for _, tt := range tests {
		stderr.Reset()
		if code := app.run(t.Context(), tt.args); code != tt.code {
			t.Errorf("%v: exit %d, want %d; stderr:\n%s", tt.args, code, tt.code, stderr)
		}
		if !strings.HasPrefix(stderr.String(), "quiver: ") {
			t.Errorf("%v: stderr %q does not start with quiver:", tt.args, stderr)
		}
	}
	srv.SetAuth("x-access-token", "tok")
	stderr.Reset()
	if code := app.run(t.Context(), []string{"plugin", "add", "acme/private"}); code != exitFailure {
		t.Errorf("auth required: exit %d, want 1: %s", code, stderr)
	}
}

// doctor flags plugins installed from a local git repository when git, which
// quiver needs to clone them again, is not on PATH.
func TestDoctorReportsMissingGit(t *testing.T) {
	src := filepath.Join(t.TempDir(), "tool")
	os.MkdirAll(filepath.Join(src, "recipes"), 0o755)
	os.WriteFile(filepath.Join(src, "recipes", "r.md"), []byte("r"), 0o644)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "c"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = src
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	app, stdout, stderr := newTestApp(t)
	if code := app.run(t.Context(), []string{"plugin", "add", src, "--name", "me/tool"}); code != 0 {
		t.Fatalf("add: %d %s", code, stderr)
	}
	if code := app.run(t.Context(), []string{"doctor"}); code != 0 {
		t.Fatalf("healthy doctor exited %d: %s%s", code, stdout, stderr)
	}
	t.Setenv("PATH", t.TempDir())
	stdout.Reset()
	if code := app.run(t.Context(), []string{"doctor"}); code != exitFailure {
		t.Errorf("doctor without git exited %d", code)
	}
	if !strings.Contains(stdout.String(), "local plugin me/tool comes from a local git repository, and git is not installed") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

// A run builds only the top-level command its arguments name, and it must
// be the command the whole tree holds under that name; anything else gets
// the whole tree.
func TestRootBuildsTheNamedCommand(t *testing.T) {
	app, _, _ := newTestApp(t)
	all := app.newRootCmd().Commands()
	for _, c := range all {
		for _, args := range [][]string{{c.Name()}, {"--project", "hook", c.Name(), "x", "--json"}, {"-q", c.Name(), "--help"}} {
			got := app.newRootCmd(args...).Commands()
			if len(got) != 1 || got[0].Name() != c.Name() || got[0].Short != c.Short {
				t.Errorf("newRootCmd(%q) built %d commands, want only %s", args, len(got), c.Name())
			}
		}
	}
	for _, args := range [][]string{nil, {"help", "hook"}, {"nosuch"}, {"__complete", "hook", ""}, {"--bogus", "hook"}} {
		if got := app.newRootCmd(args...).Commands(); len(got) != len(all) {
			t.Errorf("newRootCmd(%q) built %d commands, want all %d", args, len(got), len(all))
		}
	}
}

// BenchmarkRootCmd is what building the command tree costs every process:
// the whole tree, and the part hook run needs.
func BenchmarkRootCmd(b *testing.B) {
	for _, args := range [][]string{nil, {"hook", "run", "before_tool_call"}} {
		b.Run(strings.Join(append([]string{"tree"}, args...), " "), func(b *testing.B) {
			app := newApp()
			for b.Loop() {
				app.newRootCmd(args...)
			}
		})
	}
}

// BenchmarkCommand is what quiver does for an agent event after package
// initialisation, in process: the command tree, flags, the scopes,
// discovery (warm caches) and the answer. Start-up itself (the runtime,
// the linked packages' init) is measured by cmd/quiverbench against an
// empty Go program.
func BenchmarkCommand(b *testing.B) {
	payload := filepath.Join(b.TempDir(), "payload.json")
	if err := os.WriteFile(payload, []byte(`{"tool_name":"bash","tool_input":{"command":"ls"}}`), 0o644); err != nil {
		b.Fatal(err)
	}
	var others []string // events of the plugins' hooks: none is before_tool_call
	for _, ev := range format.Events() {
		if ev != format.BeforeToolCall && len(others) < 5 {
			others = append(others, ev)
		}
	}
	for _, c := range []struct {
		name    string
		plugins int
		args    []string
		stdin   string
	}{
		{"version", 0, []string{"version"}, ""},
		{"hook run/plugins=0", 0, []string{"hook", "run", "before_tool_call", "--payload", payload}, ""},
		{"hook run/plugins=100", 100, []string{"hook", "run", "before_tool_call", "--payload", payload}, ""},
		// The doors and listings an agent's session calls (issue 30's hot
		// path): Claude Code's own hook format, and the listings.
		{"hook run --format claude/plugins=100", 100, []string{"hook", "run", "PreToolUse", "--format", "claude"},
			`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`},
		{"hook list --json/plugins=100", 100, []string{"hook", "list", "--json"}, ""},
		{"skill list --json/plugins=100", 100, []string{"skill", "list", "--json"}, ""},
	} {
		b.Run(c.name, func(b *testing.B) {
			home, project := filepath.Join(b.TempDir(), ".quiver"), b.TempDir()
			for i := range c.plugins {
				for h, ev := range others {
					p := filepath.Join(home, "plugins", fmt.Sprintf("org%d@plugin%d", i, i), "hooks", fmt.Sprintf("hook%d", h))
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						b.Fatal(err)
					}
					if err := os.WriteFile(p, fmt.Appendf(nil, "#!/bin/sh\n[ \"$1\" = hook ] && echo %s\nexit 0\n", ev), 0o755); err != nil {
						b.Fatal(err)
					}
				}
				for s := range 3 {
					p := filepath.Join(home, "plugins", fmt.Sprintf("org%d@plugin%d", i, i), "skills", fmt.Sprintf("skill%d", s), "SKILL.md")
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						b.Fatal(err)
					}
					if err := os.WriteFile(p, fmt.Appendf(nil, "---\nname: skill%d\ndescription: Skill %d.\n---\n\nDo it.\n", s, s), 0o644); err != nil {
						b.Fatal(err)
					}
				}
			}
			env := map[string]string{"QUIVER_HOME": home, "QUIVER_PROJECT_DIR": project, "HOME": b.TempDir()}
			run := func() {
				var stdout, stderr bytes.Buffer
				app := &App{Stdin: strings.NewReader(c.stdin),
					Printer: term.Printer{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return env[k] }},
					Getwd:   func() (string, error) { return project, nil }}
				if code := app.run(b.Context(), c.args); code != exitOK {
					b.Fatalf("quiver %s: exit %d: %s", strings.Join(c.args, " "), code, stderr.String())
				}
			}
			run() // the first run fills the caches (asks each hook its events)
			for b.Loop() {
				run()
			}
		})
	}
}

// TestFormatFlagGiven: only hook run's --format makes the caller an agent
// (exit 1 for quiver's own errors); audit's and plugin init's are a
// person's.
func TestFormatFlagGiven(t *testing.T) {
	for _, c := range []struct {
		args string
		want bool
	}{
		{"hook run --format claude PreToolUse", true},
		{"--project /p hook run --format=gemini BeforeTool", true},
		{"hook run --bogus --format codex", true},
		{"hook run before_tool_call", false},
		{"audit --format sarif", false},
		{"plugin init --format claude x", false},
		{"run hook --format claude", false},
	} {
		if got := formatFlagGiven(strings.Fields(c.args)); got != c.want {
			t.Errorf("%q: %v, want %v", c.args, got, c.want)
		}
	}
}

// TestLastWordsKeepAPrintedAnswer: a door prints one answer. A signal
// that ends the process before it answered prints the deny and exits as
// the deny asks; one that comes after the answer was printed prints
// nothing more and exits as the printed answer asked, so a printed deny
// (exit 2 for Claude) is not turned into a signal's 143.
func TestLastWordsKeepAPrintedAnswer(t *testing.T) {
	term := proc.Interrupted{Signal: syscall.SIGTERM}
	deny := func(string) answer { return answer{print: func() { fmt.Print("") }, exit: 2} }
	for _, c := range []struct {
		name     string
		answered bool
		exit     int
	}{{"before the answer", false, 2}, {"after the answer", true, 3}} {
		app, _, _ := newTestApp(t)
		printed := 0
		run := func() (answer, error) {
			if !c.answered {
				return answer{}, errors.New("the signal came first")
			}
			return answer{print: func() { printed++ }, exit: 3}, nil
		}
		app.answerOnce(true, deny, run)
		if got := app.lastWords(term); got != c.exit || printed > 1 {
			t.Errorf("%s: last words exit %d (want %d), answer printed %d times", c.name, got, c.exit, printed)
		}
		if app.lastWords(term) != c.exit {
			t.Errorf("%s: a second signal changes the exit code", c.name)
		}
	}
}
