package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// replyTimeout is how long one request may take: generous, so that a
// loaded CI machine makes the bench slow, never flaky.
const replyTimeout = 30 * time.Second

// server is a running `quiver hook serve` (SPEC §14), asked one request at
// a time: per-request times are latencies, so nothing is pipelined.
type server struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte // stdout, a line per message; closed at EOF
	stderr *tail
	id     int
}

func startServer(quiver string, env []string) (*server, error) {
	return startProgram(env, quiver, "hook", "serve")
}

// startProgram starts argv as a server spoken to over its stdin and
// stdout: `quiver hook serve`, or the JSON-RPC echo that is its floor.
func startProgram(env []string, argv ...string) (*server, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second // for a hook that kept our stderr open
	s := &server{cmd: cmd, lines: make(chan []byte, 16), stderr: &tail{}}
	cmd.Stderr = s.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", strings.Join(argv, " "), err)
	}
	s.stdin = in
	go func() {
		r := bufio.NewReaderSize(out, 1<<16)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				s.lines <- line
			}
			if err != nil {
				close(s.lines)
				return
			}
		}
	}()
	return s, nil
}

// checkServe says why `hook serve` cannot be measured (the quiver being
// measured has none, or it does not answer), nil when it can.
func (b *bench) checkServe() error {
	home := filepath.Join(b.tmp, "home-check")
	os.MkdirAll(home, 0o755)
	s, err := startServer(b.quiver, b.env(home, home))
	if err != nil {
		return fmt.Errorf("serve unavailable: %v", err)
	}
	defer s.close()
	if _, err := s.call("list", []byte(`{"kind":"hooks"}`)); err != nil {
		return fmt.Errorf("serve unavailable: %v", err)
	}
	return nil
}

// call sends one request, params already JSON, and waits for its answer.
func (s *server) call(method string, params []byte) (json.RawMessage, error) {
	s.id++
	req := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", s.id, method, params)
	if _, err := s.stdin.Write(req); err != nil {
		return nil, s.fail(fmt.Errorf("%s: %w", method, err))
	}
	timer := time.NewTimer(replyTimeout)
	defer timer.Stop()
	select {
	case line, ok := <-s.lines:
		if !ok {
			return nil, s.fail(fmt.Errorf("%s: the server exited", method))
		}
		var resp struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &resp); err != nil {
			return nil, s.fail(fmt.Errorf("%s: answer is not JSON: %q", method, line))
		}
		if string(resp.ID) != strconv.Itoa(s.id) {
			return nil, s.fail(fmt.Errorf("%s: answer to id %s, want %d", method, resp.ID, s.id))
		}
		if resp.Error != nil {
			return nil, s.fail(fmt.Errorf("%s: error %d: %s", method, resp.Error.Code, resp.Error.Message))
		}
		return resp.Result, nil
	case <-timer.C:
		return nil, s.fail(fmt.Errorf("%s: no answer in %v", method, replyTimeout))
	}
}

// fail adds the first line of the server's stderr to err.
func (s *server) fail(err error) error {
	if msg, _, _ := strings.Cut(strings.TrimSpace(s.stderr.String()), "\n"); msg != "" {
		return fmt.Errorf("hook serve: %w; stderr: %s", err, msg)
	}
	return fmt.Errorf("hook serve: %w", err)
}

// runs returns a probe's run: requests `run` calls of before_tool_call,
// one at a time; its time is per request. Every answer must list k hooks
// and no failure, so that a fast answer is a real one.
func (s *server) runs(requests, k int) func() (time.Duration, error) {
	params := []byte(`{"event":"before_tool_call","payload":` + payload + `}`)
	return func() (time.Duration, error) {
		start := time.Now()
		for range requests {
			res, err := s.call("run", params)
			if err != nil {
				return 0, err
			}
			var out struct {
				Hooks []struct {
					Name   string `json:"name"`
					Status string `json:"status"`
					Error  string `json:"error"`
				} `json:"hooks"`
			}
			if err := json.Unmarshal(res, &out); err != nil {
				return 0, fmt.Errorf("hook serve: run: result: %v", err)
			}
			if len(out.Hooks) != k {
				return 0, fmt.Errorf("hook serve: run: %d hooks ran, want %d: %s", len(out.Hooks), k, res)
			}
			for _, h := range out.Hooks {
				if h.Status != "ok" && h.Status != "no_action" {
					return 0, fmt.Errorf("hook serve: run: hook %s: %s %s", h.Name, h.Status, h.Error)
				}
			}
		}
		return time.Since(start) / time.Duration(requests), nil
	}
}

// rss is the server's resident memory now, in KiB (Linux only).
func (s *server) rss() (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", s.cmd.Process.Pid)
}

// close asks the server to shut down and closes its stdin; one still
// running 5 s later is killed, so no run leaves a server behind.
func (s *server) close() {
	if s == nil {
		return
	}
	s.id++
	fmt.Fprintf(s.stdin, `{"jsonrpc":"2.0","id":%d,"method":"shutdown"}`+"\n", s.id)
	s.stdin.Close()
	done := make(chan struct{})
	go func() {
		for range s.lines {
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
	}
	s.cmd.Wait()
}

// tail keeps the last 4 KiB written to it: a server's stderr, for errors.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 4096 {
		t.buf = t.buf[len(t.buf)-4096:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
