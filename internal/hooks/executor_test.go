package hooks

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// fake returns a hook run by the test binary, behaving as name says.
func fake(name string) discovery.Hook {
	return discovery.Hook{Name: name, Path: os.Args[0], Status: discovery.Active, Location: plugins.Global}
}

func newExecutor(t *testing.T, timeout time.Duration, extraEnv ...string) *Executor {
	return &Executor{
		ProjectDir: t.TempDir(),
		Env:        append(append(os.Environ(), "QUIVER_FAKE_HOOK=1"), extraEnv...),
		Timeout:    timeout,
	}
}

func TestExecutorOutcomes(t *testing.T) {
	tests := []struct {
		hook   string
		event  string
		status Status
		reason string
		err    string
	}{
		{"allow", format.BeforeToolCall, NoAction, "", ""},
		{"block", format.BeforeToolCall, Blocked, "no way", ""},
		{"block-no-reason", format.UserMessageSend, Blocked, "blocked by block-no-reason", ""},
		{"block2", format.BeforeToolCall, Blocked, "exit two says no", ""},
		{"block2", format.UserMessageSend, Blocked, "exit two says no", ""},
		// Exit 2 only blocks the two blocking events; elsewhere it fails.
		{"block2", format.AfterToolCall, Failed, "", "exit status 2: exit two says no"},
		// A block answer from a non-blocking event is just an answer.
		{"block", format.AgentStop, OK, "", ""},
		{"unblock", format.BeforeToolCall, OK, "", ""},
		{"fail", format.BeforeToolCall, Failed, "", "exit status 1: boom"},
		{"garbage", format.BeforeToolCall, Failed, "", `stdout is not a JSON object: "not json at all"`},
		{"array", format.BeforeToolCall, Failed, "", `stdout is not a JSON object: "[\"a\"]"`},
		{"huge", format.AfterToolCall, Failed, "", "stdout exceeded 1048576 bytes"},
		{"no-stdin", format.BeforeToolCall, OK, "", ""},
	}
	ex := newExecutor(t, 10*time.Second)
	payload := []byte(`{"tool_input":{"command":"ls"}}`)
	for _, tt := range tests {
		t.Run(tt.hook+"/"+tt.event, func(t *testing.T) {
			o := ex.Run(t.Context(), fake(tt.hook), tt.event, payload, ex.ProjectDir)
			if o.Status != tt.status || o.Reason != tt.reason || o.Error != tt.err {
				t.Errorf("got status %q reason %q error %q\nwant %q %q %q", o.Status, o.Reason, o.Error, tt.status, tt.reason, tt.err)
			}
		})
	}
}

func TestExecutorStderrIsBounded(t *testing.T) {
	ex := newExecutor(t, 10*time.Second)
	o := ex.Run(t.Context(), fake("huge-stderr"), format.BeforeToolCall, nil, ex.ProjectDir)
	if o.Status != Failed || len(o.Stderr) != MaxStderr {
		t.Errorf("status %s, kept %d bytes of stderr, want %d", o.Status, len(o.Stderr), MaxStderr)
	}
}

// A 10 MB payload to a hook that never reads stdin must not hang.
func TestExecutorLargePayloadUnread(t *testing.T) {
	ex := newExecutor(t, 5*time.Second)
	big := []byte(`{"message":"` + strings.Repeat("m", 10<<20) + `"}`)
	o := ex.Run(t.Context(), fake("allow"), format.UserMessageSend, big, ex.ProjectDir)
	if o.Status != NoAction {
		t.Errorf("status %s (%s)", o.Status, o.Error)
	}
}

// The hook sees the SPEC §8 environment and runs in the given directory.
func TestExecutorEnvironment(t *testing.T) {
	ex := newExecutor(t, 10*time.Second)
	h := fake("echo")
	h.Name = "acme/guard/echo"
	h.Plugin, _ = plugins.ParseName("acme/guard")
	h.PluginRoot = t.TempDir()
	h.DataDir = filepath.Join(t.TempDir(), "data", "acme@guard")
	cwd := t.TempDir()
	o := ex.Run(t.Context(), h, format.AfterToolCall, []byte(`{"x":1}`), cwd)
	if o.Status != OK {
		t.Fatalf("%s: %s", o.Status, o.Error)
	}
	var got struct {
		Env     map[string]string `json:"env"`
		Payload map[string]any    `json:"payload"`
		Cwd     string            `json:"cwd"`
	}
	if err := json.Unmarshal(o.Response.Output, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"QUIVER_EVENT": "after_tool_call", "QUIVER_HOOK_NAME": "acme/guard/echo", "QUIVER_PROJECT_DIR": ex.ProjectDir,
		"QUIVER_PLUGIN_NAME": "acme/guard", "QUIVER_PLUGIN_ROOT": h.PluginRoot, "QUIVER_PLUGIN_DATA": h.DataDir,
	}
	for k, v := range want {
		if got.Env[k] != v {
			t.Errorf("%s = %q, want %q", k, got.Env[k], v)
		}
	}
	if got.Cwd != cwd {
		t.Errorf("cwd %q, want %q", got.Cwd, cwd)
	}
	if fi, err := os.Stat(h.DataDir); err != nil || !fi.IsDir() {
		t.Errorf("data folder not created: %v", err)
	}
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // not Linux: trust kill(0)
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) == 0 || fields[0] != "Z"
}

