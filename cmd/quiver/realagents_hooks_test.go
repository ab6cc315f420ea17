package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/gitserver"
	"github.com/quiver-cli/quiver/internal/modelserver"
)

// What the real agents do with quiver's hook answers (docs/agents.md),
// each headless against the scripted model, whose tool call a hook of
// the user's then blocks, asks about, rewrites or adds context to. The
// model server keeps what each agent sent its model next.

// userHook writes an executable hook of the user's own scope (trusted,
// no plugin needed) that answers event with the shell case body.
func userHook(t *testing.T, h *harness, name, event, cases string) {
	t.Helper()
	p := filepath.Join(h.home, "hooks", name)
	writeFile(t, p, "#!/bin/sh\n[ \"$1\" = hook ] && { echo "+event+"; exit 0; }\nin=$(cat)\ncase \"$in\" in\n"+cases+"\nesac\nexit 0\n")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

// sentSince is what the agent sent its model from request n on.
func sentSince(model *modelserver.Server, n int) string {
	var b strings.Builder
	for _, r := range model.Requests()[n:] {
		b.Write(r.Body)
		b.WriteByte('\n')
	}
	return b.String()
}

// geminiHarness is a project with Gemini CLI wired (this test binary as
// its quiver) and the user's settings Gemini needs to run headless
// against the scripted model.
func geminiHarness(t *testing.T, allowRewrites bool) *harness {
	h := newHarness(t, gitserver.New(t, gitserver.Options{}))
	// With GOOGLE_GEMINI_BASE_URL set, Gemini 0.61 takes the auth type
	// "gateway", which -p refuses unless the user's settings choose the
	// API key.
	writeFile(t, filepath.Join(h.home, ".gemini", "settings.json"), `{"security": {"auth": {"selectedType": "gemini-api-key"}}}`)
	args := []string{"agent", "install", "gemini", "--command", os.Args[0]}
	if allowRewrites {
		args = append(args, "--allow-rewrites")
	}
	h.must(args...)
	return h
}

func geminiEnv(h *harness, model *modelserver.Server, extra ...string) []string {
	return agentEnv(h, append([]string{"GEMINI_API_KEY=x", "GOOGLE_GEMINI_BASE_URL=" + model.URL, "GEMINI_CLI_TRUST_WORKSPACE=true"}, extra...)...)
}

// geminiArgs runs gemini -p with every tool allowed (--yolo: without it
// -p offers its model no shell tool at all).
var geminiArgs = []string{"-p", "run the probe", "--output-format", "stream-json", "--yolo", "-m", "gemini-2.5-flash"}

// TestRealGeminiHookContext: Gemini CLI 0.61 gives its model a hook's
// additionalContext after a tool (appended to the result), and never
// from BeforeTool; there, what reaches the model is a deny's reason, so
// quiver carries a blocking hook set's context in that reason.
func TestRealGeminiHookContext(t *testing.T) {
	gemini := realAgent(t, "QUIVER_TEST_GEMINI")
	h := geminiHarness(t, false)
	userHook(t, h, "guard", "before_tool_call", `*QUIVER-PROBE-BLOCK*) echo '{"blocked": true, "reason": "`+blockedReason+`", "context": "BEFORE-TOOL-CONTEXT"}' ;;
*QUIVER-PROBE-PASS*) echo '{"context": "BEFORE-TOOL-CONTEXT"}' ;;`)
	userHook(t, h, "lint", "after_tool_call", `*) echo '{"context": "AFTER-TOOL-CONTEXT"}' ;;`)
	model, err := modelserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	env := geminiEnv(h, model)

	model.Tool = &modelserver.ToolUse{Name: "run_shell_command", Input: map[string]any{"command": "echo QUIVER-PROBE-BLOCK"}}
	out := runAgent(t, h, env, gemini, geminiArgs...)
	sent := sentSince(model, 0)
	for what, want := range map[string]string{"the block's reason": "Tool execution blocked: " + blockedReason, "the blocking hooks' context": "BEFORE-TOOL-CONTEXT"} {
		if !strings.Contains(sent, want) {
			t.Errorf("Gemini did not send its model %s (%q)\nagent output:\n%s", what, want, out)
		}
	}

	n := len(model.Requests())
	model.Tool = &modelserver.ToolUse{Name: "run_shell_command", Input: map[string]any{"command": "echo QUIVER-PROBE-PASS"}}
	out = runAgent(t, h, env, gemini, geminiArgs...)
	sent = sentSince(model, n)
	if !strings.Contains(sent, "AFTER-TOOL-CONTEXT") {
		t.Errorf("Gemini did not append AfterTool's additionalContext to the tool's result\nagent output:\n%s", out)
	}
	// The fact docs/agents.md states: should a later Gemini read it, this
	// fails, and the docs (and quiver's answer) change with it.
	if strings.Contains(sent, "BEFORE-TOOL-CONTEXT") {
		t.Errorf("Gemini now reads additionalContext on BeforeTool: update docs/agents.md and the gemini format\nagent output:\n%s", out)
	}
}

// headlessWait is how long a headless agent that has shown its tool call
// gets to go on before a test takes it for waiting forever: the runs that
// go on send their model the tool's result within about 2 s here (10 s
// on a machine loaded tenfold).
var headlessWait = 30 * time.Second

// agentRun is an agent started in the background, its stdout read line
// by line.
type agentRun struct {
	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	out  strings.Builder
	seen chan string
}

func startAgent(t *testing.T, h *harness, env []string, name string, args ...string) *agentRun {
	t.Helper()
	// A context, so that ownGroup's Cancel (the whole group) is allowed.
	r := &agentRun{cmd: exec.CommandContext(t.Context(), name, args...), done: make(chan struct{}), seen: make(chan string, 1024)}
	r.cmd.Dir, r.cmd.Env = h.project, env
	ownGroup(r.cmd)
	stdout, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r.cmd.Stderr = r.cmd.Stdout
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			r.mu.Lock()
			r.out.WriteString(sc.Text() + "\n")
			r.mu.Unlock()
			select {
			case r.seen <- sc.Text():
			default:
			}
		}
		io.Copy(io.Discard, stdout)
		r.cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() { r.stop() })
	return r
}

