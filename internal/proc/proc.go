// Package proc runs one child process the way quiver runs other people's
// hooks: in its own process group, with the payload on stdin, stdout and
// stderr captured up to a bound, and a timeout that kills the whole group.
// Run returns within the timeout plus WaitDelay even when a grandchild keeps
// the output pipes open.
package proc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/quiver-cli/quiver/internal/timeouts"
)

// WaitDelay bounds how long Run waits for output pipes after the process
// exited or was killed: a forked grandchild may hold them open forever.
const WaitDelay = 500 * time.Millisecond

// secretVars are quiver's own secrets: never passed to a hook, whoever
// builds the environment. QUIVER_GIT_TOKEN is for quiver's fetches only.
// (GITHUB_TOKEN is the user's own variable and stays: hooks may need it.)
var secretVars = []string{"QUIVER_GIT_TOKEN"}

// startupVars name files a shell reads before the hook's own code:
// BASH_ENV for every non-interactive bash (a `#!/bin/bash` hook, a
// Claude handler's `bash x.sh`), ENV for sh in POSIX mode. Whatever set
// them, the file they name is not part of the hook that trust covers.
var startupVars = []string{"BASH_ENV", "ENV"}

// fixedVars are set for every hook process whatever the caller's
// environment says. PYTHONDONTWRITEBYTECODE keeps Python from writing
// __pycache__/*.pyc beside a hook's modules: under a project's hooks
// folder or plugin those files are part of the fingerprint (a planted
// .pyc could be loaded, so they are never left out of it), and a
// trusted hook writing them on its first run would untrust its own
// project and switch every project guard off at the next event.
var fixedVars = []string{"PYTHONDONTWRITEBYTECODE=1"}

