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
	"github.com/quiver-cli/quiver/internal/testkit"
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
// does not say it took its order (it ends without reading it, or never
// reads it) leaves the jobs this process's: Launch fails (after
// ackTimeout at most), the handed-over handler's pipes are readable with
// deadlines again, and Own waits for the jobs as when no owner could
// start. The declared job runs once, the rest of the payload reaches the
// handler whole, whatever the order's size (attacks on the payload's
// handover).
func TestLaunchKeepsJobsWhenTheOwnerTakesNoOrder(t *testing.T) {
	if !Supported {
		t.Skip("no handover on this system")
	}
	old := ackTimeout
	ackTimeout = 200 * time.Millisecond
	defer func() { ackTimeout = old }()
	for _, c := range []struct {
		name    string
		owner   []string
		payload int
	}{
		{"ends, small order", []string{"true"}, 1_000},
		{"ends, large order", []string{"true"}, 300_000},
		{"never reads", []string{"sleep", "60"}, 300_000},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			gate := testkit.FIFO(t, dir, "gate")
			// It reads its payload only once it is in the background.
			r := handOff(t, `echo '{"async": true}'; read go < gate; wc -c > count`, dir, c.payload)
			o := &Order{Run: "r", Jobs: []Job{Adopt(Job{Hook: "h"}, r, time.Minute), shJob("d", `echo ran >> `+filepath.Join(dir, "declared"), time.Minute)}}
			ow := &Owner{Command: func() *exec.Cmd { return exec.Command(c.owner[0], c.owner[1:]...) }}
			if err := ow.Launch(o); err == nil {
				t.Fatal("Launch let go of its jobs to an owner that did not take them")
			}
			go testkit.LetGo(t, gate)
			ownWithin(t, o.Jobs)
			if data, err := os.ReadFile(filepath.Join(dir, "count")); err != nil || strings.TrimSpace(string(data)) != strconv.Itoa(c.payload) {
				t.Errorf("the handler read %q bytes (%v), want %d", data, err, c.payload)
			}
			if data, _ := os.ReadFile(filepath.Join(dir, "declared")); string(data) != "ran\n" {
				t.Errorf("the declared job ran %q, want once", data)
			}
		})
	}
	t.Run("a grandchild holds stdin", func(t *testing.T) {
		dir := t.TempDir()
		gate := testkit.FIFO(t, dir, "gate")
		// It leaves its stdin to a grandchild of another session that
		// never reads it, and ends once let go.
		r := handOff(t, `exec 3<&0; setsid sleep 60 <&3 3<&- >/dev/null 2>&1 & echo $! > pid; echo '{"async": true}'; read go < gate`, dir, 300_000)
		t.Cleanup(func() {
			if data, err := os.ReadFile(filepath.Join(dir, "pid")); err == nil {
				if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
		o := &Order{Run: "r", Jobs: []Job{Adopt(Job{Hook: "h"}, r, time.Minute)}}
		ow := &Owner{Command: func() *exec.Cmd { return exec.Command("true") }}
		if err := ow.Launch(o); err == nil {
			t.Fatal("Launch let go of its job to an owner that did not take it")
		}
		go testkit.LetGo(t, gate)
		ownWithin(t, o.Jobs) // the payload's writer must not wait for the grandchild
	})
}

// handOff runs script in dir with a payload of n bytes and returns it
// running on after its first line.
func handOff(t *testing.T, script, dir string, n int) *proc.Running {
	t.Helper()
	r := proc.Run(t.Context(), proc.Spec{Path: "sh", Args: []string{"-c", script}, Dir: dir,
		Stdin: []byte(strings.Repeat("x", n)), Timeout: time.Minute, MaxStdout: MaxStdout, MaxStderr: MaxStderr,
		FirstLine: func(line []byte) bool { _, ok := ParseFirstLine(line); return ok }})
	if r.Running == nil {
		t.Fatalf("not handed over: %+v", r)
	}
	return r.Running
}

// ownWithin owns jobs as Launch's caller does when no owner took them,
// and fails if they are not all done 30 s after (a bound, not a wait).
func ownWithin(t *testing.T, jobs []Job) {
	t.Helper()
	owned := make(chan struct{})
	go func() {
		Own(t.Context(), Order{Jobs: jobs}, func(Record) {})
		close(owned)
	}()
	select {
	case <-owned:
	case <-time.After(30 * time.Second):
		t.Fatal("Own has not returned 30 s after the handler was let go")
	}
}
