package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/gitserver"
	"github.com/quiver-cli/quiver/internal/testkit"
)

// TestRealNewcomerFivePlugins is issue 44's newcomer walk: five official
// plugins of different kinds (hookify: hooks, a skill, commands and a
// subagent; commit-commands: commands with shell lines; code-simplifier:
// a subagent; gopls-lsp: an LSP server; playwright: an MCP server) from
// the claude-plugins-official snapshot (QUIVER_TEST_SNAPSHOTS), wired into
// Claude Code, Codex and Gemini CLI with one agent install, each agent
// then driven for real against the scripted model. What each printed is
// logged (go test -v); what each sent its model is checked.
func TestRealNewcomerFivePlugins(t *testing.T) {
	snaps := os.Getenv("QUIVER_TEST_SNAPSHOTS")
	if snaps == "" {
		t.Skip("QUIVER_TEST_SNAPSHOTS is not set")
	}
	snapshot := filepath.Join(snaps, "anthropics+claude-plugins-official", "repo")
	if _, err := os.Stat(snapshot); err != nil {
		t.Skipf("snapshot %s is missing", snapshot)
	}
	claude, codex, gemini := os.Getenv("QUIVER_TEST_CLAUDE"), os.Getenv("QUIVER_TEST_CODEX"), os.Getenv("QUIVER_TEST_GEMINI")
	if claude == "" || codex == "" || gemini == "" {
		t.Skip("needs QUIVER_TEST_CLAUDE, QUIVER_TEST_CODEX and QUIVER_TEST_GEMINI")
	}
	srv := gitserver.New(t, gitserver.Options{})
	if _, err := srv.Commit("anthropics/claude-plugins-official", "main", testkit.ExportHEAD(t, snapshot), "snapshot"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, srv)
	// A project in git, as the commands' shell lines expect.
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=n", "-c", "user.email=n@x", "commit", "-q", "--allow-empty", "-m", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = h.project
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	step := func(args ...string) {
		t.Helper()
		r := h.must(args...)
		t.Logf("$ quiver %s\n%s%s", strings.Join(args, " "), r.stdout, r.stderr)
	}
	step("marketplace", "add", "anthropics/claude-plugins-official")
	step("plugin", "add", "hookify@claude-plugins-official", "commit-commands@claude-plugins-official",
		"code-simplifier@claude-plugins-official", "gopls-lsp@claude-plugins-official", "playwright@claude-plugins-official")
	step("plugin", "list")
	step("trust")
	// Codex starts servers with a cleared environment: the quiver it runs
	// is a wrapper that makes this test binary quiver.
	quiver := filepath.Join(t.TempDir(), "quiver")
	if err := os.WriteFile(quiver, fmt.Appendf(nil, "#!/bin/sh\n%s=1 exec %q \"$@\"\n", asQuiver, os.Args[0]), 0o755); err != nil {
		t.Fatal(err)
	}
	step("agent", "install", "claude", "codex", "gemini", "--command", quiver)
	step("agent", "list")
	step("doctor")

	t.Run("claude", func(t *testing.T) {
		model := startModel(t)
		out := runAgent(t, h, agentEnv(h, claudeVars(model.URL)...), claude, "-p", "/commit-commands:commit", "--output-format", "stream-json", "--verbose")
		sent := model.All()
		t.Logf("claude sent its model %d bytes", len(sent))
		for what, want := range map[string]string{
			"hookify's skill":                     "writing-hookify-rules",
			"code-simplifier's subagent":          "code-simplifier:code-simplifier",
			"the commit command's git status run": "On branch",
		} {
			if !strings.Contains(sent, want) {
				t.Errorf("Claude did not send its model %s (%q)\n%s", what, want, out)
			}
		}
	})
	t.Run("gemini", func(t *testing.T) {
		model := startModel(t)
		writeFile(t, filepath.Join(h.home, ".gemini", "settings.json"), `{"security": {"auth": {"selectedType": "gemini-api-key"}}}`)
		env := agentEnv(h, "GEMINI_API_KEY=x", "GOOGLE_GEMINI_BASE_URL="+model.URL, "GEMINI_CLI_TRUST_WORKSPACE=true")
		out := runAgent(t, h, env, gemini, "-p", "/commit", "--output-format", "stream-json", "--yolo", "-m", "gemini-2.5-flash")
		sent := model.All()
		t.Logf("gemini sent its model %d bytes", len(sent))
		for what, want := range map[string]string{
			"hookify's skill":                        "writing-hookify-rules",
			"the commit command's !{git status} run": "On branch",
		} {
			if !strings.Contains(sent, want) {
				t.Errorf("Gemini did not send its model %s (%q)\n%s", what, want, out)
			}
		}
	})
	t.Run("codex", func(t *testing.T) {
		model := startModel(t)
		config := fmt.Sprintf("model_provider = \"mock\"\nmodel = \"gpt-5-codex\"\n\n[model_providers.mock]\nname = \"mock\"\nbase_url = %q\nwire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 0\n\n[projects.%q]\ntrust_level = \"trusted\"\n", model.URL+"/v1", h.project)
		writeFile(t, filepath.Join(h.home, ".codex", "config.toml"), config)
		env := agentEnv(h, "CODEX_HOME="+filepath.Join(h.home, ".codex"), "MOCK_API_KEY=x")
		out := runAgent(t, h, env, codex, "exec", "--json", "--skip-git-repo-check", "-s", "workspace-write", "say hello")
		sent := model.All()
		t.Logf("codex sent its model %d bytes", len(sent))
		if !strings.Contains(sent, "writing-hookify-rules") {
			t.Errorf("Codex did not send its model hookify's skill\n%s", out)
		}
	})
}