// A hook that sleeps past its timeout, one that ignores SIGTERM, and one
// whose grandchild holds stdout open: each returns within the timeout plus
// the pipe grace period, marked timeout, with no process of it left.
func TestExecutorTimeoutKillsProcessGroup(t *testing.T) {
	const timeout = 500 * time.Millisecond
	for _, name := range []string{"sleep", "ignore-term", "grandchild"} {
		t.Run(name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			ex := newExecutor(t, timeout, "FAKE_PID_FILE="+pidFile)
			start := time.Now()
			o := ex.Run(t.Context(), fake(name), format.BeforeToolCall, nil, ex.ProjectDir)
			elapsed := time.Since(start)
			if o.Status != TimedOut || !strings.HasPrefix(o.Error, "timed out after 500ms") {
				t.Errorf("status %s error %q", o.Status, o.Error)
			}
			// The contract is timeout + 1 s; the margin only absorbs a
			// loaded machine, it is not a speed target.
			if elapsed > timeout+time.Second+2*time.Second {
				t.Errorf("returned after %s", elapsed)
			}
			if data, err := os.ReadFile(pidFile); err == nil {
				pid, _ := strconv.Atoi(string(data))
				deadline := time.Now().Add(2 * time.Second)
				for alive(pid) && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if alive(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("grandchild %d still running", pid)
				}
			}
		})
	}
}

// A Claude handler's own timeout is the limit only when it is one: a
// zero, negative or sub-millisecond Duration (what 1e-10 and 1e10
// seconds once became) falls back to the executor's timeout, never to
// "no timeout", and the handler is killed in time.
func TestExecutorHandlerTimeoutIsBounded(t *testing.T) {
	const timeout = 300 * time.Millisecond
	for _, tc := range []struct {
		own  time.Duration
		want string
	}{
		{0, "timed out after 300ms"},
		{math.MinInt64, "timed out after 300ms"},
		{-time.Second, "timed out after 300ms"},
		{time.Nanosecond, "timed out after 300ms"},
		{200 * time.Millisecond, "timed out after 200ms"},
	} {
		t.Run(tc.own.String(), func(t *testing.T) {
			ex := newExecutor(t, timeout)
			h := discovery.Hook{Name: "h", Status: discovery.Active, Event: format.BeforeToolCall, Format: discovery.FormatClaude,
				Handler: &format.Handler{Event: "PreToolUse", N: 1, Type: "command", Command: "exec sleep 30", Timeout: tc.own}}
			start := time.Now()
			o := ex.Run(t.Context(), h, format.BeforeToolCall, []byte(`{"tool_name":"Bash"}`), ex.ProjectDir)
			if o.Status != TimedOut || !strings.HasPrefix(o.Error, tc.want) {
				t.Errorf("status %s error %q; want %s", o.Status, o.Error, tc.want)
			}
			// The contract is timeout + 1 s; the margin only absorbs a
			// loaded machine.
			if elapsed := time.Since(start); elapsed > timeout+time.Second+2*time.Second {
				t.Errorf("returned after %s", elapsed)
			}
		})
	}
}

// A hook that exits at once but leaves a child holding stdout: the result
// comes back promptly and the child is killed.
func TestExecutorReturnsWhenChildHoldsPipe(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ex := newExecutor(t, 30*time.Second, "FAKE_PID_FILE="+pidFile, "FAKE_EXIT_EARLY=1")
	start := time.Now()
	o := ex.Run(t.Context(), fake("grandchild"), format.TurnEnd, nil, ex.ProjectDir)
	if o.Status != NoAction {
		t.Errorf("status %s (%s)", o.Status, o.Error)
	}
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("waited %s for a pipe held by a grandchild", elapsed)
	}
	data, err := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(string(data))
	if pid <= 0 {
		t.Fatalf("the hook left no grandchild pid (%v); the test proves nothing", err)
	}
	// SIGKILL takes a moment to land: wait for the grandchild to go, up
	// to a bound, rather than for a fixed time that a loaded machine may
	// not honour.
	deadline := time.Now().Add(2 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("grandchild %d left running", pid)
	}
}