func (r *agentRun) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String()
}

// waitLine waits up to d for a line of output that contains s.
func (r *agentRun) waitLine(s string, d time.Duration) bool {
	timeout := time.After(d)
	for {
		select {
		case line := <-r.seen:
			if strings.Contains(line, s) {
				return true
			}
		case <-r.done:
			return false
		case <-timeout:
			return false
		}
	}
}

// exits reports whether the agent ends within d.
func (r *agentRun) exits(d time.Duration) bool {
	select {
	case <-r.done:
		return true
	case <-time.After(d):
		return false
	}
}

func (r *agentRun) stop() {
	syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
	<-r.done
}

// TestRealGeminiHeadlessWaitsOnAsk: gemini -p (0.61) waits forever on
// the confirmation it forces for a BeforeTool "ask", which quiver sends
// for a hook's ask and, without --allow-rewrites, for a rewrite; with
// --allow-rewrites the rewrite runs, and replaces the call's arguments
// (a key the hook left out is gone: Gemini does not merge).
func TestRealGeminiHeadlessWaitsOnAsk(t *testing.T) {
	gemini := realAgent(t, "QUIVER_TEST_GEMINI")
	cases := `*QUIVER-PROBE-ASK*) echo '{"ask": true, "reason": "ASK-REASON"}' ;;
*QUIVER-PROBE-REWRITE*) echo '{"input": {"command": "echo REWRITTEN-RAN"}}' ;;`
	for _, c := range []struct{ name, command string }{{"ask", "echo QUIVER-PROBE-ASK"}, {"rewrite", "echo QUIVER-PROBE-REWRITE"}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // both mostly wait
			h := geminiHarness(t, false)
			userHook(t, h, "guard", "before_tool_call", cases)
			model, err := modelserver.Start()
			if err != nil {
				t.Fatal(err)
			}
			defer model.Close()
			model.Tool = &modelserver.ToolUse{Name: "run_shell_command", Input: map[string]any{"command": c.command}}
			audit := filepath.Join(t.TempDir(), "audit.jsonl")
			run := startAgent(t, h, geminiEnv(h, model, "QUIVER_AUDIT_LOG="+audit), gemini, geminiArgs...)
			if !run.waitLine(`"type":"tool_use"`, 4*time.Minute) {
				t.Fatalf("gemini never showed its tool call\nagent output:\n%s", run.output())
			}
			if run.exits(headlessWait) {
				t.Fatalf("gemini -p went on (a later Gemini that does not wait: update docs/agents.md and agent install's warning)\nagent output:\n%s", run.output())
			}
			log, _ := os.ReadFile(audit)
			if !strings.Contains(string(log), `"status":"asked"`) && !strings.Contains(string(log), `"changed":true`) {
				t.Errorf("the guard did not answer (audit log %q): the wait is not the confirmation's", log)
			}
			if got := len(model.Requests()); got != 1 {
				t.Errorf("gemini sent its model %d requests; waiting on the confirmation, it sends only the first", got)
			}
		})
	}
	t.Run("rewrite, --allow-rewrites", func(t *testing.T) {
		h := geminiHarness(t, true)
		userHook(t, h, "guard", "before_tool_call", cases)
		seen := filepath.Join(h.home, "after-input.json")
		userHook(t, h, "record", "after_tool_call", `*) printf '%s' "$in" > '`+seen+`' ;;`)
		model, err := modelserver.Start()
		if err != nil {
			t.Fatal(err)
		}
		defer model.Close()
		model.Tool = &modelserver.ToolUse{Name: "run_shell_command", Input: map[string]any{"command": "echo QUIVER-PROBE-REWRITE", "description": "KEY-THE-HOOK-LEFT-OUT"}}
		out := runAgent(t, h, geminiEnv(h, model), gemini, geminiArgs...)
		if sent := sentSince(model, 0); !strings.Contains(sent, "Output: REWRITTEN-RAN") {
			t.Errorf("the rewritten call did not run\nagent output:\n%s", out)
		}
		after, _ := os.ReadFile(seen)
		if !strings.Contains(string(after), `"tool_input":{"command":"echo REWRITTEN-RAN"}`) {
			t.Errorf("AfterTool saw %s; want the hook's input alone (Gemini 0.61 replaces the arguments)", after)
		}
	})
}

