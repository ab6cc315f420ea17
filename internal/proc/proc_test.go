package proc

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/testkit"
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
	fifo := testkit.FIFO(t, t.TempDir(), "fifo")
	let := func() { testkit.LetGo(t, fifo) }
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

// TestFirstLineOfAProcessThatHasEnded: a process that says it goes to
// the background and ends at once, its answer written after, is handed
// over like one that runs on: whether it has ended when its first line
// is looked at is a race it must not lose (one in eight was read as a
// plain answer, and what it said after its first line was lost).
func TestFirstLineOfAProcessThatHasEnded(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("handover needs pidfds")
	}
	for i := range 50 {
		r := Run(t.Context(), Spec{Path: "sh", Args: []string{"-c", `echo '{"async": true}'; echo done`},
			Timeout: time.Minute, MaxStdout: 1 << 10, MaxStderr: 1 << 10,
			FirstLine: func(line []byte) bool { return string(line) == `{"async": true}` }})
		if r.Running == nil {
			t.Fatalf("run %d: not handed over: exit %d, stdout %q", i, r.ExitCode, r.Stdout)
		}
		if w := r.Running.Wait(); string(w.Stdout) != "{\"async\": true}\ndone\n" || w.ExitCode != 0 {
			t.Fatalf("run %d: waited: exit %d, stdout %q", i, w.ExitCode, w.Stdout)
		}
	}
}

// TestHandedOverAfterItEndedKeepsItsExitStatus: a process that ended
// before it was handed over is no child of its new owner, which could
// not learn its exit status: the handover carries it.
func TestHandedOverAfterItEndedKeepsItsExitStatus(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("handover needs pidfds")
	}
	r := Run(t.Context(), Spec{Path: "sh", Args: []string{"-c", `echo '{"async": true}'; echo failed >&2; exit 3`},
		Timeout: time.Minute, MaxStdout: 1 << 10, MaxStderr: 1 << 10,
		FirstLine: func(line []byte) bool { return string(line) == `{"async": true}` }})
	if r.Running == nil {
		t.Fatalf("not handed over: exit %d", r.ExitCode)
	}
	<-r.Running.exited
	h, err := r.Running.Detach()
	if err != nil {
		t.Fatal(err)
	}
	// A deadline passed before the new owner got to it changes nothing:
	// the process ended by itself, before (attack on the handover).
	a := Adopt(t.Context(), h, time.Now().Add(-time.Second), Spec{MaxStdout: 1 << 10, MaxStderr: 1 << 10})
	if a.ExitCode != 3 || a.TimedOut || string(a.Stderr) != "failed\n" {
		t.Errorf("adopted: exit %d, timed out %v, stderr %q; want 3, false, failed", a.ExitCode, a.TimedOut, a.Stderr)
	}
}

// TestHandedOverAfterItWasKilledSaysSo: a process its timeout killed
// between its first line and the handover, or that a signal ended, goes
// over as killed (-1), not as ended by itself.
func TestHandedOverAfterItWasKilledSaysSo(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("handover needs pidfds")
	}
	for _, c := range []struct {
		name    string
		script  string
		timeout time.Duration
	}{
		{"by its timeout", `echo '{"async": true}'; exec sleep 60`, 50 * time.Millisecond},
		{"by a signal", `echo '{"async": true}'; kill -9 $$`, time.Minute},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Run(t.Context(), Spec{Path: "sh", Args: []string{"-c", c.script}, Timeout: c.timeout,
				MaxStdout: 1 << 10, MaxStderr: 1 << 10,
				FirstLine: func(line []byte) bool { return string(line) == `{"async": true}` }})
			if r.Running == nil {
				t.Skipf("ended before its first line was looked at (exit %d)", r.ExitCode)
			}
			<-r.Running.exited // the timeout's kill, or the signal, has landed
			h, err := r.Running.Detach()
			if err != nil {
				t.Fatal(err)
			}
			if a := Adopt(t.Context(), h, time.Now().Add(time.Minute), Spec{}); a.ExitCode != -1 {
				t.Errorf("adopted: exit %d, want -1", a.ExitCode)
			}
		})
	}
}

