package hooks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/exact"
	"github.com/quiver-cli/quiver/internal/proc"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// Pool keeps persistent hooks running for hook serve (SPEC §14). A hook
// that declares `EVENT persistent` is started once as `<hook> serve` and
// fed one event at a time: a line {"id": N, "payload": {...}} in, a line
// {"id": N, "result": {...}} or {"id": N, "exit": K, "stderr": "..."}
// out. A timeout, a crash, a malformed line or a changed file restarts
// it; what the answer means is decided exactly as for `<hook> run`.
//
// A Pool is safe for concurrent use; requests to one hook wait for each
// other, requests to different hooks do not.
type Pool struct {
	mu      sync.Mutex
	workers map[string]*worker // by hook path
	closed  bool
	// live holds every started process not yet reaped, for Kill.
	live map[*hookProcess]bool
}

// NewPool returns an empty pool; Close stops what it started.
func NewPool() *Pool {
	return &Pool{workers: map[string]*worker{}, live: map[*hookProcess]bool{}}
}

// worker is one persistent hook: its process, when running, and the
// token that lets one request at a time talk to it.
type worker struct {
	turn chan struct{} // holding a value: a request has the worker
	path string
	// event is the one the hook was last asked for (under Pool.mu).
	event string
	// The fields below belong to the request holding turn.
	proc *hookProcess
	env  string // the environment proc was started with
}

// hookProcess is one running `<hook> serve`.
type hookProcess struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	lines  *bufio.Reader
	file   safefs.Ident
	next   int64
	done   chan struct{} // closed once the process has been waited for
	stderr *tail
}

// maxAnswerLine bounds one answer line: the result may be as large as a
// one-shot hook's stdout, plus the envelope.
const maxAnswerLine = MaxStdout + MaxStderr + 1024

// errClosed answers requests that arrive after Close.
var errClosed = errors.New("hook serve is shutting down")

// exchange sends one event to h's serve process, starting or restarting
// it as needed, and returns its answer as `<hook> run` would have given
// it. An error is a failure of the protocol (the process died, answered
// a malformed line, could not be written to); it is reported as the
// hook's failure, and the process is stopped so the next event starts a
// fresh one.
func (p *Pool) exchange(ctx context.Context, h discovery.Hook, env []string, dir string, payload []byte, timeout time.Duration) (proc.Result, error) {
	arrived := time.Now()
	// The file as discovery (and trust) saw it; the event goes to that
	// file or to none, however long it waits for its turn.
	seen := h.Ident
	if seen.IsZero() {
		var err error
		if seen, err = safefs.Identify(h.Path); err != nil {
			return proc.Result{ExitCode: -1, StartErr: err}, nil
		}
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return proc.Result{ExitCode: -1}, errClosed
	}
	w := p.workers[h.Path]
	if w == nil {
		w = &worker{turn: make(chan struct{}, 1), path: h.Path}
		p.workers[h.Path] = w
	}
	w.event = h.Event
	p.mu.Unlock()

	// Waiting for the turn counts against the timeout, as if the hook
	// itself were slow: a queue behind a hung hook ends like the hang.
	wait := time.NewTimer(timeout)
	select {
	case w.turn <- struct{}{}:
		wait.Stop()
	case <-wait.C:
		return proc.Result{ExitCode: -1, TimedOut: true, Duration: time.Since(arrived)}, nil
	case <-ctx.Done():
		wait.Stop()
		return proc.Result{ExitCode: -1}, context.Cause(ctx)
	}
	defer func() { <-w.turn }()
	start := time.Now() // the hook's own time, not the wait for its turn
	timeout -= start.Sub(arrived)

	id, err := safefs.Identify(h.Path)
	switch {
	case err != nil:
		w.stopGently()
		return proc.Result{ExitCode: -1, StartErr: err, Duration: time.Since(start)}, nil
	case id != seen:
		w.stopGently()
		return proc.Result{ExitCode: -1, Duration: time.Since(start)}, errFileChanged
	}
	envKey := strings.Join(env, "\x00")
	if w.proc != nil && (w.proc.exited() || w.proc.file != id || w.env != envKey) {
		w.stopGently() // crashed while idle, edited, or another event: a fresh process
	}
	if w.proc == nil {
		hp, err := p.start(h.Path, dir, env)
		if err != nil {
			return proc.Result{ExitCode: -1, StartErr: err, Duration: time.Since(start)}, nil
		}
		hp.file = id
		w.proc, w.env = hp, envKey
	}
	r, err := w.proc.ask(ctx, payload, timeout)
	r.Duration = time.Since(start)
	if err != nil || r.TimedOut {
		w.stop()
	}
	return r, err
}

