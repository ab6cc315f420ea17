package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/gitserver"
	"github.com/quiver-cli/quiver/internal/modelserver"
)

// TestRealClaudeRunsHandedOverPrompt: a plugin's prompt handler, which
// only Claude's model can run, is handed to Claude by agent install
// (SPEC §15), and Claude loads it from .claude/settings.json: at the
// UserPromptSubmit of a headless session, its prompt reaches the model.
// Two plugins with the same handler get a group each, which Claude runs
// once (it dedups a settings file's prompt handlers by prompt and `if`,
// whatever their group): docs/agents.md says so.
func TestRealClaudeRunsHandedOverPrompt(t *testing.T) {
	claude := realAgent(t, "QUIVER_TEST_CLAUDE")
	const marker = "NATIVE-PROMPT-HANDLER-7f3a"
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "judge", "version": "1.0.0"}`)
	writeFile(t, filepath.Join(dir, "hooks", "hooks.json"), `{"hooks": {"UserPromptSubmit": [{"hooks": [
  {"type": "prompt", "prompt": "`+marker+`: is this request fine? $ARGUMENTS", "timeout": 30}
]}]}}`)
	srv := gitserver.New(t, gitserver.Options{})
	if _, err := srv.Commit("acme/judge", "main", dir, "judge"); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Commit("acme/twin", "main", dir, "twin"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, srv)
	h.must("plugin", "add", "acme/judge")
	h.must("plugin", "add", "acme/twin")
	h.must("trust")
	h.must("agent", "install", "claude", "--command", os.Args[0])
	settings, err := os.ReadFile(filepath.Join(h.project, ".claude", "settings.json"))
	if err != nil || !strings.Contains(string(settings), `"type": "prompt"`) {
		t.Fatalf("the prompt handler was not handed to Claude (%v):\n%s", err, settings)
	}
	model, err := modelserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	model.Reply = `{"ok": true}` // the verdict a prompt handler asks for
	env := agentEnv(h, claudeVars(model.URL)...)
	out := runAgent(t, h, env, claude, "-p", "hello", "--output-format", "stream-json", "--verbose")
	n := 0
	for _, r := range model.Requests() {
		if strings.Contains(string(r.Body), marker) {
			n++
		}
	}
	if groups := strings.Count(string(settings), marker); groups != 2 {
		t.Errorf("%d groups for the two plugins' handlers, want 2:\n%s", groups, settings)
	}
	if n != 1 {
		t.Errorf("the handed-over prompt reached the model %d times, want once (Claude runs one of the two identical handlers)\nagent output:\n%s", n, out)
	}
}