// Environ is the environment of every process quiver starts for a hook
// (`hook`, `run`, validate, doctor, serve): quiver's own environment
// without its secrets and the shells' startup files, plus vars
// ("KEY=value"; a later one wins), plus fixedVars. Run calls it, so no
// caller can hand a hook the token, or leave these out, by accident.
func Environ(vars ...string) []string {
	all := slices.Concat(os.Environ(), vars, fixedVars)
	out := make([]string, 0, len(all))
	for i, kv := range all {
		key, _, _ := strings.Cut(kv, "=")
		if slices.Contains(secretVars, key) || slices.Contains(startupVars, key) {
			continue
		}
		if i < len(all)-len(fixedVars) && slices.ContainsFunc(fixedVars, func(f string) bool {
			return strings.HasPrefix(f, key+"=")
		}) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Spec describes one run.
type Spec struct {
	Path string
	Args []string
	Dir  string
	// Env holds variables added to quiver's own environment (see
	// Environ).
	Env []string
	// Unset names variables of quiver's own environment the process
	// does not get (a variable an agent set for other events).
	Unset []string
	Stdin []byte
	// Timeout bounds the run, as timeouts.OrDefault bounds it: zero (or
	// anything else that is no limit) is timeouts.Default, never "no
	// timeout", and it is at most timeouts.Max.
	Timeout time.Duration
	// MaxStdout and MaxStderr bound what is kept. Going over MaxStdout
	// kills the process (its output is no longer trustworthy); stderr
	// past MaxStderr is dropped.
	MaxStdout, MaxStderr int
}

// Result is what happened.
type Result struct {
	Stdout, Stderr []byte
	// ExitCode is -1 when the process did not exit on its own.
	ExitCode int
	TimedOut bool
	// StdoutOverflow reports output beyond MaxStdout.
	StdoutOverflow bool
	// OutputIncomplete: the pipes were still held open WaitDelay after
	// the process exited (by a process outside its group), so what was
	// read may not be all it wrote.
	OutputIncomplete bool
	// StartErr is set when the process could not be started at all.
	StartErr error
	Duration time.Duration
}

// OverflowGrace is how long a process whose stdout passed its cap may go
// on before its group is killed. A variable only so that tests of endless
// writers need not wait for it.
var OverflowGrace = WaitDelay

// Run starts the process and waits for it.
func Run(ctx context.Context, s Spec) Result {
	ctx, cancel := context.WithTimeout(ctx, timeouts.OrDefault(s.Timeout))
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, s.Path, s.Args...)
	cmd.Dir = s.Dir
	cmd.Env = Environ(s.Env...)
	if len(s.Unset) > 0 {
		cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool {
			key, _, _ := strings.Cut(kv, "=")
			return slices.Contains(s.Unset, key)
		})
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	killGroup := func() error {
		if cmd.Process == nil {
			return nil
		}
		// The negative pid addresses the whole group: the hook and
		// everything it forked that stayed in the group.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.Cancel = killGroup
	cmd.WaitDelay = WaitDelay
	if s.Stdin != nil {
		cmd.Stdin = bytes.NewReader(s.Stdin)
	}
	// Output past the cap is drained and dropped; the hook then has
	// OverflowGrace to end by itself, so that a guard which printed too
	// much and exits 2 is read as the block it is, before its group is
	// killed.
	var overflowKill atomic.Pointer[time.Timer]
	defer func() {
		if t := overflowKill.Load(); t != nil {
			t.Stop()
		}
	}()
	stdout := &capped{max: s.MaxStdout, onOverflow: func() {
		overflowKill.Store(time.AfterFunc(OverflowGrace, func() { killGroup() }))
	}}
	stderr := &capped{max: s.MaxStderr}
	// quiver owns the output pipes (exec's copying goroutines would be cut
	// off by WaitDelay, losing output already written when the machine is
	// too busy to schedule them in time): reading ends at the pipes' EOF,
	// after the process exited and its group was killed.
	var r Result
	outR, outW, err := os.Pipe()
	if err != nil {
		r.StartErr, r.ExitCode = err, -1
		return r
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		r.StartErr, r.ExitCode = err, -1
		return r
	}
	defer outR.Close()
	defer errR.Close()
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close() // the child has its own copies
	errW.Close()
	if err != nil {
		r.StartErr, r.ExitCode = err, -1
		r.Duration = time.Since(start)
		return r
	}
	drained := make(chan struct{}, 2)
	for _, p := range []struct {
		from *os.File
		to   *capped
	}{{outR, stdout}, {errR, stderr}} {
		go func() {
			io.Copy(p.to, p.from)
			drained <- struct{}{}
		}()
	}
	// Wait's error adds nothing to ProcessState and the context.
	_ = cmd.Wait()
	r.Duration = time.Since(start)
	// What the hook left in its group may finish writing for WaitDelay;
	// then the group is killed (nothing of a hook outlives its run) and
	// what it wrote is read to the pipes' end. Only a process that left
	// the group (setsid) and holds the pipes cuts the output, after
	// another WaitDelay, and the cut is reported.
	pending := 2
	wait := func(d time.Duration) bool {
		timer := time.NewTimer(d)
		defer timer.Stop()
		for pending > 0 {
			select {
			case <-drained:
				pending--
			case <-timer.C:
				return false
			}
		}
		return true
	}
	if !wait(WaitDelay) {
		killGroup()
		if !wait(WaitDelay) {
			r.OutputIncomplete = true
			outR.SetReadDeadline(time.Now())
			errR.SetReadDeadline(time.Now())
			wait(time.Hour) // the deadline ends both reads at once
		}
	}
	killGroup()
	r.Stdout, r.StdoutOverflow = stdout.bytes()
	r.Stderr, _ = stderr.bytes()
	r.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
	r.ExitCode = -1
	if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
		r.ExitCode = cmd.ProcessState.ExitCode()
	}
	return r
}

// capped keeps up to max bytes (0 means unbounded) and reports overflow
// once.
type capped struct {
	mu         sync.Mutex
	buf        bytes.Buffer
	max        int
	over       bool
	onOverflow func()
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	if c.max > 0 && c.buf.Len()+len(p) > c.max {
		p = p[:c.max-c.buf.Len()]
		if !c.over {
			c.over = true
			if c.onOverflow != nil {
				c.onOverflow()
			}
		}
	}
	c.buf.Write(p)
	return n, nil // keep draining so the child never blocks on a full pipe
}

func (c *capped) bytes() ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Bytes(), c.over
}
