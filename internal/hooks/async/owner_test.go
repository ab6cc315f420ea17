package async

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/proc"
)

// held makes a FIFO that a handler holds open for writing (its fd 3,
// inherited by whatever it starts): the returned channel closes once
// every process holding it has ended, which is how a test sees a
// process group die without polling.
func held(t *testing.T) (path string, opened, ended <-chan struct{}) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "held")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	o, e := make(chan struct{}), make(chan struct{})
	go func() {
		f, err := os.Open(path) // returns once the handler opens it
		close(o)
		if err == nil {
			io.Copy(io.Discard, f)
			f.Close()
		}
		close(e)
	}()
	return path, o, e
}

// watched makes a FIFO that a handler may hold open for writing, held
// open at both ends by the test meanwhile; allGone, called once the
// handler is done, returns when every process that still holds it has
// ended. Unlike held, it does not depend on the handler opening it at
// all: on a busy machine a short timeout may kill the shell first.
func watched(t *testing.T) (path string, allGone func()) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "watched")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(path, os.O_WRONLY, 0) // a reader is there: at once
	if err != nil {
		t.Fatal(err)
	}
	return path, func() {
		w.Close()
		io.Copy(io.Discard, r) // EOF once the last writer closed it
		r.Close()
	}
}

func shJob(name, script string, timeout time.Duration) Job {
	return Job{Hook: name, Event: "session_start", ClaudeEvent: "SessionStart",
		Path: "sh", Args: []string{"-c", script}, Timeout: timeout}
}

