// Package proc runs one child process the way quiver runs other people's
// hooks: in its own process group, with the payload on stdin, stdout and
// stderr captured up to a bound, and a timeout that kills the whole group.
// Run returns within the timeout plus two WaitDelays (drain) even when a
// grandchild keeps the pipes open.
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
	// FirstLine, when set, hears the first line of stdout (without its
	// newline, at most MaxFirstLine bytes) as soon as it is complete,
	// while the process still runs. When it returns true, Run returns at
	// once with Result.Running, the process running on.
	FirstLine func(line []byte) bool
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
	// Running, set only when Spec.FirstLine said so, is the process
	// still running; nothing else of the Result is.
	Running *Running
}

// OverflowGrace is how long a process whose stdout passed its cap may go
// on before its group is killed. A variable only so that tests of endless
// writers need not wait for it.
var OverflowGrace = WaitDelay

// MaxFirstLine bounds the first line of stdout that Spec.FirstLine hears:
// a longer one is no line it is asked about.
const MaxFirstLine = 64 << 10

// Run starts the process and waits for it; with Spec.FirstLine, it may
// return while the process runs on (Result.Running).
func Run(ctx context.Context, s Spec) Result {
	p, r := start(ctx, s)
	if p == nil {
		return r
	}
	if s.FirstLine != nil && p.firstLine(s.FirstLine) {
		return Result{ExitCode: -1, Running: p}
	}
	return p.Wait()
}

// Running is a process that Run let run on because its first line of
// stdout said so (Spec.FirstLine). Its output is still read and its
// timeout still holds until the caller either waits for it (Wait, the
// rest of Run) or hands it to another owner (Detach).
type Running struct {
	cmd    *exec.Cmd
	cancel context.CancelFunc
	ctx    context.Context
	start  time.Time

	outR, errR *os.File
	// inW is stdin's write end (nil without a payload); stdinDone is
	// closed once its writer has written all, given up, or been stopped
	// by Detach, which then finds the part of the payload it did not
	// write in unwritten.
	inW            *os.File
	stdinDone      chan struct{}
	unwritten      []byte
	stdout, stderr *capped
	drained        chan struct{}
	exited         chan struct{}
	overflowKill   atomic.Pointer[time.Timer]
	// detached stops quiver from killing what it no longer owns.
	detached atomic.Bool
	// ended is when firstLine saw the process end before its first
	// line was read: the wait for that line counts towards the WaitDelay
	// drain gives what the process left holding its pipes.
	ended time.Time
	// pidfd refers to the process whatever happens to its pid; nil
	// where the system has none (then Detach refuses).
	pidfd *os.File
	// goOn lets the stdout reader, paused after the first line, go on.
	goOn chan bool
	// firstRead is what the reader read up to and with the first line.
	firstRead chan []byte
	// reap waits for the process, then closes exited. Wait calls it,
	// unless the process may run on past Run (Spec.FirstLine, goOn set):
	// then a goroutine of its own does. One goroutine fewer to start and
	// wake for every hook (BenchmarkRunOverSpawn).
	reap func()
}

