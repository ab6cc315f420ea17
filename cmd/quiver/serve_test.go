package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/gitserver"
	"github.com/quiver-cli/quiver/internal/hooks"
)

// hook serve's end-to-end tests: the server is a real quiver process,
// driven through its stdin and stdout by a client in the test, with real
// hook processes (bash and python3).

// serveClient drives one `quiver hook serve`.
type serveClient struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	lines  chan []byte
	stderr *lockedBuffer
	early  map[string]rpcReply // replies read while waiting for another id
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type rpcReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw string
}

func startServe(t *testing.T, h *harness, args ...string) *serveClient {
	t.Helper()
	cmd := h.cmd(append([]string{"hook", "serve"}, args...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &serveClient{t: t, cmd: cmd, stdin: stdin, stdout: stdout, lines: make(chan []byte, 100), stderr: &lockedBuffer{}, early: map[string]rpcReply{}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				c.lines <- line
			}
			if err != nil {
				close(c.lines)
				return
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return c
}

func (c *serveClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		c.t.Fatalf("writing to hook serve: %v", err)
	}
}

func (c *serveClient) request(id int, method string, params any) {
	c.t.Helper()
	data, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	c.send(string(data))
}

// next reads the next response line; every line must be a JSON-RPC
// response, since stdout holds nothing else.
func (c *serveClient) next() rpcReply {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("hook serve closed stdout; stderr:\n%s", c.stderr.String())
		}
		var r rpcReply
		if err := json.Unmarshal(line, &r); err != nil || r.JSONRPC != "2.0" || r.ID == nil {
			c.t.Fatalf("stdout line is not a JSON-RPC response: %q", line)
		}
		r.raw = string(line)
		return r
	case <-time.After(60 * time.Second):
		// A hang is a bug to find: the runtime's goroutine dump (SIGQUIT)
		// says where serve waits.
		c.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-c.lines:
		case <-time.After(5 * time.Second):
		}
		c.t.Fatalf("no response from hook serve in 60s; stderr, with its goroutines:\n%s", c.stderr.String())
	}
	panic("unreachable")
}

// await returns the response with the given id, keeping others.
func (c *serveClient) await(id int) rpcReply {
	c.t.Helper()
	key := strconv.Itoa(id)
	for {
		if r, ok := c.early[key]; ok {
			delete(c.early, key)
			return r
		}
		r := c.next()
		c.early[string(r.ID)] = r
	}
}

// nextID numbers requests across the tests that run in parallel, each
// with its own server: an id is taken once, atomically, and used for both
// the request and the wait (reading a shared counter twice let a parallel
// test move it in between, and a test then waited for an id never sent).
var nextID atomic.Int64

// call sends one request and waits for its response.
func (c *serveClient) call(method string, params any) rpcReply {
	c.t.Helper()
	id := int(1000 + nextID.Add(1))
	c.request(id, method, params)
	return c.await(id)
}

// run calls run and decodes the result.
func (c *serveClient) run(event string, payload any, extra ...any) map[string]any {
	c.t.Helper()
	params := map[string]any{"event": event, "payload": payload}
	for i := 0; i+1 < len(extra); i += 2 {
		params[extra[i].(string)] = extra[i+1]
	}
	r := c.call("run", params)
	if r.Error != nil {
		c.t.Fatalf("run %s: error %d %s", event, r.Error.Code, r.Error.Message)
	}
	var res map[string]any
	if err := json.Unmarshal(r.Result, &res); err != nil {
		c.t.Fatalf("run result %s: %v", r.Result, err)
	}
	return res
}

// saidOnStderr waits a little for text on stderr, which is copied
// from its pipe apart from stdout.
func (c *serveClient) saidOnStderr(text string) bool {
	for range 500 {
		if strings.Contains(c.stderr.String(), text) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// end closes stdin and waits for the server to exit.
func (c *serveClient) end() {
	c.t.Helper()
	c.stdin.Close()
	c.wait()
}

func (c *serveClient) wait() {
	c.t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			c.t.Fatalf("hook serve: %v; stderr:\n%s", err, c.stderr.String())
		}
	case <-time.After(30 * time.Second):
		c.t.Fatalf("hook serve did not exit; stderr:\n%s", c.stderr.String())
	}
	for line := range c.lines {
		c.t.Errorf("unexpected line after the end: %q", line)
	}
}

