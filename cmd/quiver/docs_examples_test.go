package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The examples of docs/hooks.md are real files under docs/examples, run
// here as a reader would run them: the persistent hooks installed as
// standalone hooks, one-shot and under hook serve, and the serve clients
// against a real quiver hook serve.

const docsExamples = "../../docs/examples"

// docsHooks are the example persistent hooks and the interpreter each needs.
var docsHooks = []struct{ file, interpreter string }{
	{"persistent-guard.sh", "bash"},
	{"persistent-guard.py", "python3"},
}

// TestDocsExamplesInHooksMD keeps docs/hooks.md and docs/examples in step:
// every example file appears there verbatim, in a fenced block.
func TestDocsExamplesInHooksMD(t *testing.T) {
	t.Parallel() // its own project, home and git server
	md, err := os.ReadFile("../../docs/hooks.md")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(docsExamples, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples in %s: %v", docsExamples, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// The block's opening fence line, the file, the closing fence.
		if !bytes.Contains(md, append(append([]byte("\n"), data...), "```\n"...)) {
			t.Errorf("docs/hooks.md does not show %s verbatim in a fenced block; copy the file in again", filepath.Base(f))
		}
	}
}

// docsHarness is a project and a home with no hooks and a `quiver` on
// PATH (the test binary, through a wrapper); it needs no git server.
func docsHarness(t *testing.T) (h *harness, quiver string) {
	t.Helper()
	bin := t.TempDir()
	quiver = filepath.Join(bin, "quiver")
	wrapper := fmt.Sprintf("#!/bin/sh\n%s=1 exec %q \"$@\"\n", asQuiver, os.Args[0])
	if err := os.WriteFile(quiver, []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	h = &harness{t: t, project: t.TempDir(), home: t.TempDir()}
	h.env = append(os.Environ(), asQuiver+"=1", "QUIVER_HOME="+h.home, "HOME="+h.home,
		"QUIVER_PROJECT_DIR="+h.project, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"QUIVER_BIN=", "QUIVER_GIT_TOKEN=", "GITHUB_TOKEN=", "QUIVER_AUDIT_LOG=", "QUIVER_NO_HOOKS=",
		"QUIVER_HOOK_TIMEOUT=", "QUIVER_FAIL_CLOSED=")
	return h, quiver
}

// installDocsHook copies an example into $QUIVER_HOME/hooks/name (the
// global scope, which needs no trust) and returns its path.
func installDocsHook(t *testing.T, h *harness, file, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(docsExamples, file))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(h.home, "hooks", name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// needs skips the test when a program it runs is missing.
func needs(t *testing.T, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed", p)
		}
	}
}

// verdict is what an agent acts on in a before_tool_call result.
type verdict struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	By       string `json:"by"`
	Status   string `json:"status"` // the one hook's
}