// TestFirstLinePayloadArrivesWhole: a process that may be handed over
// but is not reads its payload byte for byte, at sizes around what a
// pipe holds.
func TestFirstLinePayloadArrivesWhole(t *testing.T) {
	for _, n := range []int{1, 4 << 10, 4<<10 + 1, 64 << 10, 64<<10 + 1, 300_000} {
		payload := bytes.Repeat([]byte("payload line\n"), n/13+1)[:n]
		r := Run(t.Context(), Spec{Path: "sh", Args: []string{"-c", `echo first; cat`}, Stdin: payload,
			Timeout: time.Minute, MaxStdout: 1 << 20, MaxStderr: 1 << 10,
			FirstLine: func([]byte) bool { return false }})
		if r.ExitCode != 0 || !bytes.Equal(r.Stdout, append([]byte("first\n"), payload...)) {
			t.Errorf("%d bytes: exit %d, read back %d bytes: %s", n, r.ExitCode, len(r.Stdout)-len("first\n"), r.Stderr)
		}
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

// TestEndKillsTheGroup: when the timeout passes, or the caller's context
// ends, Run kills the process's whole group, a child it forked included,
// and says which it was. The process would otherwise sleep for a minute:
// this test would hang, not pass.
func TestEndKillsTheGroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	t.Run("timeout", func(t *testing.T) {
		pidFile := filepath.Join(t.TempDir(), "child")
		r := Run(t.Context(), Spec{Path: "/bin/sh", Args: []string{"-c", `sleep 60 & echo $! > "$1"; wait`, "sh", pidFile},
			Timeout: 200 * time.Millisecond})
		if r.ExitCode != -1 || !r.TimedOut {
			t.Errorf("exit %d, timed out %v", r.ExitCode, r.TimedOut)
		}
		data, err := os.ReadFile(pidFile)
		if err != nil {
			t.Skipf("the shell was killed before it forked (a slow machine): %v", err)
		}
		checkGone(t, data)
	})
	t.Run("caller", func(t *testing.T) {
		r, pid := runUntilPid(t, "/bin/sh", "-c", `sleep 60 & echo $! > "$1"; wait`, "sh")
		if r.ExitCode != -1 || r.TimedOut {
			t.Errorf("exit %d, timed out %v", r.ExitCode, r.TimedOut)
		}
		checkGone(t, pid)
	})
}

// runUntilPid runs path with args and then a FIFO's path, through which
// the process writes a pid; the test reads it, then cancels Run's
// context, as an interrupted quiver cancels its hooks. It returns Run's
// result and what was read.
func runUntilPid(t *testing.T, path string, args ...string) (Result, []byte) {
	t.Helper()
	fifo := testkit.FIFO(t, t.TempDir(), "fifo")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pid := make(chan []byte, 1)
	go func() {
		data, _ := os.ReadFile(fifo)
		pid <- data
		cancel()
	}()
	r := Run(ctx, Spec{Path: path, Args: append(args, fifo), Timeout: time.Minute})
	// A process that ended before it opened the FIFO leaves the reader
	// waiting for a writer: this one ends its read.
	if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
	return r, <-pid
}

// checkGone fails unless the process whose pid data holds ends within
// ten seconds (a bound, not a wait: it returns as soon as it has).
func checkGone(t *testing.T, data []byte) {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("pid %q: %v", data, err)
	}
	if !endsWithin(pid, 10*time.Second) {
		state, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the hook's child %d still runs: %s", pid, state)
	}
}