// start starts s's process and its readers; a process that cannot start
// is the Result.
func start(ctx context.Context, s Spec) (*Running, Result) {
	ctx, cancel := context.WithTimeout(ctx, timeouts.OrDefault(s.Timeout))
	p := &Running{ctx: ctx, cancel: cancel, start: time.Now(), drained: make(chan struct{}, 2), exited: make(chan struct{})}
	// Not exec.CommandContext: its end would kill the process even after
	// Detach; quiver's own watch below kills the group unless detached.
	cmd := exec.Command(s.Path, s.Args...)
	p.cmd = cmd
	cmd.Dir = s.Dir
	cmd.Env = Environ(s.Env...)
	if len(s.Unset) > 0 {
		cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool {
			key, _, _ := strings.Cut(kv, "=")
			return slices.Contains(s.Unset, key)
		})
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Output past the cap is drained and dropped; the hook then has
	// OverflowGrace to end by itself, so that a guard which printed too
	// much and exits 2 is read as the block it is, before its group is
	// killed.
	p.stdout = &capped{max: s.MaxStdout, onOverflow: func() {
		p.overflowKill.Store(time.AfterFunc(OverflowGrace, func() { p.killGroup() }))
	}}
	p.stderr = &capped{max: s.MaxStderr}
	// quiver owns the pipes. exec's copying goroutines would be cut off
	// by WaitDelay, losing output already written when the machine is too
	// busy to schedule them in time: reading ends at the pipes' EOF,
	// after the process exited and its group was killed. And exec would
	// wait a WaitDelay of its own for a payload that a grandchild holding
	// stdin never reads, before drain's two (SPEC §8: the timeout plus
	// 1 s); Wait closes stdin's write end instead.
	var ours, theirs []*os.File // the pipes' ends: quiver's, the child's
	closeAll := func(files []*os.File) {
		for _, f := range files {
			f.Close()
		}
	}
	fail := func(err error) (*Running, Result) {
		closeAll(ours)
		closeAll(theirs)
		cancel()
		return nil, Result{StartErr: err, ExitCode: -1, Duration: time.Since(p.start)}
	}
	var err error
	var outW, errW, inR *os.File
	if p.outR, outW, err = os.Pipe(); err != nil {
		return fail(err)
	}
	ours, theirs = append(ours, p.outR), append(theirs, outW)
	if p.errR, errW, err = os.Pipe(); err != nil {
		return fail(err)
	}
	ours, theirs = append(ours, p.errR), append(theirs, errW)
	cmd.Stdout, cmd.Stderr = outW, errW
	if s.Stdin != nil { // else exec gives the child /dev/null
		if inR, p.inW, err = os.Pipe(); err != nil {
			return fail(err)
		}
		ours, theirs = append(ours, p.inW), append(theirs, inR)
		cmd.Stdin = inR
	}
	err = cmd.Start()
	closeAll(theirs) // the child has its own copies
	theirs = nil
	if err != nil {
		return fail(err)
	}
	if p.inW != nil {
		p.stdinDone = make(chan struct{})
		go func() {
			defer close(p.stdinDone)
			// An error is the hook's choice not to read it all (EPIPE),
			// the end of waiting for it (closed by Wait), or Detach
			// stopping the writer to hand the rest over.
			n, err := p.inW.Write(s.Stdin)
			if errors.Is(err, os.ErrDeadlineExceeded) {
				p.unwritten = s.Stdin[n:]
				return
			}
			p.inW.Close()
		}()
	}
	if s.FirstLine != nil {
		// Opened before anything waits for the process, so the pid is
		// still its own.
		p.pidfd, _ = openPidfd(cmd.Process.Pid)
		p.goOn, p.firstRead = make(chan bool, 1), make(chan []byte, 1)
	}
	// The timeout, or the caller's end, kills the group: no goroutine
	// waits for it.
	stopKill := context.AfterFunc(ctx, func() { p.killGroup() })
	p.reap = func() {
		// Wait's error adds nothing to ProcessState and the context.
		_ = cmd.Wait()
		stopKill()
		close(p.exited)
	}
	if s.FirstLine != nil {
		// The process may run on past Run: reaped in the background.
		go p.reap()
	}
	go func() {
		if p.goOn != nil {
			read := readFirstLine(p.outR)
			p.firstRead <- read
			if !<-p.goOn {
				p.drained <- struct{}{}
				return
			}
			p.stdout.Write(read)
		}
		copyOut(p.stdout, p.outR)
		p.drained <- struct{}{}
	}()
	go func() {
		copyOut(p.stderr, p.errR)
		p.drained <- struct{}{}
	}()
	return p, Result{}
}

// readFirstLine reads r until a newline, MaxFirstLine bytes, or the end.
func readFirstLine(r io.Reader) []byte {
	var read []byte
	buf := make([]byte, 4096)
	for len(read) < MaxFirstLine && !bytes.Contains(read, []byte("\n")) {
		n, err := r.Read(buf)
		read = append(read, buf[:n]...)
		if err != nil {
			break
		}
	}
	return read
}

