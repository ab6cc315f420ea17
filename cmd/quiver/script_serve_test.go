package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// The serve command of the txtar stories: one `quiver hook serve` per
// script, driven request by request, so a story can change files between
// two requests as an agent's session would see them change.
//
//	serve start          start quiver hook serve in the current folder
//	serve run EVENT JSON send a run request; its result goes to stdout
//	serve stop           close stdin and wait for the server to exit

const serveKey = "serve"

// scriptServe is the script's running server, if any.
type scriptServe struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines *bufio.Reader
	id    int
}

func cmdServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: serve start | serve run EVENT JSON | serve stop")
	}
	holder := ts.Value(serveKey).(*scriptServe)
	switch args[0] {
	case "start":
		if holder.cmd != nil {
			ts.Fatalf("serve is already running")
		}
		cmd := exec.Command(os.Args[0], "hook", "serve")
		cmd.Dir = ts.MkAbs(".")
		cmd.Env = scriptEnv(ts)
		stdin, err := cmd.StdinPipe()
		ts.Check(err)
		stdout, err := cmd.StdoutPipe()
		ts.Check(err)
		cmd.Stderr = os.Stderr
		ts.Check(cmd.Start())
		holder.cmd, holder.stdin, holder.lines = cmd, stdin, bufio.NewReaderSize(stdout, 1<<20)
		ts.Defer(func() {
			if holder.cmd != nil {
				holder.cmd.Process.Kill()
				holder.cmd.Wait()
			}
		})
	case "run":
		if len(args) != 3 || holder.cmd == nil {
			ts.Fatalf("usage: serve run EVENT JSON, after serve start")
		}
		holder.id++
		req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": holder.id, "method": "run",
			"params": map[string]any{"event": args[1], "payload": json.RawMessage(args[2])}})
		ts.Check(err)
		_, err = holder.stdin.Write(append(req, '\n'))
		ts.Check(err)
		// One request at a time: the next line is its answer. The
		// server's own timeouts bound the wait.
		line, err := holder.lines.ReadBytes('\n')
		ts.Check(err)
		var reply struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		ts.Check(json.Unmarshal(line, &reply))
		if reply.ID != holder.id || reply.Error != nil {
			ts.Fatalf("serve answered %s", line)
		}
		fmt.Fprintf(ts.Stdout(), "%s\n", reply.Result)
	case "stop":
		if holder.cmd == nil {
			ts.Fatalf("serve is not running")
		}
		holder.stdin.Close()
		done := make(chan error, 1)
		go func() { done <- holder.cmd.Wait() }()
		select {
		case err := <-done:
			ts.Check(err)
		case <-time.After(30 * time.Second):
			ts.Fatalf("hook serve did not exit after its stdin closed")
		}
		holder.cmd = nil
	default:
		ts.Fatalf("usage: serve start | serve run EVENT JSON | serve stop")
	}
}

// scriptEnv is the script's environment for a process the script starts
// itself: the test binary runs as quiver.
func scriptEnv(ts *testscript.TestScript) []string {
	env := []string{asQuiver + "=1"}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "QUIVER_") || k == "HOME" || k == "PATH" || k == "TMPDIR" {
			continue
		}
		env = append(env, kv)
	}
	for _, k := range []string{"HOME", "PATH", "TMPDIR", "QUIVER_HOME", "QUIVER_GIT_BASE", "QUIVER_PROJECT_DIR", "QUIVER_TRUST_ALL", "QUIVER_FAIL_CLOSED", "QUIVER_HOOK_TIMEOUT"} {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}