// writeHooks writes executable files into dir.
func writeHooks(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// bashHook is a one-shot hook for event whose run is script.
func bashHook(event, script string) string {
	return "#!/usr/bin/env bash\nif [ \"$1\" = hook ]; then echo " + event + "; exit 0; fi\ninput=$(cat)\n" + script + "\n"
}

// combinationHooks exercise every rule of SPEC §8's combination: chained
// rewrites, ask then run on, first block wins, failures (skipped or
// failing closed), timeouts, follow-ups, context and notices. seen is
// persistent, so the same rules hold through a long-lived hook.
func combinationHooks(python string) map[string]string {
	return map[string]string{
		"a10-rewrite": bashHook("before_tool_call", `case "$input" in *rewrite*) echo '{"input":{"command":"rewritten"},"context":"c1"}';; esac`),
		"a20-ask":     bashHook("before_tool_call", `case "$input" in *ask*) echo '{"ask":true,"reason":"confirm please","notice":"n2"}';; esac`),
		"a30-block":   bashHook("before_tool_call", `case "$input" in *danger*) echo "no danger" >&2; exit 2;; esac`),
		"a40-seen": "#!" + python + `
import json, sys
def answer(p):
    cmd = p.get("tool_input", {}).get("command", "")
    if p.get("tool_name") == "slow":
        import time; time.sleep(10)
    return {"notice": "seen " + cmd}
if sys.argv[1] == "hook":
    print("before_tool_call persistent")
elif sys.argv[1] == "run":
    print(json.dumps(answer(json.load(sys.stdin))))
else:
    for line in sys.stdin:
        m = json.loads(line)
        print(json.dumps({"id": m["id"], "result": answer(m["payload"])}), flush=True)
`,
		"a50-fail":    bashHook("before_tool_call", `case "$input" in *fail*) echo "broken" >&2; exit 1;; esac`),
		"a60-last":    bashHook("before_tool_call", `echo '{"context":"last ran"}'`),
		"b10-out":     bashHook("after_tool_call", `echo '{"output":"redacted"}'`),
		"b20-out":     bashHook("after_tool_call", `case "$input" in *redacted*) echo '{"notice":"saw redacted"}';; esac`),
		"c10-stop":    bashHook("agent_stop", `echo '{"follow_up_messages":["first"]}'`),
		"c20-stop":    bashHook("agent_stop", `echo '{"follow_up_messages":["second"]}'`),
		"d10-message": bashHook("user_message_send", `case "$input" in *secret*) echo '{"blocked":true,"reason":"no secrets"}';; esac`),
		"e10-turn":    bashHook("turn_end", `echo '{"context":"ignored"}'`),
		"e20-turn":    bashHook("turn_end", `exit 1`),
		// Cannot say its event: reported for every event, and a block
		// when failing closed on a blocking one.
		"z-invalid": "#!/usr/bin/env bash\necho 'no event here'\n",
	}
}

var durations = regexp.MustCompile(`"duration_ms":[0-9.e+-]+`)

// TestServeRunMatchesHookRun: every combination rule gives, through
// serve's run, exactly the object hook run prints, with a persistent hook
// in the chain (one-shot in hook run, long-lived in serve).
func TestServeRunMatchesHookRun(t *testing.T) {
	t.Parallel() // its own project, home and git server
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	h := newHarness(t, gitserver.New(t, gitserver.Options{}))
	writeHooks(t, filepath.Join(h.home, "hooks"), combinationHooks(python))
	c := startServe(t, h)
	bash := func(cmd string) map[string]any {
		return map[string]any{"tool_name": "bash", "tool_input": map[string]any{"command": cmd}}
	}
	cases := []struct {
		name, event string
		payload     map[string]any
		failClosed  bool
		want        []string // fragments of the result
	}{
		{"nothing to do", "before_tool_call", bash("ls"), false, []string{`"decision":"allow"`, `"seen ls"`}},
		{"rewrite chains", "before_tool_call", bash("please rewrite"), false, []string{`"input":{"command":"rewritten"}`, `"text":"seen rewritten"`, `"text":"c1"`}},
		{"ask, later hooks run", "before_tool_call", bash("ask"), false, []string{`"decision":"ask"`, `"asked_by":"a20-ask"`, `"reason":"confirm please"`, `"last ran"`}},
		{"block wins, rest skipped", "before_tool_call", bash("ask danger"), false, []string{`"decision":"block"`, `"blocked_by":"a30-block"`, `"reason":"no danger"`, `{"name":"a60-last","status":"skipped"`}},
		{"failure skipped", "before_tool_call", bash("fail"), false, []string{`"decision":"allow"`, `"status":"failed"`, `"last ran"`}},
		{"failure fails closed", "before_tool_call", bash("fail"), true, []string{`"decision":"block"`, `"blocked_by":"a50-fail"`, `failed: exit status 1: broken`}},
		{"output rewrite chains", "after_tool_call", map[string]any{"tool_name": "bash", "tool_output": "secret"}, false, []string{`"output":"redacted"`, `"saw redacted"`}},
		{"follow-ups concatenate", "agent_stop", map[string]any{}, false, []string{`"follow_up_messages":["first","second"]`}},
		{"message blocked", "user_message_send", map[string]any{"message": "my secret"}, false, []string{`"decision":"block"`, `"reason":"no secrets"`}},
		{"message allowed", "user_message_send", map[string]any{"message": "hello"}, false, []string{`"decision":"allow"`, `{"name":"z-invalid","status":"invalid"`}},
		{"invalid hook fails closed", "user_message_send", map[string]any{"message": "hello"}, true, []string{`"decision":"block"`, `"blocked_by":"z-invalid"`}},
		{"turn_end ignores results", "turn_end", map[string]any{}, false, []string{`"hooks":[{"name":"e10-turn","status":"ok"`, `{"name":"e20-turn","status":"failed"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			payload, _ := json.Marshal(tc.payload)
			args := []string{"hook", "run", tc.event}
			if tc.failClosed {
				args = append(args, "--fail-closed")
			}
			one := h.run(string(payload), args...)
			if one.code != 0 {
				t.Fatalf("%s", one)
			}
			r := c.call("run", map[string]any{"event": tc.event, "payload": tc.payload, "fail_closed": tc.failClosed})
			if r.Error != nil {
				t.Fatalf("serve: %+v", r.Error)
			}
			got := durations.ReplaceAllString(string(r.Result), `"duration_ms":0`)
			want := durations.ReplaceAllString(strings.TrimSpace(one.stdout), `"duration_ms":0`)
			if got != want {
				t.Errorf("serve run differs from hook run:\nserve:    %s\nhook run: %s", got, want)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("result lacks %s:\n%s", w, got)
				}
			}
		})
	}
	c.end()
}

// TestServePipelining: requests overlap, and a quick one is answered
// before a slow one sent earlier; notifications get no answer; a
// request's timeout is its own.
func TestServePipelining(t *testing.T) {
	t.Parallel() // its own project, home and git server
	h := newHarness(t, gitserver.New(t, gitserver.Options{}))
	writeHooks(t, filepath.Join(h.home, "hooks"), map[string]string{
		"sleepy": bashHook("before_tool_call", `case "$input" in *slow*) sleep 2;; esac; echo '{"context":"awake"}'`),
	})
	c := startServe(t, h)
	slow := map[string]any{"event": "before_tool_call", "payload": map[string]any{"tool_name": "slow"}}
	quick := map[string]any{"event": "before_tool_call", "payload": map[string]any{"tool_name": "quick"}}
	c.request(1, "run", slow)
	c.send(`{"jsonrpc":"2.0","method":"run","params":{"event":"before_tool_call","payload":{}}}`) // a notification
	c.request(2, "run", quick)
	first, second := c.next(), c.next()
	if string(first.ID) != "2" || string(second.ID) != "1" {
		t.Fatalf("answered %s then %s; want the quick request 2 first", first.ID, second.ID)
	}
	for _, r := range []rpcReply{first, second} {
		if r.Error != nil || !strings.Contains(string(r.Result), `"awake"`) {
			t.Errorf("response: %s", r.raw)
		}
	}
	// The slow one again, with a timeout of its own.
	res := c.run("before_tool_call", map[string]any{"tool_name": "slow"}, "timeout", 0.5)
	if hs := fmt.Sprint(res["hooks"]); !strings.Contains(hs, "status:timeout") {
		t.Errorf("a 0.5 s timeout: %s", hs)
	}
	c.end()
}

// TestServeSeesChanges: installs, trust, enable/disable, edits and
// removals made by other quiver processes show at the next request.
func TestServeSeesChanges(t *testing.T) {
	t.Parallel() // its own project, home and git server
	h := newHarness(t, gitserver.New(t, gitserver.Options{}))
	c := startServe(t, h)
	danger := map[string]any{"tool_name": "bash", "tool_input": map[string]any{"command": "rm -rf /"}}
	decision := func(step string, want string) {
		t.Helper()
		if got := c.run("before_tool_call", danger)["decision"]; got != want {
			t.Fatalf("%s: decision %v, want %s; stderr:\n%s", step, got, want, c.stderr.String())
		}
	}
	decision("empty", "allow")
	h.must("plugin", "add", examplePlugin(t)) // the user's own install is trusted
	decision("installed", "block")
	h.must("plugin", "disable", "acme/guard")
	decision("disabled", "allow")
	h.must("plugin", "enable", "acme/guard")
	decision("enabled", "block")
	// An edit untrusts the project until it is trusted again.
	hook := filepath.Join(h.project, ".quiver", "plugins", "acme@guard", "hooks", "validate-command")
	data, err := os.ReadFile(hook)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hook, append(data, []byte("\n# edited\n")...), 0o755); err != nil {
		t.Fatal(err)
	}
	decision("edited", "allow")
	if !c.saidOnStderr("untrusted project hook") {
		t.Errorf("no warning about untrusted hooks:\n%s\n%s", c.stderr.String(), h.run("", "hook", "list", "--all"))
	}
	h.must("trust")
	decision("trusted again", "block")
	h.must("plugin", "remove", "acme/guard")
	decision("removed", "allow")
	// A global hook added while serving, then switched to another event.
	writeHooks(t, filepath.Join(h.home, "hooks"), map[string]string{"g": bashHook("before_tool_call", `echo '{"blocked":true,"reason":"global"}'`)})
	decision("global hook added", "block")
	writeHooks(t, filepath.Join(h.home, "hooks"), map[string]string{"g": bashHook("after_tool_call", `echo '{"blocked":true,"reason":"global"}'`)})
	decision("global hook now for after_tool_call", "allow")
	c.end()
}

// persistentProbe is a persistent bash hook that answers with its pid,
// crashes, hangs or garbles on request, and records its pid in pids.
func persistentProbe(pids string) string {
	return `#!/usr/bin/env bash
answer() {
  case "$1" in
    *crash*) echo "crashing on purpose" >&2; exit 3 ;;
    *hang*) sleep 30 ;;
    *garble*) echo "this is not json" ;;
    *block*) printf '{"id":%s,"exit":2,"stderr":"blocked by exit"}\n' "$2" ;;
    *) printf '{"id":%s,"result":{"context":"pid %s"}}\n' "$2" "$$" ;;
  esac
}
case "$1" in
  hook) echo "before_tool_call persistent" ;;
  run) input=$(cat); case "$input" in *block*) echo "blocked by exit" >&2; exit 2 ;; esac; echo "{\"context\":\"one-shot\"}" ;;
  serve)
    echo $$ >> ` + pids + `
    while IFS= read -r line; do
      id=${line#*\"id\":}; id=${id%%,*}
      answer "$line" "$id"
    done
    echo $$ >> ` + pids + `.bye ;;
esac
`
}

// TestServePersistentHookRestarts: one process serves many events; a
// crash, a timeout, a malformed line and an edit each cost a restart,
// and the failed request is a failed hook, not a dead server.
func TestServePersistentHookRestarts(t *testing.T) {
	t.Parallel() // its own project, home and git server
	h := newHarness(t, gitserver.New(t, gitserver.Options{}))
	pids := filepath.Join(t.TempDir(), "pids")
	hooksDir := filepath.Join(h.home, "hooks")
	writeHooks(t, hooksDir, map[string]string{"probe": persistentProbe(pids)})
	c := startServe(t, h)
	ask := func(cmd string, extra ...any) (status, context string, res map[string]any) {
		t.Helper()
		res = c.run("before_tool_call", map[string]any{"tool_name": "bash", "tool_input": map[string]any{"command": cmd}}, extra...)
		hooks, _ := res["hooks"].([]any)
		if len(hooks) != 1 {
			t.Fatalf("%s: hooks %v", cmd, res["hooks"])
		}
		status = hooks[0].(map[string]any)["status"].(string)
		if ctx, _ := res["context"].([]any); len(ctx) == 1 {
			context = ctx[0].(map[string]any)["text"].(string)
		}
		return status, context, res
	}
	_, pid1, _ := ask("ls")
	_, again, _ := ask("ls -la")
	if !strings.HasPrefix(pid1, "pid ") || again != pid1 {
		t.Fatalf("one process should serve both events: %q then %q", pid1, again)
	}
	steps := []struct {
		name, cmd  string
		wantStatus string
		extra      []any
		edit       bool
	}{
		{"crash", "crash", "failed", nil, false},
		{"timeout", "hang", "timeout", []any{"timeout", "500ms"}, false},
		{"malformed line", "garble", "failed", nil, false},
		{"edit", "", "", nil, true},
	}
	prev := pid1
	for _, s := range steps {
		if s.edit {
			data, _ := os.ReadFile(filepath.Join(hooksDir, "probe"))
			os.WriteFile(filepath.Join(hooksDir, "probe"), append(data, "# edited\n"...), 0o755)
		} else if status, _, res := ask(s.cmd, s.extra...); status != s.wantStatus {
			t.Fatalf("%s: status %s, want %s: %v", s.name, status, s.wantStatus, res)
		}
		_, pid, _ := ask("ls")
		if !strings.HasPrefix(pid, "pid ") || pid == prev {
			t.Fatalf("after %s: answered %q (before: %q); want a new process", s.name, pid, prev)
		}
		prev = pid
	}
	if res := c.run("before_tool_call", map[string]any{"tool_input": map[string]any{"command": "block"}}); res["decision"] != "block" || res["reason"] != "blocked by exit" {
		t.Errorf("exit 2 through serve: %v", res)
	}
	// hook run still runs it one-shot.
	if r := h.run(`{"tool_input":{"command":"ls"}}`, "hook", "run", "before_tool_call"); !strings.Contains(r.stdout, `"one-shot"`) {
		t.Errorf("hook run: %s", r)
	}
	for _, want := range []string{"crashing on purpose"} {
		if !strings.Contains(fmt.Sprint(c.run("before_tool_call", map[string]any{"tool_input": map[string]any{"command": "crash"}})), want) {
			t.Errorf("a crash's report lacks its stderr %q", want)
		}
	}
	c.end()
	assertAllGone(t, pids)
}

// waitForFile waits until path exists: a hook touches it to say it got
// somewhere (60 s at most, as for a response).
func waitForFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s did not appear in 60s", path)
}

// assertAllGone fails for any pid in the file that is still alive.
func assertAllGone(t *testing.T, pidFile string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, f := range strings.Fields(string(data)) {
		pid, _ := strconv.Atoi(f)
		for syscall.Kill(pid, 0) == nil {
			if time.Now().After(deadline) {
				t.Errorf("hook process %d outlived hook serve", pid)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// TestServeShutdown: EOF, the shutdown method and SIGTERM each end the
// server with every hook process it started, persistent or in flight.
func TestServeShutdown(t *testing.T) {
	t.Parallel() // its own project, home and git server
	for _, how := range []string{"eof", "shutdown", "sigterm", "client gone"} {
		t.Run(how, func(t *testing.T) {
			h := newHarness(t, gitserver.New(t, gitserver.Options{}))
			pids := filepath.Join(t.TempDir(), "pids")
			writeHooks(t, filepath.Join(h.home, "hooks"), map[string]string{
				"probe":  persistentProbe(pids),
				"sleepy": bashHook("after_tool_call", "echo $$ >> "+pids+"; sleep 30 & echo $! >> "+pids+"; wait"),
			})
			c := startServe(t, h)
			res := c.run("before_tool_call", map[string]any{"tool_input": map[string]any{"command": "ls"}})
			switch how {
			case "eof":
				c.end()
			case "shutdown":
				r := c.call("shutdown", nil)
				if r.Error != nil || string(r.Result) != "null" {
					t.Errorf("shutdown answered %s", r.raw)
				}
				c.wait()
				// Ended gently: the hook saw its input end and said bye.
				if bye, _ := os.ReadFile(pids + ".bye"); !strings.Contains(fmt.Sprint(res["context"]), "pid "+strings.TrimSpace(string(bye))) {
					t.Errorf("the persistent hook did not end by itself: bye %q, context %v", bye, res["context"])
				}
			case "sigterm":
				c.request(7, "run", map[string]any{"event": "after_tool_call", "payload": map[string]any{}})
				waitForLines(t, pids, 3) // the persistent hook, the sleepy hook and its child
				c.cmd.Process.Signal(syscall.SIGTERM)
				r := c.next()
				if string(r.ID) != "7" || r.Error == nil || !strings.Contains(r.Error.Message, "SIGTERM") {
					t.Errorf("the request in flight at SIGTERM: %s", r.raw)
				}
				c.wait()
			case "client gone":
				// Nobody reads the answers any more: writing one fails,
				// and the server ends with its hooks.
				c.stdout.Close()
				c.request(8, "run", map[string]any{"event": "before_tool_call", "payload": map[string]any{}})
				done := make(chan error, 1)
				go func() { done <- c.cmd.Wait() }()
				select {
				case err := <-done:
					var ee *exec.ExitError
					if !errors.As(err, &ee) || ee.ExitCode() != 1 {
						t.Errorf("hook serve ended with %v, want exit 1; stderr:\n%s", err, c.stderr.String())
					}
				case <-time.After(30 * time.Second):
					t.Fatal("hook serve did not notice its client was gone")
				}
			}
			assertAllGone(t, pids)
		})
	}
}

func waitForLines(t *testing.T, file string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(file)
		if len(strings.Fields(string(data))) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s has %q, want %d lines", file, data, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestServeBadInput: whatever arrives, each line gets an error response
// with the JSON-RPC code, and the server goes on serving.
func TestServeBadInput(t *testing.T) {
	t.Parallel() // its own project, home and git server
	h := newHarness(t, gitserver.New(t, gitserver.Options{}))
	c := startServe(t, h)
	cases := []struct {
		line string
		code int
		id   string
	}{
		{`not json`, -32700, "null"},
		{`{"jsonrpc":"2.0","id":1,"method":"run"`, -32700, "null"},
		{`[]`, -32600, "null"},
		{`42`, -32600, "null"},
		{`{"id":2,"method":"run"}`, -32600, "2"},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"run"}`, -32600, "null"},
		{`{"jsonrpc":"2.0","id":"s","method":"nope"}`, -32601, `"s"`},
		{`{"jsonrpc":"2.0","id":3,"method":"run","params":{"event":"nope"}}`, -32602, "3"},
		{`{"jsonrpc":"2.0","id":4,"method":"run","params":{"event":"before_tool_call","payload":[1]}}`, -32602, "4"},
		{`{"jsonrpc":"2.0","id":5,"method":"run","params":{"event":"before_tool_call","timeout":"soon"}}`, -32602, "5"},
		{`{"jsonrpc":"2.0","id":6,"method":"run","params":["before_tool_call"]}`, -32602, "6"},
		{`{"jsonrpc":"2.0","id":7,"method":"list","params":{"kind":"widgets"}}`, -32602, "7"},
		{`{"jsonrpc":"2.0","id":8,"method":"run","params":"x"}`, -32600, "8"},
	}
	for _, tc := range cases {
		c.send(tc.line)
		r := c.next()
		if r.Error == nil || r.Error.Code != tc.code || string(r.ID) != tc.id {
			t.Errorf("%s: answered %s; want code %d, id %s", tc.line, r.raw, tc.code, tc.id)
		}
	}
	// A line over the limit is read to its end and refused; the next
	// line is served.
	huge := `{"jsonrpc":"2.0","id":9,"method":"run","params":{"event":"turn_end","payload":{"x":"` + strings.Repeat("a", hooks.MaxServeLine) + `"}}}`
	c.send(huge)
	if r := c.next(); r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "exceeds") {
		t.Errorf("huge line: %.200s", r.raw)
	}
	// A batch: answered as one array, notifications left out.
	c.send(`[{"jsonrpc":"2.0","id":10,"method":"list","params":{"kind":"hooks"}},{"jsonrpc":"2.0","method":"list"},{"jsonrpc":"2.0","id":11,"method":"nope"}]`)
	select {
	case line := <-c.lines:
		var batch []rpcReply
		if err := json.Unmarshal(line, &batch); err != nil || len(batch) != 2 || string(batch[0].ID) != "10" || string(batch[0].Result) != "[]" || batch[1].Error == nil {
			t.Errorf("batch answered %s", line)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no answer to a batch")
	}
	if res := c.run("agent_stop", map[string]any{}); res["event"] != "agent_stop" {
		t.Errorf("after bad input: %v", res)
	}
	// An endless last line, then EOF: refused, and the server ends.
	io.WriteString(c.stdin, strings.Repeat("x", hooks.MaxServeLine+10))
	c.stdin.Close()
	if r := c.next(); r.Error == nil || r.Error.Code != -32600 {
		t.Errorf("endless line: %.200s", r.raw)
	}
	c.wait()
}