// start starts `<path> serve` in its own process group.
func (p *Pool) start(path, dir string, env []string) (*hookProcess, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	hp := &hookProcess{stdin: inW, stdout: outR, lines: bufio.NewReaderSize(outR, 64<<10), done: make(chan struct{}), stderr: &tail{max: MaxStderr}}
	cmd := exec.Command(path, "serve")
	cmd.Dir, cmd.Env = dir, proc.Environ(env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, hp.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = proc.WaitDelay
	hp.cmd = cmd
	err = cmd.Start()
	inR.Close() // the child holds its own copies
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	p.mu.Lock()
	p.live[hp] = true
	p.mu.Unlock()
	go func() {
		cmd.Wait()
		// Its group goes with it, while the pid is known to be fresh;
		// after done is closed, nothing signals the pid again, since it
		// may belong to another process by then.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		p.mu.Lock()
		delete(p.live, hp)
		p.mu.Unlock()
		close(hp.done)
	}()
	return hp, nil
}

func (hp *hookProcess) exited() bool {
	select {
	case <-hp.done:
		return true
	default:
		return false
	}
}

// kill ends the process group and waits for the process.
func (hp *hookProcess) kill() {
	if !hp.exited() {
		syscall.Kill(-hp.cmd.Process.Pid, syscall.SIGKILL)
	}
	hp.stdin.Close()
	<-hp.done
	hp.stdout.Close()
}

// closeInput tells a hook there are no more events: its read loop ends
// and it may save its state and exit by itself.
func (hp *hookProcess) closeInput() { hp.stdin.Close() }

// gracePeriod is how long a persistent hook has to exit by itself after
// its input is closed, before its process group is killed.
const gracePeriod = 500 * time.Millisecond

// stop kills a hook that misbehaved (timed out, crashed, garbled).
func (w *worker) stop() {
	if w.proc != nil {
		w.proc.kill()
		w.proc = nil
	}
}

// stopGently ends a hook that did nothing wrong (its file changed, it is
// no longer active, the server is ending): EOF first, the kill after the
// grace period. What it left running in its group is killed either way.
func (w *worker) stopGently() {
	if w.proc != nil {
		w.proc.closeInput()
		select {
		case <-w.proc.done:
		case <-time.After(gracePeriod):
		}
		w.stop()
	}
}

// ask writes one event and reads the answer within timeout.
func (hp *hookProcess) ask(ctx context.Context, payload []byte, timeout time.Duration) (proc.Result, error) {
	hp.next++
	id := hp.next
	deadline := time.Now().Add(timeout)
	hp.stdin.SetWriteDeadline(deadline)
	hp.stdout.SetReadDeadline(deadline)
	// An interruption ends the wait at once, as it kills a one-shot hook.
	stopWatch := context.AfterFunc(ctx, func() {
		hp.stdin.SetWriteDeadline(time.Unix(1, 0))
		hp.stdout.SetReadDeadline(time.Unix(1, 0))
	})
	defer stopWatch()

	mark := hp.stderr.mark()
	msg := make([]byte, 0, len(payload)+32)
	msg = append(msg, `{"id":`...)
	msg = strconv.AppendInt(msg, id, 10)
	msg = append(msg, `,"payload":`...)
	msg = append(msg, payload...)
	msg = append(msg, "}\n"...)
	_, err := hp.stdin.Write(msg)
	if err == nil {
		var line []byte
		line, err = hp.readLine()
		if err == nil {
			return hp.decode(id, line)
		}
	}
	r := proc.Result{ExitCode: -1, Stderr: hp.stderr.since(mark)}
	switch {
	case ctx.Err() != nil:
		return r, fmt.Errorf("interrupted: %v", context.Cause(ctx))
	case errors.Is(err, os.ErrDeadlineExceeded):
		r.TimedOut = true
		return r, nil
	case errors.Is(err, errLongLine):
		return r, fmt.Errorf("answer line exceeded %d bytes", maxAnswerLine)
	}
	// EOF or a broken pipe: it died. Give it a moment to be reaped, so
	// the report can say how.
	select {
	case <-hp.done:
	case <-time.After(250 * time.Millisecond):
	}
	r.Stderr = hp.stderr.since(mark) // complete once it has been waited for
	msgErr := "`serve` exited before answering"
	if st := hp.cmd.ProcessState; st != nil {
		msgErr = fmt.Sprintf("`serve` exited (%s) before answering", st)
	}
	if s := strings.TrimSpace(string(r.Stderr)); s != "" {
		msgErr += ": " + safefs.Cut(s, MaxReason)
	}
	return r, errors.New(msgErr)
}

var errLongLine = errors.New("line too long")

// readLine reads one line of at most maxAnswerLine bytes.
func (hp *hookProcess) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := hp.lines.ReadSlice('\n')
		if len(line)+len(chunk) > maxAnswerLine {
			return nil, errLongLine
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line, nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return nil, err
		}
	}
}