// firstLine waits for the first line of stdout (or the process's end,
// or its timeout) and reports whether decide wants the process to run on
// without Run.
func (p *Running) firstLine(decide func([]byte) bool) bool {
	var read []byte
	got := false
	select {
	case read = <-p.firstRead:
		got = true
	case <-p.exited:
		// Ended already: a first line it wrote is in the pipe, for the
		// reader to hand over as soon as it runs. Only something it left
		// holding the pipe keeps the reader from it; that gets no more
		// than the WaitDelay Wait's drain gives it, counted from here.
		p.ended = time.Now()
		t := time.NewTimer(WaitDelay)
		select {
		case read = <-p.firstRead:
			got = true
		case <-t.C:
		}
		t.Stop()
	case <-p.ctx.Done():
	}
	// A process whose first line sends it to the background is there
	// even if it has ended since, as Claude reads it: what it wrote after
	// is its background answer, which its new owner reads from the pipe.
	// Not one its timeout (or the caller) ended, though.
	if line, _, complete := bytes.Cut(read, []byte("\n")); got && complete && p.pidfd != nil && p.ctx.Err() == nil && decide(line) {
		p.firstRead <- read // for Detach
		return true
	}
	p.goOn <- true
	return false
}

// killGroup kills the process's group, unless it was handed over.
func (p *Running) killGroup() error {
	if p.cmd.Process == nil || p.detached.Load() {
		return nil
	}
	return p.kill()
}

// kill kills the process's group and the process itself, detached or not.
func (p *Running) kill() error {
	// The negative pid addresses the whole group: the hook and
	// everything it forked that stayed in the group. The hook itself is
	// killed through its handle too, since it may have left the group
	// (setpgid) where nothing else would end it; os.Process knows when
	// it was reaped, so that never reaches a pid reused since.
	err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	p.cmd.Process.Kill()
	return err
}

// Wait waits for the process as Run does and says what happened.
func (p *Running) Wait() Result {
	defer p.cancel()
	defer p.outR.Close()
	defer p.errR.Close()
	defer func() {
		if t := p.overflowKill.Load(); t != nil {
			t.Stop()
		}
		if p.pidfd != nil {
			p.pidfd.Close()
		}
	}()
	if p.goOn != nil {
		select {
		case p.goOn <- true: // still paused after the first line
		default:
		}
	}
	if p.goOn != nil {
		<-p.exited // reaped in the background (start)
	} else {
		p.reap()
	}
	var r Result
	r.Duration = time.Since(p.start)
	// What the hook left in its group may finish writing for WaitDelay;
	// then the group is killed (nothing of a hook outlives its run) and
	// what it wrote is read to the pipes' end.
	first := WaitDelay
	if !p.ended.IsZero() {
		first -= time.Since(p.ended)
	}
	r.OutputIncomplete = drain(p.drained, func() { p.killGroup() }, first, p.outR, p.errR)
	p.killGroup()
	if p.inW != nil {
		p.inW.Close() // a payload no one read is dropped
	}
	r.Stdout, r.StdoutOverflow = p.stdout.bytes()
	r.Stderr, _ = p.stderr.bytes()
	r.TimedOut = errors.Is(p.ctx.Err(), context.DeadlineExceeded)
	r.ExitCode = p.exitCode()
	return r
}

// exitCode is the status of the process once it has ended: -1 when it
// did not exit by itself (a signal, or quiver, killed it).
func (p *Running) exitCode() int {
	if ps := p.cmd.ProcessState; ps != nil && ps.Exited() {
		return ps.ExitCode()
	}
	return -1
}

// Handover is a running process given to another owner: its pid (also
// its process group), a pidfd that refers to it whatever happens to the
// pid, the read ends of its stdout and stderr, and what was read of them
// already; and, when the process had not read its whole payload yet,
// the write end of its stdin and the rest of the payload, for the new
// owner to write. The new owner must close the files.
type Handover struct {
	Pid                    int
	Pidfd, Stdout, Stderr  *os.File
	ReadStdout, ReadStderr []byte
	Stdin                  *os.File
	Unwritten              []byte
	// Ended is its exit status when it had ended before the handover
	// (-1 when it was killed; nil while it runs): its new owner, not its
	// parent, cannot learn it.
	Ended   *int
	Started time.Time
}