// TestServeTimeoutIsBounded: a run's timeout that is no limit is invalid
// params naming the value (before, "1ns" was taken as given, and a
// handler could never be killed in time); above an hour it is capped,
// and the request runs. The server's own --timeout and
// QUIVER_HOOK_TIMEOUT are refused before it serves anything.
func TestServeTimeoutIsBounded(t *testing.T) {
	t.Parallel() // its own project, home and git server
	h := newHarness(t, gitserver.New(t, gitserver.Options{}))
	writeHooks(t, filepath.Join(h.project, ".quiver", "hooks"), map[string]string{"local": bashHook("before_tool_call", "echo '{\"context\":\"ran\"}'")})
	h.must("trust")
	c := startServe(t, h)
	for i, tc := range []struct{ timeout, says string }{
		{`1e-10`, "1e-10 seconds rounds to less than 1ms"},
		{`"1ns"`, `"1ns" rounds to less than 1ms`},
		{`0`, "0 seconds is not positive"},
		{`"-5s"`, `"-5s" is not positive`},
		{`1e10`, "1e10 seconds is too large to be a duration"},
		{`1e400`, "1e400 seconds is not finite"},
		{`true`, "true is neither a duration"},
	} {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"run","params":{"event":"before_tool_call","timeout":%s}}`, i, tc.timeout))
		r := c.await(i)
		if r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, tc.says) {
			t.Errorf("timeout %s: answered %s; want -32602 saying %q", tc.timeout, r.raw, tc.says)
		}
	}
	for _, timeout := range []any{7200, "2h", 0.5} {
		if res := c.run("before_tool_call", map[string]any{}, "timeout", timeout); !strings.Contains(fmt.Sprint(res["context"]), "ran") {
			t.Errorf("timeout %v: %v", timeout, res)
		}
	}
	c.end()
	if r := h.run("", "hook", "serve", "--timeout", "0s"); r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, `quiver: --timeout "0s" is not positive`) {
		t.Errorf("%s", r)
	}
	if r := h.with("QUIVER_HOOK_TIMEOUT=3000000h").run("", "hook", "serve"); r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, `quiver: QUIVER_HOOK_TIMEOUT "3000000h" is too large to be a duration`) {
		t.Errorf("%s", r)
	}
}

// TestServeStdoutOnlyProtocol: warnings (an untrusted project, a broken
// hook) go to stderr; stdout holds only responses (next checks each).
func TestServeStdoutOnlyProtocol(t *testing.T) {
	t.Parallel() // its own project, home and git server
	h := newHarness(t, gitserver.New(t, gitserver.Options{}))
	writeHooks(t, filepath.Join(h.project, ".quiver", "hooks"), map[string]string{"local": bashHook("before_tool_call", "echo hi")})
	writeHooks(t, filepath.Join(h.home, "hooks"), map[string]string{"noisy": "#!/usr/bin/env bash\necho 'not an event'\n"})
	c := startServe(t, h)
	for range 3 {
		c.run("before_tool_call", map[string]any{})
	}
	c.end()
	if n := strings.Count(c.stderr.String(), "untrusted project hook"); n != 1 {
		t.Errorf("the untrusted warning appeared %d times, want once:\n%s", n, c.stderr.String())
	}
}

// TestServeAttackFixes holds what an attack review of serve found:
// a persistent project hook swapped while an event waits for its turn
// never runs for that event; waiting for the turn counts against the
// timeout; hooks get SIGPIPE's default action, as under hook run.
func TestServeAttackFixes(t *testing.T) {
	t.Parallel() // its own project, home and git server
	h := newHarness(t, gitserver.New(t, gitserver.Options{}))
	marker := filepath.Join(t.TempDir(), "v2-ran")
	slowStarted := filepath.Join(t.TempDir(), "slow-started")
	hooksDir := filepath.Join(h.project, ".quiver", "hooks")
	slowV1 := `#!/usr/bin/env bash
case "$1" in
  hook) echo "before_tool_call persistent" ;;
  run) cat >/dev/null ;;
  serve) while IFS= read -r line; do
      id=${line#*\"id\":}; id=${id%%,*}
      case "$line" in *slow*) touch ` + slowStarted + `; sleep 1 ;; *hang*) sleep 30 ;; esac
      printf '{"id":%s,"result":{"context":"v1"}}\n' "$id"
    done ;;
