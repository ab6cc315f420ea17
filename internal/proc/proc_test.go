package proc

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
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

// TestFirstLineHandover: a process whose first line asks for it runs on
// after Run returns; handed over (Detach), another owner reads the rest
// of its output (Adopt) after what was read already; waited for
// instead, it is read as Run reads it.
func TestFirstLineHandover(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("handover needs pidfds")
	}
	// The process waits on a FIFO that the test writes only once Run
	// has returned, so it is still running when its first line is read.
	fifo := filepath.Join(t.TempDir(), "go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	let := func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		f.WriteString("go\n")
		f.Close()
	}
	spec := func() Spec {
		return Spec{Path: "sh", Args: []string{"-c", `echo '{"async": true}'; read line < ` + fifo + `; echo "then $line"; echo err >&2`},
			Timeout: time.Minute, MaxStdout: 1 << 10, MaxStderr: 1 << 10,
			FirstLine: func(line []byte) bool { return string(line) == `{"async": true}` }}
	}
	r := Run(t.Context(), spec())
	if r.Running == nil {
		t.Fatalf("not handed over: %+v", r)
	}
	let()
	h, err := r.Running.Detach()
	if err != nil {
		t.Fatal(err)
	}
	a := Adopt(t.Context(), h, time.Now().Add(time.Minute), spec())
	if string(a.Stdout) != "{\"async\": true}\nthen go\n" || string(a.Stderr) != "err\n" || a.ExitCode != 0 || a.TimedOut {
		t.Errorf("adopted: %+v (stdout %q stderr %q)", a, a.Stdout, a.Stderr)
	}
	r = Run(t.Context(), spec())
	if r.Running == nil {
		t.Fatalf("not handed over: %+v", r)
	}
	let()
	w := r.Running.Wait()
	if string(w.Stdout) != "{\"async\": true}\nthen go\n" || w.ExitCode != 0 {
		t.Errorf("waited: %+v (stdout %q)", w, w.Stdout)
	}
	s := spec()
	s.FirstLine = func([]byte) bool { return false }
	go let()
	if r := Run(t.Context(), s); r.Running != nil || string(r.Stdout) != "{\"async\": true}\nthen go\n" {
		t.Errorf("kept: %+v (stdout %q)", r, r.Stdout)
	}
}

// TestAdoptKillsAtDeadline: an adopted process past its deadline is
// killed with its group.
func TestAdoptKillsAtDeadline(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("handover needs pidfds")
	}
	r := Run(t.Context(), Spec{Path: "sh", Args: []string{"-c", `echo '{"async": true}'; sleep 1000 & wait`}, Timeout: time.Minute,
		FirstLine: func([]byte) bool { return true }})
	h, err := r.Running.Detach()
	if err != nil {
		t.Fatal(err)
	}
	a := Adopt(t.Context(), h, time.Now().Add(20*time.Millisecond), Spec{})
	if !a.TimedOut || a.ExitCode != -1 || a.OutputIncomplete {
		t.Errorf("adopted past its deadline: %+v", a)
	}
}
