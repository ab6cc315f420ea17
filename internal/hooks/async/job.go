package async

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"

	"github.com/quiver-cli/quiver/internal/proc"
	"github.com/quiver-cli/quiver/internal/timeouts"
)

// Timeouts of background handlers (SPEC §15).
const (
	// FirstLineTimeout bounds a handler that went background by its first
	// line without an asyncTimeout: Claude's default.
	FirstLineTimeout = 15 * time.Second
	// DeclaredTimeout bounds an async or asyncRewake handler without a
	// timeout of its own.
	DeclaredTimeout = 10 * time.Minute
)

// Limits of what is kept of a background handler, as of any other
// (hooks.MaxStdout, MaxStderr and MaxText).
const (
	MaxStdout = 1 << 20
	MaxStderr = 64 << 10
	MaxText   = 10 << 10
)

// ParseFirstLine reports whether a handler's first line of stdout sends
// it to the background, as Claude reads it (`{"async": true}`), and for
// how long it may run from then: its asyncTimeout in milliseconds, else
// FirstLineTimeout, at most timeouts.Max.
func ParseFirstLine(line []byte) (time.Duration, bool) {
	line = bytes.TrimSpace(line)
	if !bytes.HasPrefix(line, []byte("{")) {
		return 0, false
	}
	var v struct {
		Async        *bool    `json:"async"`
		AsyncTimeout *float64 `json:"asyncTimeout"`
	}
	if json.Unmarshal(line, &v) != nil || v.Async == nil || !*v.Async {
		return 0, false
	}
	d := FirstLineTimeout
	if v.AsyncTimeout != nil && *v.AsyncTimeout >= 1 {
		d = time.Duration(min(*v.AsyncTimeout, float64(timeouts.Max/time.Millisecond))) * time.Millisecond
	}
	return d, true
}

// Job is one background handler: one the owner starts (Path set), or
// one already running that a hook run hands over (Running).
type Job struct {
	// Hook names the handler; Order is its place in its event's
	// precedence order, which orders what the session's next event gets.
	Hook  string `json:"hook"`
	Order int    `json:"order"`
	// Event is the quiver event it ran for, ClaudeEvent Claude's name,
	// whose output rules apply (claude.Output).
	Event       string `json:"event"`
	ClaudeEvent string `json:"claude_event"`
	// Rewake: an asyncRewake handler, whose exit 2 says RewakeMessage
	// and its stderr to the model.
	Rewake        bool   `json:"rewake,omitempty"`
	RewakeMessage string `json:"rewake_message,omitempty"`

	// What to start (proc.Spec's fields), and its time limit; for a
	// handler handed over, Stdin is what is left of its payload.
	Path    string        `json:"path,omitempty"`
	Args    []string      `json:"args,omitempty"`
	Dir     string        `json:"dir,omitempty"`
	Env     []string      `json:"env,omitempty"`
	Unset   []string      `json:"unset,omitempty"`
	Stdin   []byte        `json:"stdin,omitempty"`
	Timeout time.Duration `json:"timeout,omitempty"`

	// A handler handed over: its pid, when it must end, the numbers of
	// its stdout, stderr and pidfd in the owner, and of its stdin's
	// write end when the hook run had not written all of its payload
	// (Stdin then holds the rest), and what the hook run read of its
	// output (stdout starting with the async first line).
	Pid        int       `json:"pid,omitempty"`
	Deadline   time.Time `json:"deadline,omitzero"`
	Files      [4]int    `json:"files,omitzero"`
	ReadStdout []byte    `json:"read_stdout,omitempty"`
	ReadStderr []byte    `json:"read_stderr,omitempty"`
	// Ended is its exit status when it had ended before the handover.
	Ended *int `json:"ended,omitempty"`

	// running is the handler while this process still holds it.
	running  *proc.Running
	handover *proc.Handover
}

// Adopt makes a job of a handler that went background by its first
// line, still running in this process, bound by timeout from now.
func Adopt(j Job, r *proc.Running, timeout time.Duration) Job {
	j.running, j.Deadline = r, time.Now().Add(timeout)
	return j
}

// handedOver reports a job that was running before its owner had it.
func (j Job) handedOver() bool { return j.running != nil || j.handover != nil || j.Pid != 0 }

// Order is what a hook run gives one owner: the jobs, the session's
// folder their results go to ("" when they are dropped: no session), and
// the run's key, which orders its results after earlier runs'.
type Order struct {
	Session string `json:"session,omitempty"`
	Run     string `json:"run"`
	Jobs    []Job  `json:"jobs"`
}

// Batch gathers the background handlers of one run, from the goroutines
// that run its hooks.
type Batch struct {
	mu   sync.Mutex
	jobs []Job
}

// Add adds a job.
func (b *Batch) Add(j Job) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.jobs = append(b.jobs, j)
}

// Jobs returns the jobs added so far.
func (b *Batch) Jobs() []Job {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Job(nil), b.jobs...)
}
