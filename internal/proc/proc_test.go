package proc

import (
	"slices"
	"testing"
	"time"
)

// TestEnvironKeepsHooksFromChangingTheirTrust: whatever the caller's
// environment holds, a hook process gets PYTHONDONTWRITEBYTECODE=1 (so a
// trusted Python hook never writes .pyc files into its fingerprinted
// folder), and neither the shells' startup files nor quiver's token.
func TestEnvironKeepsHooksFromChangingTheirTrust(t *testing.T) {
	t.Setenv("PYTHONDONTWRITEBYTECODE", "")
	t.Setenv("BASH_ENV", "/tmp/x.sh")
	t.Setenv("ENV", "./rc")
	t.Setenv("QUIVER_GIT_TOKEN", "secret")
	t.Setenv("KEEP", "me")
	env := Environ("QUIVER_EVENT=run", "PYTHONDONTWRITEBYTECODE=")
	for _, want := range []string{"PYTHONDONTWRITEBYTECODE=1", "KEEP=me", "QUIVER_EVENT=run"} {
		if !slices.Contains(env, want) {
			t.Errorf("Environ lacks %s", want)
		}
	}
	for _, kv := range env {
		switch kv {
		case "PYTHONDONTWRITEBYTECODE=", "BASH_ENV=/tmp/x.sh", "ENV=./rc", "QUIVER_GIT_TOKEN=secret":
			t.Errorf("Environ holds %s", kv)
		}
	}
}

// TestOverflowThenExitTwo: a process that prints more than its cap and
// then exits 2 is seen to exit 2 (a guard's block), not killed first
// (second attack review of contract v3).
func TestOverflowThenExitTwo(t *testing.T) {
	r := Run(t.Context(), Spec{Path: "/bin/sh", Args: []string{"-c", "head -c 3000000 /dev/zero; echo no >&2; exit 2"},
		Timeout: 10 * time.Second, MaxStdout: 1 << 20, MaxStderr: 1 << 10})
	if r.ExitCode != 2 || !r.StdoutOverflow || len(r.Stdout) != 1<<20 || string(r.Stderr) != "no\n" {
		t.Errorf("exit %d overflow %v kept %d stderr %q", r.ExitCode, r.StdoutOverflow, len(r.Stdout), r.Stderr)
	}
}