// decode turns an answer line into what `<hook> run` would have given.
// The line's keys are read exactly, like a hook's stdout (DecodeResponse):
// "Exit" or "Result" is another key, and ignored. A key given more than
// once never undoes a block: "exit" takes its strictest copy (exitRank),
// "stderr" the one that goes with it, and the copies of "result" are read
// as one result holding the keys of them all, where the result's own rules
// apply. Only "id" must say the same in every copy: an answer for two
// requests answers neither.
func (hp *hookProcess) decode(id int64, line []byte) (proc.Result, error) {
	r := proc.Result{ExitCode: -1}
	trimmed := bytes.TrimSpace(line)
	malformed := fmt.Errorf("answered a line that is not one JSON object: %s", strconv.Quote(safefs.Excerpt(trimmed, 80)))
	a, err := exact.Parse(trimmed)
	if err != nil {
		return r, malformed
	}
	ids := 0
	for _, m := range a {
		if m.Key != "id" {
			continue
		}
		ids++
		var got *int64
		if json.Unmarshal(m.Value, &got) != nil {
			return r, malformed
		}
		if got == nil || *got != id {
			return r, fmt.Errorf("answered for id %s, was asked %d", rawID(got), id)
		}
	}
	if ids == 0 {
		return r, fmt.Errorf("answered for id none, was asked %d", id)
	}

	stdout, resultBlocks, known := answerResult(a)
	// Whether the result blocks matters only where copies disagree.
	if !known && (a.Count("exit") > 1 || a.Count("stderr") > 1) {
		resultBlocks = blocks(stdout)
	}
	exit := a.Strictest("exit", func(v json.RawMessage) int { return exitRank(v, resultBlocks) })
	var f exact.Fields
	var code int
	var stderr string
	f.Decode("exit", exit, &code)
	f.Decode("stderr", a.Paired("stderr", exit), &stderr)
	if f.Err(code == 2 || code == 0 && resultBlocks) != nil {
		return r, malformed
	}
	if code < 0 || code > 255 {
		return r, fmt.Errorf("answered exit %d; an exit status is 0 to 255", code)
	}
	r.ExitCode = code
	if stderr != "" {
		r.Stderr = []byte(safefs.Cut(stderr, MaxStderr))
	}
	r.Stdout = stdout
	r.StdoutOverflow = len(stdout) > MaxStdout
	return r, nil
}

