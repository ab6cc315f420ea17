package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/quiver-cli/quiver/internal/gitserver"
	"github.com/quiver-cli/quiver/internal/modelserver"
)

// TestRealClaudeDoesNotWaitForAsyncHandlers: a plugin's async
// SessionStart handler (as security-guidance's) that never finishes does
// not hold a headless Claude session through quiver: Claude runs it from
// the asynchronous entry quiver wired, in the background, while the
// ordinary entry's handler answers at once. Before SPEC §15 the session
// waited for the handler's whole timeout (here 600 s, past runAgent's
// deadline).
func TestRealClaudeDoesNotWaitForAsyncHandlers(t *testing.T) {
	claude := realAgent(t, "QUIVER_TEST_CLAUDE")
	dir := t.TempDir()
	state := t.TempDir()
	fifo := filepath.Join(state, "never")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	started, finished := filepath.Join(state, "started"), filepath.Join(state, "finished")
	writeFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "slow", "version": "1.0.0"}`)
	writeFile(t, filepath.Join(dir, "hooks", "hooks.json"), `{"hooks": {"SessionStart": [{"hooks": [
  {"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"SessionStart\", \"additionalContext\": \"QUICK-HANDLER-CONTEXT\"}}'"},
  {"type": "command", "async": true, "timeout": 600, "command": "touch `+started+`; read line < `+fifo+`; touch `+finished+`"}
]}]}}`)
	srv := gitserver.New(t, gitserver.Options{})
	if _, err := srv.Commit("acme/slow", "main", dir, "slow"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, srv)
	h.must("agent", "install", "claude", "--command", os.Args[0])
	h.must("plugin", "add", "acme/slow")
	settings, err := os.ReadFile(filepath.Join(h.project, ".claude", "settings.json"))
	if err != nil || !strings.Contains(string(settings), "--async-only session_start") {
		t.Fatalf("no asynchronous entry for SessionStart (%v):\n%s", err, settings)
	}
	model, err := modelserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	env := agentEnv(h, claudeVars(model.URL)...)
	// Whatever happens, the handler is let go at the end.
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.WriteString("go\n")
			f.Close()
		}
	})
	out := runAgent(t, h, env, claude, "-p", "hello", "--output-format", "stream-json", "--verbose")
	if !strings.Contains(model.All(), "QUICK-HANDLER-CONTEXT") {
		t.Errorf("the ordinary handler's context did not reach the model\nagent output:\n%s", out)
	}
	if _, err := os.Stat(started); err != nil {
		t.Errorf("Claude did not start the async handler (%v)\nagent output:\n%s", err, out)
	}
	if _, err := os.Stat(finished); err == nil {
		t.Errorf("the async handler finished, though nothing let it: the test proves nothing")
	}
}

// claudeVars are what a headless Claude needs to talk to the scripted
// model at url, offline.
func claudeVars(url string) []string {
	return []string{"ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=x",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "ENABLE_TOOL_SEARCH=false"}
}
