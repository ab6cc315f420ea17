package hooks

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/quiver-cli/quiver/internal/discovery"
)

// Hooks written to hurt quiver: endless or binary output, forks that
// outlive them, signals ignored, stdin closed or never read, a hook that
// deletes itself. Whatever they do, a run comes back within its timeout
// plus 1 s (SPEC §8), quiver keeps a bounded amount of their output, and
// no process of theirs is left once the run has returned.

// hostileSlack absorbs a loaded machine on top of the contract (timeout + 1 s).
// The bounds below assert correctness, not speed.
const hostileSlack = 2 * time.Second

// hostile10MB is a payload far larger than any pipe buffer, built on
// first use (the test binary also runs as every fake hook).
var hostile10MB = sync.OnceValue(func() []byte {
	return []byte(`{"message":"` + strings.Repeat("m", 10<<20) + `"}`)
})

// hostileEnv returns the extra environment of a hostile run: a marker that
// every process the hook starts inherits, so that leftovers can be found
// in /proc whatever they call themselves, and a file for a child's pid.
func hostileEnv(t *testing.T) (marker, pidFile string, env []string) {
	var b [8]byte
	rand.Read(b[:])
	marker = "QUIVER_HOSTILE_MARK=" + hex.EncodeToString(b[:])
	pidFile = filepath.Join(t.TempDir(), "pid")
	return marker, pidFile, []string{marker, "FAKE_PID_FILE=" + pidFile}
}