func session(t *testing.T) string {
	s := SessionDir(t.TempDir(), "sess-1")
	if err := prepare(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// collect runs Own like the owner process does, writing records to the
// session's folder.
func collect(t *testing.T, o Order) {
	Own(t.Context(), o, func(rec Record) {
		if err := put(o.Session, o.Run, rec); err != nil {
			t.Error(err)
		}
	})
}

// TestOwnerWritesWhatHandlersSay: the owner runs each job, reads its
// answer as Claude reads an asynchronous hook's (systemMessage and
// additionalContext only), and the session's next take gets them in
// precedence order, once.
func TestOwnerWritesWhatHandlersSay(t *testing.T) {
	s := session(t)
	job := func(order int, name, script string) Job {
		j := shJob(name, script, time.Minute)
		j.Order = order
		return j
	}
	collect(t, Order{Session: s, Run: RunKey(time.Now()), Jobs: []Job{
		job(1, "b", `echo '{"systemMessage": "from b", "decision": "block", "reason": "ignored"}'`),
		job(0, "a", `echo not json; echo '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "from a"}}'`),
		job(2, "wrong-event", `echo '{"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": "no"}}'`),
		{Hook: "rewake", Order: 3, Event: "agent_stop", ClaudeEvent: "Stop", Rewake: true, RewakeMessage: "Review:",
			Path: "sh", Args: []string{"-c", "echo found a secret >&2; exit 2"}, Timeout: time.Minute},
	}})
	recs, err := Take(s)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Hook+":"+r.Status+":"+r.Context+"|"+r.Notice)
	}
	want := "a:ok:from a| b:ok:|from b wrong-event:failed:| rewake:ok:Review: found a secret|"
	if strings.Join(got, " ") != want {
		t.Errorf("records:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if again, _ := Take(s); len(again) != 0 {
		t.Errorf("taken twice: %+v", again)
	}
}

// TestOwnerKillsAtTimeout: a handler that outlives its timeout is killed
// with everything it started in its group, and recorded as timed out.
func TestOwnerKillsAtTimeout(t *testing.T) {
	fifo, allGone := watched(t)
	s := session(t)
	collect(t, Order{Session: s, Run: "r", Jobs: []Job{
		shJob("slow", `exec 3>`+fifo+`; sleep 1000 & sleep 1000`, 50*time.Millisecond),
	}})
	allGone() // every holder of the FIFO, the backgrounded sleep too, is dead
	recs, _ := Take(s)
	if len(recs) != 1 || recs[0].Status != statusTimeout {
		t.Errorf("records %+v, want one timeout", recs)
	}
}

// TestOwnerKillsWhenSessionEnds: End moves the session's folder away;
// the owner sees it, kills its handlers and writes nothing.
func TestOwnerKillsWhenSessionEnds(t *testing.T) {
	fifo, opened, ended := held(t)
	s := session(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		collect(t, Order{Session: s, Run: "r", Jobs: []Job{shJob("pending", `exec 3>`+fifo+`; sleep 1000`, time.Hour)}})
	}()
	<-opened
	if err := End(s); err != nil {
		t.Fatal(err)
	}
	<-ended
	<-done
	if _, err := os.Stat(s); !os.IsNotExist(err) {
		t.Errorf("the session's folder is still there (%v)", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(s)); len(entries) != 0 {
		t.Errorf("left in async/: %v", entries)
	}
}

// TestParseFirstLine: what sends a handler to the background, and for
// how long.
func TestParseFirstLine(t *testing.T) {
	for _, c := range []struct {
		line string
		ok   bool
		d    time.Duration
	}{
		{`{"async": true}`, true, FirstLineTimeout},
		{` {"async":true,"asyncTimeout":2500} `, true, 2500 * time.Millisecond},
		{`{"async": true, "asyncTimeout": 1e30}`, true, time.Hour},
		{`{"async": false}`, false, 0},
		{`{"async": "true"}`, false, 0},
		{`{"systemMessage": "x"}`, false, 0},
		{`async`, false, 0},
	} {
		d, ok := ParseFirstLine([]byte(c.line))
		if ok != c.ok || d != c.d {
			t.Errorf("%s: %v %v, want %v %v", c.line, d, ok, c.d, c.ok)
		}
	}
}

// TestSessionDirNamesNoPathOutside: a session id that is not a plain
// name becomes a hash.
func TestSessionDirNamesNoPathOutside(t *testing.T) {
	for _, id := range []string{"../../etc", "a/b", "..", ".hidden", strings.Repeat("x", 200)} {
		d := SessionDir("/state", id)
		if filepath.Dir(d) != "/state/async" || !strings.HasPrefix(filepath.Base(d), "h-") {
			t.Errorf("%q -> %s", id, d)
		}
	}
	if d := SessionDir("/state", "0b9c-uuid"); d != "/state/async/0b9c-uuid" {
		t.Errorf("plain id -> %s", d)
	}
}

// TestEndSweepsStaleSessions: a session whose agent never sent
// session_end goes when another session ends and it has been untouched
// for staleAfter; a fresh one, and an End's leftovers younger than an
// hour, stay.
func TestEndSweepsStaleSessions(t *testing.T) {
	state := t.TempDir()
	now := time.Now()
	mk := func(name string, age time.Duration) string {
		s := filepath.Join(state, "async", name)
		if err := prepare(s); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{"", tmpDir, resultsDir} {
			if err := os.Chtimes(filepath.Join(s, d), now.Add(-age), now.Add(-age)); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	stale := mk("crashed", staleAfter+time.Minute)
	fresh := mk("idle", staleAfter-time.Hour)
	leftover := mk(".ended-x-1-2", 2*time.Hour)
	removing := mk(".ended-y-1-2", time.Minute)
	ending := mk("ending", 0)
	if err := End(ending); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{stale: false, fresh: true, leftover: false, removing: true, ending: false} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s: exists = %v, want %v", filepath.Base(path), err == nil, want)
		}
	}
}

// TestLaunchKeepsJobsWhenTheOwnerTakesNoOrder: an owner that starts but
// ends without reading its order (here `true`; a real one whose order is
// too large to decode does the same) leaves the handed-over handlers
// this process's, still running with their pipes readable with
// deadlines: Own then waits for them as when no owner could start, the
// rest of the payload reaches the handler whole, and a grandchild that
// holds stdin without reading it does not hold Own up (attack on the
// payload's handover).
func TestLaunchKeepsJobsWhenTheOwnerTakesNoOrder(t *testing.T) {
	if !Supported {
		t.Skip("no handover on this system")
	}
	payload := []byte(strings.Repeat("x", 300_000)) // more than the pipe, and than the order's
	count := filepath.Join(t.TempDir(), "count")
	var sleeper string
	for _, script := range []string{
		// Reads its payload only once it is in the background.
		`echo '{"async": true}'; wc -c > ` + count,
		// Leaves its stdin to a grandchild of another session that
		// never reads it, and ends.
		`exec 3<&0; setsid sleep 60 <&3 3<&- >/dev/null 2>&1 & echo $! > ` + count + `.pid; echo '{"async": true}'`,
	} {
		r := proc.Run(t.Context(), proc.Spec{Path: "sh", Args: []string{"-c", script}, Stdin: payload, Timeout: time.Minute,
			MaxStdout: MaxStdout, MaxStderr: MaxStderr,
			FirstLine: func(line []byte) bool { _, ok := ParseFirstLine(line); return ok }})
		if r.Running == nil {
			t.Fatalf("not handed over: %+v", r)
		}
		o := &Order{Run: "r", Jobs: []Job{Adopt(Job{Hook: "h"}, r.Running, time.Minute)}}
		ow := &Owner{Command: func() *exec.Cmd { return exec.Command("true") }}
		if err := ow.Launch(o); err == nil {
			t.Fatal("Launch took an owner that read no order")
		}
		owned := make(chan struct{})
		go func() {
			Own(t.Context(), Order{Jobs: o.Jobs}, func(Record) {})
			close(owned)
		}()
		select { // a bound, not a wait: Own returns as soon as the job ends
		case <-owned:
		case <-time.After(30 * time.Second):
			t.Fatal("Own has not returned 30 s after the handler ended")
		}
		sleeper = count + ".pid"
	}
	if data, err := os.ReadFile(count); err != nil || strings.TrimSpace(string(data)) != "300000" {
		t.Errorf("the handler read %q bytes (%v), want 300000", data, err)
	}
	if data, err := os.ReadFile(sleeper); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