// answerResult returns the result as the stdout `<hook> run` would have
// printed (nil for none) and, when known (always for a result given more
// than once), whether it blocks. A result given once is taken byte for
// byte. The copies of one given more than once are read as one object
// holding the keys of them all, each counting as given more than once;
// when that blocks, it is handed on re-encoded with one copy of each key,
// so that nothing in the other copies can turn it into a failure later.
// Otherwise the copies stay joined, or the first that is neither an object
// nor null stands for them, and fails as it would alone.
func answerResult(a exact.Object) (stdout []byte, blocks, known bool) {
	members, copies, bad := a.Objects("result")
	if copies < 2 {
		if v := a.Last("result").Value; !isNull(v) {
			return v, false, false
		}
		return nil, false, true
	}
	if members != nil {
		resp, err := responseOf(members, true)
		if err == nil && resp.Blocked {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			enc.Encode(resp) // a Response always encodes
			return b.Bytes(), true, true
		}
		if bad == nil {
			return members.AppendJSON(nil), false, true
		}
	}
	return bad, false, true
}

// blocks reports a result that blocks (on a blocking event).
func blocks(stdout []byte) bool {
	resp, err := DecodeResponse(stdout)
	return err == nil && resp != nil && resp.Blocked
}

// exitRank orders the copies of an answer's "exit" (exact.Strictest) by
// what they do: 2 blocks; a 0 (or null) with a result that blocks blocks
// too; any other status, or a value that is not one, fails; a plain 0 lets
// the result decide.
func exitRank(v json.RawMessage, resultBlocks bool) int {
	switch string(v) {
	case "2":
		return 4
	case "0", "null":
		if resultBlocks {
			return 3
		}
		return 1
	}
	return 2
}

func rawID(id *int64) string {
	if id == nil {
		return "none"
	}
	return strconv.FormatInt(*id, 10)
}

// Retain stops the processes of persistent hooks for event that are not
// in keep, the event's hook set now (removed, disabled, no longer
// trusted, no longer persistent, now for another event), so nothing the
// user has taken away keeps running: it is never sent another event, and
// is stopped when its event next fires.
func (p *Pool) Retain(event string, keep []discovery.Hook) {
	paths := make(map[string]bool, len(keep))
	for _, h := range keep {
		if h.Persistent && h.Status == discovery.Active {
			paths[h.Path] = true
		}
	}
	p.mu.Lock()
	var gone []*worker
	for key, w := range p.workers {
		if w.event == event && !paths[w.path] {
			gone = append(gone, w)
			delete(p.workers, key)
		}
	}
	p.mu.Unlock()
	stopAll(gone)
}

// Kill kills every hook process at once, without waiting for requests:
// the last thing a server does when a signal ends it by force.
func (p *Pool) Kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for hp := range p.live {
		syscall.Kill(-hp.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// Close stops every process and refuses later requests. Requests in
// flight should have been ended (their context cancelled) first; Close
// waits for them.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	ws := p.workers
	p.workers = map[string]*worker{}
	p.mu.Unlock()
	all := make([]*worker, 0, len(ws))
	for _, w := range ws {
		all = append(all, w)
	}
	stopAll(all)
}

// stopAll stops workers gently, side by side so that the grace periods
// overlap, each once its request in flight (if any) is over.
func stopAll(ws []*worker) {
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.turn <- struct{}{}
			w.stopGently()
			<-w.turn
		}()
	}
	wg.Wait()
}

// tail keeps the last max bytes written to it: a persistent hook's
// stderr, quoted when it fails.
type tail struct {
	mu      sync.Mutex
	buf     []byte
	max     int
	written int64
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.written += int64(len(p))
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > t.max {
		t.buf = append(t.buf[:0], t.buf[over:]...) // compact now and then, not per write
	}
	return len(p), nil
}

// mark is a position in the stream, for since.
func (t *tail) mark() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.written
}

// since returns what was written after mark (its last max bytes): the
// stderr of one request, not of every event before it.
func (t *tail) since(mark int64) []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := int(min(t.written-mark, int64(t.max), int64(len(t.buf))))
	return bytes.Clone(t.buf[len(t.buf)-n:])
}