// Detach stops reading the process's output and stops its timeout, and
// hands it over. The process is still reaped here when it ends (no
// zombie in a long-lived quiver), but nothing else: it is the new
// owner's to read, bound and kill.
func (p *Running) Detach() (Handover, error) {
	if p.pidfd == nil {
		return Handover{}, errors.New("no pidfd on this system")
	}
	p.detached.Store(true)
	if p.ctx.Err() != nil {
		// Its timeout (or its caller) has ended it, or is ending it
		// now, and from here that kill would do nothing (killGroup): it
		// is killed here, and goes over ended, saying so
		// (Handover.Ended). A context that ends after this check finds
		// it detached, and it goes over running, its new owner's to
		// bound.
		p.kill()
		<-p.exited
	}
	if t := p.overflowKill.Load(); t != nil {
		t.Stop()
	}
	// The stdout reader is paused after the first line; stderr's is
	// stopped where it is (what it did not read stays in the pipe).
	read := <-p.firstRead
	p.goOn <- false
	p.errR.SetReadDeadline(time.Now())
	<-p.drained
	<-p.drained
	p.errR.SetReadDeadline(time.Time{})
	stderr, _ := p.stderr.bytes()
	// The payload's writer stops where it is, and what it has not
	// written goes with the process: a one-shot quiver exits right after
	// the handover, and a process that answered before reading a payload
	// larger than its pipe would otherwise get it cut. A writer that
	// has finished (or met the hook's EPIPE) has closed its pipe.
	var stdin *os.File
	var unwritten []byte
	if w := p.inW; w != nil && w.SetWriteDeadline(time.Now()) == nil {
		<-p.stdinDone
		if p.unwritten != nil {
			w.SetWriteDeadline(time.Time{})
			stdin, unwritten = w, p.unwritten
		}
		p.inW = nil
	}
	var ended *int
	select {
	case <-p.exited:
		code := p.exitCode()
		ended = &code
	default:
	}
	go func() {
		<-p.exited
		p.cancel()
		if p.inW != nil { // a writer that could not be stopped
			p.inW.Close() // what a grandchild holds open is not waited for
		}
	}()
	return Handover{Pid: p.cmd.Process.Pid, Pidfd: p.pidfd, Stdout: p.outR, Stderr: p.errR,
		ReadStdout: read, ReadStderr: bytes.Clone(stderr), Stdin: stdin, Unwritten: unwritten, Ended: ended, Started: p.start}, nil
}

// copyBufs lends the output readers their buffers. io.Copy from a file
// takes a fresh 32 KiB each time, two per hook run, and in a one-shot
// quiver, where the collector has not run yet, fresh memory is a page
// fault at first touch.
var copyBufs = sync.Pool{New: func() any { return new([32 << 10]byte) }}

// copyOut copies a process's output pipe to dst with a lent buffer.
func copyOut(dst io.Writer, src io.Reader) {
	buf := copyBufs.Get().(*[32 << 10]byte)
	defer copyBufs.Put(buf)
	// Hidden behind a plain Reader, the file cannot take over with its
	// own WriteTo, which would allocate again.
	io.CopyBuffer(dst, struct{ io.Reader }{src}, buf[:])
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

// drain waits until both pipes' readers are done (drained hears from
// each): for WaitDelay, so that what a process left in its group may
// finish writing; then killGroup ends the group and the readers get
// another WaitDelay. Only a process that left the group (setsid) and
// still holds the pipes outlasts that: the reads are cut and drain
// reports it. first is that first wait: less than WaitDelay when part
// of it has passed already (firstLine waited for a process that had
// ended).
func drain(drained <-chan struct{}, killGroup func(), first time.Duration, pipes ...*os.File) (cut bool) {
	pending := len(pipes)
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
	if wait(max(first, 0)) {
		return false
	}
	killGroup()
	if wait(WaitDelay) {
		return false
	}
	for _, f := range pipes {
		f.SetReadDeadline(time.Now())
	}
	wait(time.Hour) // the deadline ends the reads at once
	return true
}