// TestRealClaudeAllowRewritesApproves: with --allow-rewrites, Claude Code
// (2.1.328) runs a rewritten call its own rules would have asked about
// (here refused, headless): quiver's "allow" is an approval, not "as
// Claude's rules would". Without it, quiver asks, and -p refuses.
func TestRealClaudeAllowRewritesApproves(t *testing.T) {
	claude := realAgent(t, "QUIVER_TEST_CLAUDE")
	h := newHarness(t, gitserver.New(t, gitserver.Options{}))
	marker := filepath.Join(h.project, "REWRITTEN-RAN")
	userHook(t, h, "guard", "before_tool_call", `*QUIVER-PROBE-REWRITE*) echo '{"input": {"command": "touch `+marker+`", "description": "rewritten"}}' ;;`)
	model, err := modelserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	env := agentEnv(h, claudeVars(model.URL)...)
	args := []string{"-p", "run the probe", "--output-format", "stream-json", "--verbose"}
	claudeRuns := func(command string) (string, string) {
		n := len(model.Requests())
		model.Tool = &modelserver.ToolUse{Name: "Bash", Input: map[string]any{"command": command, "description": "probe"}}
		out := runAgent(t, h, env, claude, args...)
		return sentSince(model, n), out
	}

	// Claude's own rules: touching a file asks, which -p refuses.
	h.must("agent", "install", "claude", "--command", os.Args[0])
	if sent, out := claudeRuns("touch " + marker); !strings.Contains(sent, "needs approval") {
		t.Fatalf("Claude ran `touch` without asking: the test shows nothing\nagent output:\n%s", out)
	}
	// A rewrite: quiver asks, and -p refuses.
	if sent, out := claudeRuns("echo QUIVER-PROBE-REWRITE"); !strings.Contains(sent, "quiver hooks rewrote this tool call") {
		t.Errorf("Claude did not refuse the rewritten call quiver asked about\nagent output:\n%s", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the rewritten call ran without --allow-rewrites")
	}
	// --allow-rewrites: quiver answers "allow", and Claude runs the
	// rewritten call without asking.
	h.must("agent", "install", "claude", "--command", os.Args[0], "--allow-rewrites")
	_, out := claudeRuns("echo QUIVER-PROBE-REWRITE")
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("with --allow-rewrites Claude did not run the rewritten call (%v): docs/agents.md says it approves it\nagent output:\n%s", err, out)
	}
}