func verdictOf(t *testing.T, raw []byte) verdict {
	t.Helper()
	var r struct {
		Decision  string `json:"decision"`
		Reason    string `json:"reason"`
		BlockedBy string `json:"blocked_by"`
		AskedBy   string `json:"asked_by"`
		Hooks     []struct {
			Status string `json:"status"`
			Error  string `json:"error"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || len(r.Hooks) != 1 {
		t.Fatalf("not a result with one hook: %s", raw)
	}
	if r.Hooks[0].Error != "" {
		t.Errorf("the hook failed: %s", raw)
	}
	return verdict{r.Decision, r.Reason, r.BlockedBy + r.AskedBy, r.Hooks[0].Status}
}

// TestDocsPersistentHooks installs each example persistent hook and
// checks that it decides the same one-shot (hook run) and persistent
// (hook serve, through its serve mode).
func TestDocsPersistentHooks(t *testing.T) {
	t.Parallel() // its own project, home and git server
	block := verdict{"block", "rm -rf is not allowed", "guard", "blocked"}
	allow := verdict{"allow", "", "", "no_action"}
	ask := verdict{"ask", "a force-push rewrites shared history", "guard", "asked"}
	cases := []struct {
		command string
		want    map[string]verdict // by example file
	}{
		{"ls -la", map[string]verdict{"persistent-guard.sh": allow, "persistent-guard.py": allow}},
		{"rm -rf /", map[string]verdict{"persistent-guard.sh": block, "persistent-guard.py": block}},
		{"cd build && rm  -fr * # tidy", map[string]verdict{"persistent-guard.sh": block, "persistent-guard.py": block}},
		{"git push --force origin main", map[string]verdict{"persistent-guard.sh": allow, "persistent-guard.py": ask}},
		{`echo "rm -rf is only text"`, map[string]verdict{"persistent-guard.sh": allow, "persistent-guard.py": block}},
	}
	payload := func(command string) map[string]any {
		return map[string]any{"conv_id": "docs", "tool_name": "bash", "tool_input": map[string]any{"command": command}}
	}
	for _, ex := range docsHooks {
		t.Run(ex.file, func(t *testing.T) {
			needs(t, ex.interpreter)
			h, _ := docsHarness(t)
			path := installDocsHook(t, h, ex.file, "guard")

			var list []struct {
				Name       string `json:"name"`
				Status     string `json:"status"`
				Persistent bool   `json:"persistent"`
			}
			if err := json.Unmarshal([]byte(h.must("hook", "list", "--json").stdout), &list); err != nil ||
				len(list) != 1 || list[0].Status != "active" || !list[0].Persistent {
				t.Fatalf("hook list: %+v, %v", list, err)
			}

			for _, c := range cases {
				in, _ := json.Marshal(payload(c.command))
				r := h.run(string(in), "hook", "run", "before_tool_call")
				if r.code != 0 {
					t.Fatalf("%s", r)
				}
				if got := verdictOf(t, []byte(r.stdout)); got != c.want[ex.file] {
					t.Errorf("one-shot %q: %+v, want %+v", c.command, got, c.want[ex.file])
				}
			}

			// Pipelined, as an agent may send them: all requests first.
			var reqs []string
			for i, c := range cases {
				req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "run",
					"params": map[string]any{"event": "before_tool_call", "payload": payload(c.command), "timeout": "30s"}})
				reqs = append(reqs, string(req))
			}
			results := docsServe(t, h, reqs, func() {
				if runtime.GOOS == "linux" && !serving(t, path) {
					t.Errorf("no `%s serve` process while hook serve runs: the answers did not come from serve mode", path)
				}
			})
			for i, c := range cases {
				if got := verdictOf(t, results[i+1]); got != c.want[ex.file] {
					t.Errorf("serve %q: %+v, want %+v", c.command, got, c.want[ex.file])
				}
			}
		})
	}
}

// docsServe sends requests (ids 1 to n) to one quiver hook serve, reads
// the n responses in whatever order they come, calls meanwhile while the
// server still runs, then closes stdin and waits for a clean exit. It
// returns the results by id.
func docsServe(t *testing.T, h *harness, requests []string, meanwhile func()) map[int]json.RawMessage {
	t.Helper()
	c := startServe(t, h)
	for _, r := range requests {
		c.send(r)
	}
	results := map[int]json.RawMessage{}
	for id := 1; id <= len(requests); id++ {
		r := c.await(id)
		if r.Error != nil || r.Result == nil {
			t.Fatalf("hook serve answered %s", r.raw)
		}
		results[id] = r.Result
	}
	meanwhile()
	c.end()
	return results
}

// serving reports whether a process runs `path serve` (through its
// interpreter or not), from /proc.
func serving(t *testing.T, path string) bool {
	t.Helper()
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range cmdlines {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // gone meanwhile
		}
		args := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
		if i := slices.Index(args, path); i >= 0 && i+1 < len(args) && args[i+1] == "serve" {
			return true
		}
	}
	return false
}

// TestDocsServeClients runs the Python and Node.js clients of docs/hooks.md
// against a real quiver hook serve with the example persistent hooks
// installed, and checks what they print.
func TestDocsServeClients(t *testing.T) {
	t.Parallel() // its own project, home and git server
	clients := []struct {
		file, interpreter string
		viaEnv            bool // find quiver through QUIVER_BIN, not PATH
	}{
		{"serve-client.py", "python3", false},
		{"serve-client.mjs", "node", true},
	}
	for _, cl := range clients {
		t.Run(cl.file, func(t *testing.T) {
			needs(t, cl.interpreter)
			h, quiver := docsHarness(t)
			// Whichever example hooks can run here; the Python one decides
			// first (guard-py sorts before guard-sh) and also asks.
			var names []string
			for _, ex := range docsHooks {
				if _, err := exec.LookPath(ex.interpreter); err == nil {
					name := "guard-" + strings.TrimPrefix(filepath.Ext(ex.file), ".")
					installDocsHook(t, h, ex.file, name)
					names = append(names, name)
				}
			}
			slices.Sort(names)
			withPy := slices.Contains(names, "guard-py")
			rmBy, push := names[0], "allow"
			if withPy {
				push = "ask: a force-push rewrites shared history (by guard-py)"
			}
			// A one-shot hook too: hook list leaves "persistent" out for it.
			writeHooks(t, filepath.Join(h.home, "hooks"), map[string]string{"zz-oneshot": bashHook("after_tool_call", "true")})
			var listed []string
			for _, n := range names {
				listed = append(listed, n+" (persistent)")
			}
			listed = append(listed, "zz-oneshot")
			want := []string{
				"ls -la: allow",
				"rm -rf build: block: rm -rf is not allowed (by " + rmBy + ")",
				"git push --force origin main: " + push,
				`error -32602: invalid params: unknown event: "before_tool_cal" is not a quiver event`, // a prefix
				"hooks: " + strings.Join(listed, ", "),
				"quiver hook serve exited with 0",
			}

			script, err := filepath.Abs(filepath.Join(docsExamples, cl.file))
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(cl.interpreter, script)
			cmd.Dir, cmd.Env = h.project, h.env
			if cl.viaEnv {
				// Off PATH, so only QUIVER_BIN can find it.
				cmd.Env = append(cmd.Env, "QUIVER_BIN="+quiver, "PATH="+os.Getenv("PATH"))
			}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", cl.file, err, stdout.String(), stderr.String())
			}
			got := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
			ok := len(got) == len(want)
			for i := 0; ok && i < len(want); i++ {
				ok = got[i] == want[i] || i == 3 && strings.HasPrefix(got[i], want[i])
			}
			if !ok {
				t.Errorf("%s printed:\n%s\nwant:\n%s\nstderr:\n%s", cl.file, stdout.String(), strings.Join(want, "\n"), stderr.String())
			}
		})
	}
}