// TestEndKillsAHookThatLeftItsGroup: a hook that moves itself into
// quiver's own process group is out of reach of the group kill; the
// caller's end (as the timeout) still ends it, so Run returns (attack on
// issue 30's fifth pass). The hook says when it has moved through a
// FIFO, which the test reads before it cancels.
func TestEndKillsAHookThatLeftItsGroup(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("needs python3")
	}
	script := `import os, sys, time
os.setpgid(0, os.getpgid(os.getppid()))
open(sys.argv[1], "w").write(str(os.getpid()))
time.sleep(60)`
	r, pid := runUntilPid(t, python, "-c", script)
	if r.ExitCode != -1 || r.TimedOut {
		t.Errorf("exit %d, timed out %v: %s", r.ExitCode, r.TimedOut, r.Stderr)
	}
	checkGone(t, pid)
}

// TestHandedOverHookGetsItsWholePayload: a hook that answers before it
// reads a payload larger than a pipe holds still reads all of it after
// the handover, in a quiver that lives on (hook serve); and once it
// ends, nothing of quiver's stays on its stdin (attack on issue 30's
// fifth pass).
func TestHandedOverHookGetsItsWholePayload(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("handover needs pidfds")
	}
	fifo := testkit.FIFO(t, t.TempDir(), "fifo")
	p, h, spec := handOverMiB(t, `echo '{"async": true}'; read line < `+fifo+`; wc -c | tr -d ' '`)
	// The hook run's writer has stopped: what it did not write is the
	// new owner's to write, all of it and only it (a writer left behind
	// would add bytes here, or, in a one-shot quiver that exits, cut
	// them).
	<-p.stdinDone
	if h.Stdin == nil || len(h.Unwritten) == 0 {
		t.Fatalf("handed over stdin %v with %d of %d bytes unwritten", h.Stdin, len(h.Unwritten), len(spec.Stdin))
	}
	testkit.LetGo(t, fifo)
	a := Adopt(t.Context(), h, time.Now().Add(time.Minute), spec)
	if want := fmt.Sprintf("{\"async\": true}\n%d\n", len(spec.Stdin)); string(a.Stdout) != want || a.ExitCode != 0 {
		t.Errorf("adopted: exit %d, stdout %q, want %q", a.ExitCode, a.Stdout, want)
	}
}

// TestHandedOverHookLeavesNoWriter: a handed-over hook ends without
// reading its payload while a child that left its group (setsid) holds
// its stdin; the payload's writer still ends when the hook does, instead
// of waiting on that child forever in a quiver that lives on.
func TestHandedOverHookLeavesNoWriter(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("handover needs pidfds")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("needs setsid")
	}
	pidFile, fifo := filepath.Join(t.TempDir(), "child"), testkit.FIFO(t, t.TempDir(), "fifo")
	// The hook runs on until the test lets it end (a hook that has
	// ended by its first line is not handed over).
	_, h, spec := handOverMiB(t, `exec 3<&0; setsid sleep 60 0<&3 & echo $! > "$1"; echo '{"async": true}'; read line < "$2"`, "sh", pidFile, fifo)
	testkit.LetGo(t, fifo)
	defer func() {
		if data, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}()
	// Adopt returns once its writer has ended: it would wait for the
	// child's minute before.
	Adopt(t.Context(), h, time.Now().Add(time.Minute), spec)
}

// handOverMiB runs a shell script with a 1 MiB payload, which says on
// its first line that it runs on, and hands it over.
func handOverMiB(t *testing.T, script string, args ...string) (*Running, Handover, Spec) {
	t.Helper()
	spec := Spec{Path: "sh", Args: append([]string{"-c", script}, args...),
		Stdin: bytes.Repeat([]byte("x"), 1<<20), Timeout: time.Minute, MaxStdout: 1 << 10,
		FirstLine: func(line []byte) bool { return string(line) == `{"async": true}` }}
	r := Run(t.Context(), spec)
	if r.Running == nil {
		t.Fatalf("not handed over: %+v", r)
	}
	h, err := r.Running.Detach()
	if err != nil {
		t.Fatal(err)
	}
	return r.Running, h, spec
}