esac
`
	writeHooks(t, hooksDir, map[string]string{
		"guard": slowV1,
		"pipe":  bashHook("after_tool_call", `yes | head -n1 >/dev/null; echo '{"context":"pipe ended"}'`),
	})
	h.must("trust")
	c := startServe(t, h)
	c.request(1, "run", map[string]any{"event": "before_tool_call", "payload": map[string]any{"tool_name": "slow"}})
	// Once 1 runs (its hook is in its 1 s sleep), 2 is sent and waits
	// for its turn while the file is swapped.
	waitForFile(t, slowStarted)
	c.request(2, "run", map[string]any{"event": "before_tool_call", "payload": map[string]any{"tool_name": "quick"}})
	v2 := strings.Replace(slowV1, `"context":"v1"`, `"context":"v2"`, 1)
	v2 = strings.Replace(v2, "serve) while", "serve) touch "+marker+"; while", 1)
	tmp := filepath.Join(hooksDir, ".guard.new")
	os.WriteFile(tmp, []byte(v2), 0o755)
	os.Rename(tmp, filepath.Join(hooksDir, "guard")) // the repository pulled
	for _, id := range []int{1, 2} {
		if r := c.await(id); strings.Contains(r.raw, "v2") {
			t.Errorf("request %d ran the swapped, untrusted file: %s", id, r.raw)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the swapped file was started")
	}
	h.must("trust")
	// Three events queue behind a hang with a 1 s timeout: each ends as
	// a timeout, waiting or running.
	for id := 10; id < 13; id++ {
		c.request(id, "run", map[string]any{"event": "before_tool_call", "payload": map[string]any{"tool_name": "hang"}, "timeout": 1})
	}
	for id := 10; id < 13; id++ {
		if r := c.await(id); !strings.Contains(string(r.Result), `"status":"timeout"`) {
			t.Errorf("request %d: %s", id, r.raw)
		}
	}
	if res := c.run("after_tool_call", map[string]any{}); !strings.Contains(fmt.Sprint(res["context"]), "pipe ended") {
		t.Errorf("a pipeline ending early under serve: %v", res)
	}
	c.end()
}