// hostileProcs lists the live processes, other than this one, whose environment
// holds marker. Zombies have no readable environment and do not count.
func hostileProcs(marker string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil // not Linux: the pid file checks still apply
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if string(kv) == marker && alive(pid) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// noLeftovers fails the test if a process of the hook (found by marker,
// or by the pid a hook wrote) is still running shortly after Run
// returned, and kills it so later tests are unaffected. SIGKILL takes a
// moment to land, hence the short poll.
func noLeftovers(t *testing.T, marker, pidFile string) {
	t.Helper()
	var pids []int
	deadline := time.Now().Add(2 * time.Second)
	for {
		pids = hostileProcs(marker)
		if data, err := os.ReadFile(pidFile); err == nil {
			if pid, _ := strconv.Atoi(strings.TrimSpace(string(data))); pid > 0 && alive(pid) && !slices.Contains(pids, pid) {
				pids = append(pids, pid)
			}
		}
		if len(pids) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if len(pids) > 0 {
		t.Errorf("processes of the hook still running after Run returned: %v", pids)
	}
}

// copyTestBinary copies the test binary (which doubles as every fake
// hook) so that a hook can delete its own file without harming the test.
func copyTestBinary(t *testing.T) string {
	t.Helper()
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	p := filepath.Join(t.TempDir(), "self-delete")
	dst, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHostileHooks(t *testing.T) {
	small := []byte(`{"tool_name":"bash","tool_input":{"command":"ls"},"tool_output":"x","message":"hi"}`)
	tests := []struct {
		hook    string
		event   string
		payload []byte
		timeout time.Duration
		env     []string
		status  Status
		check   func(t *testing.T, o Outcome, elapsed time.Duration)
	}{
		// Endless stdout is cut at 1 MiB and the hook killed for it,
		// long before its timeout: a failure, not a timeout.
		{hook: "infinite", event: format.AfterToolCall, payload: small, timeout: 20 * time.Second, status: Failed,
			check: func(t *testing.T, o Outcome, elapsed time.Duration) {
				wantStdoutCut(t, o)
				if elapsed > 10*time.Second {
					t.Errorf("killed for its output only after %s", elapsed)
				}
			}},
		// The same from a child that the hook left behind: the whole
		// group goes.
		{hook: "infinite-fork", event: format.AfterToolCall, payload: small, timeout: 20 * time.Second, status: Failed,
			check: func(t *testing.T, o Outcome, elapsed time.Duration) { wantStdoutCut(t, o) }},
		// Endless stderr is kept to 64 KiB until the timeout.
		{hook: "infinite-stderr", event: format.BeforeToolCall, payload: small, timeout: time.Second, status: TimedOut,
			check: func(t *testing.T, o Outcome, elapsed time.Duration) {
				if len(o.Stderr) != MaxStderr || len(o.Error) > MaxStderr+100 {
					t.Errorf("kept %d bytes of stderr, error of %d bytes", len(o.Stderr), len(o.Error))
				}
			}},
		{hook: "huge-stderr", event: format.BeforeToolCall, payload: small, timeout: 10 * time.Second, status: Failed,
			check: func(t *testing.T, o Outcome, elapsed time.Duration) {
				if len(o.Stderr) != MaxStderr {
					t.Errorf("kept %d bytes of stderr, want %d", len(o.Stderr), MaxStderr)
				}
			}},
		// A JSON object without a final newline is a fine answer.
		{hook: "no-newline", event: format.BeforeToolCall, payload: small, timeout: 10 * time.Second, status: OK,
			check: func(t *testing.T, o Outcome, elapsed time.Duration) {
				if o.Response == nil || string(o.Response.Input) != `{"newline":false}` {
					t.Errorf("response %+v", o.Response)
				}
			}},
		// Half a megabyte on one line that is not JSON: a failure whose
		// message quotes a short excerpt only.
		{hook: "long-line", event: format.BeforeToolCall, payload: small, timeout: 10 * time.Second, status: Failed,
			check: func(t *testing.T, o Outcome, elapsed time.Duration) {
				wantShortError(t, o, "stdout is not a JSON object: ")
			}},
		{hook: "binary", event: format.BeforeToolCall, payload: small, timeout: 10 * time.Second, status: Failed,
			check: func(t *testing.T, o Outcome, elapsed time.Duration) {
				wantShortError(t, o, "stdout is not a JSON object: ")
			}},
		{hook: "binary-object", event: format.AfterToolCall, payload: small, timeout: 10 * time.Second, status: Failed,
			check: func(t *testing.T, o Outcome, elapsed time.Duration) {
				wantShortError(t, o, "stdout is not a valid JSON object: ")
			}},
		// A hook whose grandchild holds stdout open comes back after the
		// pipe grace period, and the grandchild is killed.
		{hook: "grandchild", event: format.TurnEnd, payload: small, timeout: 10 * time.Second, env: []string{"FAKE_EXIT_EARLY=1"}, status: NoAction},
		{hook: "ignore-term", event: format.BeforeToolCall, payload: small, timeout: 500 * time.Millisecond, status: TimedOut},
		// stdin closed at once, or after a few bytes, under a 10 MB
		// payload: quiver's writer sees a broken pipe and carries on.
		{hook: "no-stdin", event: format.UserMessageSend, payload: hostile10MB(), timeout: 10 * time.Second, status: OK},
		{hook: "read-some-close", event: format.AfterToolCall, payload: hostile10MB(), timeout: 10 * time.Second, status: OK},
		// stdin never read: exiting at once is fine; sleeping is a
		// timeout, not a writer stuck on a full pipe.
		{hook: "allow", event: format.UserMessageSend, payload: hostile10MB(), timeout: 10 * time.Second, status: NoAction},
		{hook: "sleep", event: format.UserMessageSend, payload: hostile10MB(), timeout: 500 * time.Millisecond, status: TimedOut},
		// A grandchild holds stdin open and never reads it, so the 10 MB
		// write can never finish: the run still returns, and the
		// grandchild is killed.
		{hook: "hold-stdin", event: format.UserMessageSend, payload: hostile10MB(), timeout: 5 * time.Second, status: NoAction},
	}
	for _, tt := range tests {
		t.Run(tt.hook, func(t *testing.T) {
			marker, pidFile, env := hostileEnv(t)
			ex := newExecutor(t, tt.timeout, append(env, tt.env...)...)
			start := time.Now()
			o := ex.Run(t.Context(), fake(tt.hook), tt.event, tt.payload, ex.ProjectDir)
			elapsed := time.Since(start)
			if o.Status != tt.status {
				t.Errorf("status %s (error %.200q), want %s", o.Status, o.Error, tt.status)
			}
			if limit := tt.timeout + time.Second + hostileSlack; elapsed > limit {
				t.Errorf("returned after %s, contract %s plus hostileSlack", elapsed, tt.timeout+time.Second)
			}
			if len(o.Stdout) > MaxStdout || len(o.Stderr) > MaxStderr {
				t.Errorf("kept %d bytes of stdout and %d of stderr", len(o.Stdout), len(o.Stderr))
			}
			if tt.check != nil {
				tt.check(t, o, elapsed)
			}
			noLeftovers(t, marker, pidFile)
		})
	}
}

func wantStdoutCut(t *testing.T, o Outcome) {
	t.Helper()
	if o.Error != "stdout exceeded 1048576 bytes" || len(o.Stdout) != MaxStdout {
		t.Errorf("error %q, kept %d bytes of stdout", o.Error, len(o.Stdout))
	}
}

// wantShortError checks a parse failure: the right message, an excerpt
// rather than the output, and valid UTF-8 once in a JSON report.
func wantShortError(t *testing.T, o Outcome, prefix string) {
	t.Helper()
	if !strings.HasPrefix(o.Error, prefix) || len(o.Error) > 400 {
		t.Errorf("error %.300q (%d bytes), want a short one starting %q", o.Error, len(o.Error), prefix)
	}
	data, err := json.Marshal(HookReport{Name: o.Hook.Name, Status: o.Status, Error: o.Error})
	if err != nil || !utf8.Valid(data) || !json.Valid(data) {
		t.Errorf("report does not marshal to valid JSON: %v", err)
	}
}

// A hook that deletes its own file while running still answers; the next
// run of the same hook fails cleanly instead of hanging or crashing.
func TestHostileHookDeletesItself(t *testing.T) {
	marker, pidFile, env := hostileEnv(t)
	ex := newExecutor(t, 10*time.Second, env...)
	h := fake("self-delete")
	h.Path = copyTestBinary(t)
	o := ex.Run(t.Context(), h, format.AfterToolCall, []byte(`{"tool_output":"x"}`), ex.ProjectDir)
	if o.Status != OK || o.Response == nil || string(o.Response.Output) != `"deleted myself"` {
		t.Fatalf("status %s error %q response %+v", o.Status, o.Error, o.Response)
	}
	if _, err := os.Stat(h.Path); !os.IsNotExist(err) {
		t.Fatalf("the hook did not delete itself: %v", err)
	}
	start := time.Now()
	o = ex.Run(t.Context(), h, format.AfterToolCall, []byte(`{}`), ex.ProjectDir)
	if o.Status != Failed || !strings.Contains(o.Error, "no such file") || time.Since(start) > hostileSlack {
		t.Errorf("second run: status %s error %q after %s", o.Status, o.Error, time.Since(start))
	}
	noLeftovers(t, marker, pidFile)
}

// A hook that starts a background process (holding none of its pipes) and
// exits: once Run has returned, nothing the hook started may still run, or
// every tool call of an agent could leave a process behind.
func TestHostileHookDaemonIsKilled(t *testing.T) {
	marker, pidFile, env := hostileEnv(t)
	ex := newExecutor(t, 10*time.Second, env...)
	start := time.Now()
	o := ex.Run(t.Context(), fake("daemon"), format.TurnEnd, nil, ex.ProjectDir)
	if o.Status != NoAction || time.Since(start) > 10*time.Second+time.Second+hostileSlack {
		t.Errorf("status %s error %q after %s", o.Status, o.Error, time.Since(start))
	}
	noLeftovers(t, marker, pidFile)
}

// Endless output, run many times, costs quiver a bounded amount of memory:
// what it keeps is capped and what it drops is never buffered. Output
// accumulated without bound would be gigabytes here (the hooks write for
// as long as they are let, up to 2 s each).
func TestHostileOutputMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs endless hooks for a few seconds")
	}
	marker, pidFile, env := hostileEnv(t)
	ex := newExecutor(t, 2*time.Second, env...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const runs = 12
	for i := range runs {
		name := []string{"infinite", "infinite-fork", "infinite", "infinite", "infinite-fork", "infinite-stderr"}[i%6]
		if name == "infinite-stderr" {
			ex.Timeout = time.Second // stderr is never a reason to kill: it runs to the timeout
		} else {
			ex.Timeout = 2 * time.Second
		}
		start := time.Now()
		o := ex.Run(t.Context(), fake(name), format.AfterToolCall, []byte(`{}`), ex.ProjectDir)
		if elapsed := time.Since(start); elapsed > ex.Timeout+time.Second+hostileSlack {
			t.Errorf("run %d (%s) returned after %s", i, name, elapsed)
		}
		if o.Status != Failed && o.Status != TimedOut {
			t.Errorf("run %d (%s): status %s", i, name, o.Status)
		}
		if len(o.Stdout) > MaxStdout || len(o.Stderr) > MaxStderr {
			t.Errorf("run %d (%s) kept %d bytes of stdout, %d of stderr", i, name, len(o.Stdout), len(o.Stderr))
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d endless hooks: %d MiB allocated in all, heap grew by %d KiB", runs, allocated>>20, grown>>10)
	// Keeping 1 MiB of stdout costs a few MiB of buffer growth per run;
	// 16 MiB per run is generous and still far below what unbounded
	// buffering would take.
	if allocated > runs*16<<20 {
		t.Errorf("allocated %d MiB for %d runs: output is buffered beyond the caps", allocated>>20, runs)
	}
	if grown > 64<<20 {
		t.Errorf("heap grew by %d MiB after %d runs", grown>>20, runs)
	}
	noLeftovers(t, marker, pidFile)
}

// The whole hostile set through Trigger.Fire: in order for a blocking
// event (fail open, so every one runs and a later well-behaved hook still
// rewrites the input), and all at once for turn_end. Each hook is bounded
// by its own timeout plus 1 s, so the event is too; the combined result
// is valid JSON of bounded size; nothing is left running.
func TestHostileHooksThroughTrigger(t *testing.T) {
	// Long enough that a flood of output reaches its limit first on a
	// loaded machine (a 500 ms timeout timed the floods out at a load of
	// 12), short enough that the hooks that hang cost little.
	const timeout = 2 * time.Second
	names := []string{"infinite", "infinite-fork", "binary", "long-line", "ignore-term", "grandchild", "no-stdin", "huge-stderr", "self-delete", "rewrite-input"}
	want := map[string]Status{
		"infinite": Failed, "infinite-fork": Failed, "binary": Failed, "long-line": Failed,
		"ignore-term": TimedOut, "grandchild": TimedOut, "no-stdin": OK, "huge-stderr": Failed,
		"self-delete": OK, "rewrite-input": OK,
	}
	for _, event := range []string{format.BeforeToolCall, format.TurnEnd} {
		t.Run(event, func(t *testing.T) {
			marker, pidFile, env := hostileEnv(t)
			ex := newExecutor(t, timeout, env...)
			var hs []discovery.Hook
			for _, n := range names {
				h := fake(n)
				h.Name = "hostile/" + n
				if n == "self-delete" {
					h.Path = copyTestBinary(t)
				}
				hs = append(hs, h)
			}
			tr := &Trigger{Run: ex.Run, ProjectDir: ex.ProjectDir}
			start := time.Now()
			// A 1 MiB field, so every hook gets more than a pipe buffer.
			big := json.RawMessage(`"` + strings.Repeat("m", 1<<20) + `"`)
			res := tr.Fire(t.Context(), event, Payload{"tool_input": json.RawMessage(`{"command":"ls"}`), "message": big}, hs)
			elapsed := time.Since(start)
			if limit := time.Duration(len(hs))*(timeout+time.Second) + hostileSlack; elapsed > limit {
				t.Errorf("%d hooks took %s, contract at most %s", len(hs), elapsed, limit-hostileSlack)
			}
			if res.Blocked {
				t.Errorf("fail-open event blocked by %s: %s", res.BlockedBy, res.Reason)
			}
			if len(res.Hooks) != len(hs) {
				t.Fatalf("%d reports for %d hooks", len(res.Hooks), len(hs))
			}
			for _, r := range res.Hooks {
				n := strings.TrimPrefix(r.Name, "hostile/")
				w := want[n]
				if event == format.TurnEnd && w == OK {
					w = "" // turn_end results are ignored; ok or no_action
				}
				if w != "" && r.Status != w || w == "" && r.Status != OK && r.Status != NoAction {
					t.Errorf("%s: status %s (%.200q), want %s", n, r.Status, r.Error, w)
				}
			}
			if event == format.BeforeToolCall {
				// rewrite-input ran last and saw the original input: the
				// hostile hooks before it changed nothing.
				if got := string(res.Input); !strings.Contains(got, `"command":"safe"`) || !strings.Contains(got, `"was":{"command":"ls"}`) {
					t.Errorf("final input %s", got)
				}
			}
			data, err := json.Marshal(res)
			if err != nil || !utf8.Valid(data) {
				t.Fatalf("result does not marshal to valid JSON: %v", err)
			}
			if len(data) > 256<<10 {
				t.Errorf("combined result is %d KiB", len(data)>>10)
			}
			noLeftovers(t, marker, pidFile)
		})
	}
}