// TestRealCodexHooksWaitForTrust: Codex (0.169) runs quiver's hooks only
// once the user has trusted them in its own review: codex exec skips
// them without a word (the guard's block never happens), and runs them
// with --dangerously-bypass-hook-trust, the one way around the review
// (there is no setting). agent install says so.
func TestRealCodexHooksWaitForTrust(t *testing.T) {
	codex := realAgent(t, "QUIVER_TEST_CODEX")
	h := newHarness(t, gitserver.New(t, gitserver.Options{}))
	userHook(t, h, "guard", "before_tool_call", `*QUIVER-PROBE-CALL*) echo '`+blockedReason+`' >&2; exit 2 ;;`)
	model, err := modelserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	model.Tool = &modelserver.ToolUse{Name: "exec_command", Input: map[string]any{"cmd": blockedCommand}}
	config := fmt.Sprintf("model_provider = \"mock\"\nmodel = \"gpt-5-codex\"\n\n[model_providers.mock]\nname = \"mock\"\nbase_url = %q\nwire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 0\n\n[projects.%q]\ntrust_level = \"trusted\"\n",
		model.URL+"/v1", h.project)
	writeFile(t, filepath.Join(h.home, ".codex", "config.toml"), config)
	quiver := filepath.Join(t.TempDir(), "quiver")
	writeFile(t, quiver, fmt.Sprintf("#!/bin/sh\n%s=1 exec %q \"$@\"\n", asQuiver, os.Args[0]))
	os.Chmod(quiver, 0o755)
	r := h.must("agent", "install", "codex", "--command", quiver)
	if !strings.Contains(r.stderr, `choose "Trust all and continue"`) {
		t.Errorf("agent install codex does not say how to trust the hooks:\n%s", r.stderr)
	}
	env := agentEnv(h, "CODEX_HOME="+filepath.Join(h.home, ".codex"), "MOCK_API_KEY=x")
	codexExec := func(extra ...string) (string, string) {
		n := len(model.Requests())
		out := runAgent(t, h, env, codex, append(append([]string{"exec", "--json", "--skip-git-repo-check", "-s", "workspace-write"}, extra...), "run the probe")...)
		return sentSince(model, n), out
	}
	// The call's own output, as Codex gives it to its model.
	if sent, out := codexExec(); strings.Contains(sent, blockedReason) || !strings.Contains(sent, `Output:\nQUIVER-PROBE-CALL`) {
		t.Errorf("untrusted, Codex ran quiver's hook, or not the call\nagent output:\n%s", out)
	}
	if sent, out := codexExec("--dangerously-bypass-hook-trust"); !strings.Contains(sent, "Command blocked by PreToolUse hook: "+blockedReason) {
		t.Errorf("with the review bypassed, Codex did not run quiver's hook\nagent output:\n%s", out)
	}
	if data, _ := os.ReadFile(filepath.Join(h.home, ".codex", "config.toml")); string(data) != config {
		t.Errorf("the user's config.toml changed (quiver writes no trust of Codex's):\n%s", data)
	}
}
