package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/gitserver"
	"github.com/quiver-cli/quiver/internal/modelserver"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// The real agents, when a test names them (QUIVER_TEST_CLAUDE,
// QUIVER_TEST_GEMINI, QUIVER_TEST_CODEX, QUIVER_TEST_COPILOT,
// QUIVER_TEST_OPENCODE: each agent's executable), run
// headless against a scripted model server on 127.0.0.1 that keeps what
// they send, so a test sees what quiver gave each agent: the MCP tool
// offered, the subagent known, the command's text (SPEC §16). Without
// them the tests are skipped.

// realAgent returns the agent's executable named by env, or skips.
func realAgent(t *testing.T, env string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		t.Skipf("%s is not set", env)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s: %v", env, err)
	}
	return p
}

// wholePlugin is a plugin with one of each part an agent can take: a
// stdio MCP server (this test binary, as a probe server), a subagent, a
// command that uses ${CLAUDE_PLUGIN_ROOT}, a skill and a hook.
func wholePlugin(t *testing.T) string {
	dir := t.TempDir()
	mcp, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"probe": map[string]any{"command": os.Args[0], "env": map[string]string{asMCP: "1"}},
	}})
	files := map[string]string{
		".claude-plugin/plugin.json": `{"name": "demo", "version": "1.0.0", "description": "Everything at once"}`,
		".mcp.json":                  string(mcp),
		"notes.txt":                  "notes\n",
		"commands/hello.md":          "---\ndescription: Say hello\n---\nRead ${CLAUDE_PLUGIN_ROOT}/notes.txt and greet $ARGUMENTS.\n",
		"agents/helper.md":           "---\nname: helper\ndescription: HELPER-AGENT-DESCRIPTION\n---\nYou help.\n",
		"skills/tidy/SKILL.md":       "---\nname: tidy\ndescription: TIDY-SKILL-DESCRIPTION\n---\nTidy up.\n",
	}
	for rel, body := range files {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(rel)), body)
	}
	return dir
}

// agentEnv is the environment of a real agent run: the harness's home,
// no credentials or settings of the machine's, and quiver's test binary
// acting as quiver for the hooks it calls.
func agentEnv(h *harness, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "ANTHROPIC_"), strings.HasPrefix(k, "CLAUDE"), strings.HasPrefix(k, "GEMINI_"),
			strings.HasPrefix(k, "GOOGLE_"), strings.HasPrefix(k, "OPENAI_"), strings.HasPrefix(k, "CODEX_"),
			strings.HasPrefix(k, "COPILOT_"), strings.HasPrefix(k, "OPENCODE_"), k == "GH_TOKEN", k == "GITHUB_TOKEN",
			strings.HasPrefix(k, "XDG_"):
			continue
		}
		env = append(env, kv)
	}
	// PWD too: OpenCode takes its project from it before its working
	// folder.
	env = append(env, "HOME="+h.home, "QUIVER_HOME="+h.home, asQuiver+"=1", "QUIVER_PROJECT_DIR=", "NO_COLOR=1", "PWD="+h.project)
	return append(env, extra...)
}

func runAgent(t *testing.T, h *harness, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = h.project, env
	ownGroup(cmd)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// ownGroup starts an agent in a process group of its own, killed whole
// when the command is cancelled: an agent's children (Gemini CLI
// relaunches itself in a second node process) never outlive the test,
// and a group-wide signal of the agent's never reaches the test.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
}

func TestRealClaudeGetsTheWholePlugin(t *testing.T) {
	claude := realAgent(t, "QUIVER_TEST_CLAUDE")
	srv := gitserver.New(t, gitserver.Options{})
	if _, err := srv.Commit("acme/demo", "main", wholePlugin(t), "demo"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, srv)
	h.must("agent", "install", "claude", "--command", os.Args[0])
	h.must("plugin", "add", "acme/demo")
	model, err := modelserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	env := agentEnv(h, claudeVars(model.URL)...)
	out := runAgent(t, h, env, claude, "-p", "/demo:hello world", "--output-format", "stream-json", "--verbose")
	sent := model.All()
	view := filepath.Join(plugins.ProjectMachineDir(h.home, h.project), "claude-plugins", "plugins", "demo")
	for what, want := range map[string]string{
		"the MCP server's tool":                 "mcp__plugin_demo_probe__" + modelserver.ProbeTool,
		"the subagent, namespaced":              "demo:helper",
		"the command's text, its path expanded": "Read " + view + "/notes.txt and greet world.",
		"the skill":                             "TIDY-SKILL-DESCRIPTION",
	} {
		if !strings.Contains(sent, want) {
			t.Errorf("Claude did not send its model %s (%q)\nagent output:\n%s", what, want, out)
		}
	}
}

func TestRealGeminiGetsTheWholePlugin(t *testing.T) {
	gemini := realAgent(t, "QUIVER_TEST_GEMINI")
	srv := gitserver.New(t, gitserver.Options{})
	if _, err := srv.Commit("acme/demo", "main", wholePlugin(t), "demo"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, srv)
	// With GOOGLE_GEMINI_BASE_URL set, Gemini 0.61 takes the auth type
	// "gateway", which -p then refuses ("Invalid auth method selected"),
	// unless the user's settings choose the API key.
	writeFile(t, filepath.Join(h.home, ".gemini", "settings.json"), `{"security": {"auth": {"selectedType": "gemini-api-key"}}}`)
	h.must("agent", "install", "gemini", "--command", os.Args[0])
	h.must("plugin", "add", "acme/demo")
	// Gemini loads a project's subagents only once the user has
	// acknowledged each (by name and content hash, in its own record,
	// which quiver never writes): the test plays the user.
	agent, err := os.ReadFile(filepath.Join(h.project, ".gemini", "agents", "helper.md"))
	if err != nil {
		t.Fatal(err)
	}
	ack, _ := json.Marshal(map[string]map[string]string{h.project: {"helper": fmt.Sprintf("%x", sha256.Sum256(agent))}})
	writeFile(t, filepath.Join(h.home, ".gemini", "acknowledgments", "agents.json"), string(ack))
	model, err := modelserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	env := agentEnv(h, "GEMINI_API_KEY=x", "GOOGLE_GEMINI_BASE_URL="+model.URL, "GEMINI_CLI_TRUST_WORKSPACE=true")
	out := runAgent(t, h, env, gemini, "-p", "/hello world", "--output-format", "stream-json", "--yolo", "-m", "gemini-2.5-flash")
	sent := model.All()
	for what, want := range map[string]string{
		"the MCP server's tool":                 modelserver.ProbeTool,
		"the subagent":                          "HELPER-AGENT-DESCRIPTION",
		"the command's text, its path expanded": "Read " + filepath.Join(h.project, ".quiver", "plugins", "acme@demo") + "/notes.txt and greet world.",
		"the skill":                             "TIDY-SKILL-DESCRIPTION",
	} {
		if !strings.Contains(sent, want) {
			t.Errorf("Gemini did not send its model %s (%q)\nagent output:\n%s", what, want, out)
		}
	}
}

// blockedCall is the tool call the scripted model makes in the tests of
// agents whose hooks quiver must see: a shell command a guard of the
// user's blocks, with a reason the test then finds in what the agent sent
// its model next.
const (
	blockedCommand = "echo QUIVER-PROBE-CALL"
	blockedReason  = "QUIVER-GUARD-SAID-NO"
)

// guardHook installs the user's guard (a native quiver hook of their own
// scope) that blocks blockedCommand.
func guardHook(t *testing.T, h *harness) {
	writeFile(t, filepath.Join(h.home, "hooks", "guard"), `#!/bin/sh
[ "$1" = hook ] && { echo before_tool_call; exit 0; }
grep -q 'QUIVER-PROBE-CALL' && { echo "`+blockedReason+`" >&2; exit 2; }
exit 0
`)
	os.Chmod(filepath.Join(h.home, "hooks", "guard"), 0o755)
}

// TestRealCopilotGetsTheWholePlugin drives GitHub Copilot CLI (1.0.102)
// headless against the scripted model (its BYOK provider, Anthropic's
// API, COPILOT_OFFLINE): quiver's hook file runs the user's guard, which
// blocks the model's shell call, and Copilot offers its model the
// project plugin's MCP tool (through quiver mcp exec), the subagent as a
// custom agent, and the skill. The project must be trusted in Copilot,
// whose gate quiver names in agent list and never opens: the test opens
// it as a user would, in Copilot's trusted_folders.
func TestRealCopilotGetsTheWholePlugin(t *testing.T) {
	copilot := realAgent(t, "QUIVER_TEST_COPILOT")
	srv := gitserver.New(t, gitserver.Options{})
	if _, err := srv.Commit("acme/demo", "main", wholePlugin(t), "demo"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, srv)
	guardHook(t, h)
	h.must("agent", "install", "copilot", "--command", os.Args[0])
	h.must("plugin", "add", "acme/demo")
	model, err := modelserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	model.Tool = &modelserver.ToolUse{Name: "bash", Input: map[string]any{"command": blockedCommand, "description": "probe"}}
	env := agentEnv(h, "COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL="+model.URL, "COPILOT_PROVIDER_TYPE=anthropic",
		"COPILOT_PROVIDER_API_KEY=x", "COPILOT_MODEL=claude-sonnet-4.6", "COPILOT_AUTO_UPDATE=false")
	if r := h.must("agent", "list"); !strings.Contains(r.stdout, "trust it for future sessions") {
		t.Errorf("agent list says nothing of Copilot's folder trust:\n%s", r.stdout)
	}
	writeFile(t, filepath.Join(h.home, ".copilot", "config.json"), `{"trusted_folders": [`+strconv.Quote(h.project)+`]}`)
	if r := h.must("agent", "list"); strings.Contains(r.stdout, "trust it for future sessions") {
		t.Errorf("agent list still names Copilot's gate once trusted:\n%s", r.stdout)
	}
	out := runAgent(t, h, env, copilot, "-p", "run the probe", "--allow-all-tools", "--no-auto-update")
	sent := model.All()
	for what, want := range map[string]string{
		"the guard's deny of the shell call": "Denied by preToolUse hook: " + blockedReason,
		"the MCP server's tool":              modelserver.ProbeTool,
		"the subagent":                       "HELPER-AGENT-DESCRIPTION",
		"the skill":                          "TIDY-SKILL-DESCRIPTION",
	} {
		if !strings.Contains(sent, want) {
			t.Errorf("Copilot did not send its model %s (%q)\nagent output:\n%s", what, want, out)
		}
	}
}

// TestRealOpenCodeGetsTheWholePlugin drives OpenCode (opencode-ai
// 1.18.33) headless against the scripted model (its Anthropic provider
// pointed at it in the project's opencode.json, to which quiver adds the
// plugin's server): the plugin quiver generated loads, the user's guard
// blocks the model's shell call through it, and OpenCode offers its model
// the MCP tool, the subagent, the skill and the command's text with its
// path expanded. OpenCode installs its own plugin package into .opencode
// at startup; the npm registry is pointed at a closed port so that this
// fails at once instead of reaching the network.
func TestRealOpenCodeGetsTheWholePlugin(t *testing.T) {
	opencode := realAgent(t, "QUIVER_TEST_OPENCODE")
	srv := gitserver.New(t, gitserver.Options{})
	if _, err := srv.Commit("acme/demo", "main", wholePlugin(t), "demo"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, srv)
	guardHook(t, h)
	model, err := modelserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	model.Tool = &modelserver.ToolUse{Name: "bash", Input: map[string]any{"command": blockedCommand, "description": "probe"}}
	writeFile(t, filepath.Join(h.project, "opencode.json"), `{
  // the user's own provider: the scripted model
  "provider": {"anthropic": {"options": {"baseURL": "`+model.URL+`/v1", "apiKey": "x"}}},
  "model": "anthropic/claude-sonnet-4-5",
}
`)
	h.must("agent", "install", "opencode", "--command", os.Args[0])
	h.must("plugin", "add", "acme/demo")
	env := agentEnv(h, "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1",
		"npm_config_registry=http://127.0.0.1:9/", "npm_config_fetch_retries=0", "BUN_CONFIG_REGISTRY=http://127.0.0.1:9/")
	t.Cleanup(func() {
		if t.Failed() { // OpenCode says why only in its log
			logs, _ := filepath.Glob(filepath.Join(h.home, ".local", "share", "opencode", "log", "*.log"))
			for _, l := range logs {
				data, _ := os.ReadFile(l)
				t.Logf("%s:\n%s", l, data)
			}
		}
	})
	out := runAgent(t, h, env, opencode, "run", "--command", "hello", "world")
	sent := model.All()
	for what, want := range map[string]string{
		"the guard's block of the shell call":   blockedReason,
		"the MCP server's tool":                 modelserver.ProbeTool,
		"the subagent":                          "HELPER-AGENT-DESCRIPTION",
		"the skill":                             "TIDY-SKILL-DESCRIPTION",
		"the command's text, its path expanded": "Read " + filepath.Join(h.project, ".quiver", "plugins", "acme@demo") + "/notes.txt and greet world.",
	} {
		if !strings.Contains(sent, want) {
			t.Errorf("OpenCode did not send its model %s (%q)\nagent output:\n%s", what, want, out)
		}
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRealCodexGetsThePlugin: Codex offers its model the tool of a
// plugin's MCP server that quiver wrote into its config.toml, at project
// scope (through quiver mcp exec, once the user trusts the project in
// Codex: before that Codex ignores the project's file, and quiver says
// so) and at user scope (merged into the user's own config.toml, which
// also holds the model provider Codex runs with).
func TestRealCodexGetsThePlugin(t *testing.T) {
	codex := realAgent(t, "QUIVER_TEST_CODEX")
	srv := gitserver.New(t, gitserver.Options{})
	if _, err := srv.Commit("acme/demo", "main", wholePlugin(t), "demo"); err != nil {
		t.Fatal(err)
	}
	model, err := modelserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	// Codex starts a server with a cleared environment (only HOME, PATH
	// and a few more, plus what env_vars names), so the quiver it runs is
	// a wrapper that makes this test binary quiver.
	quiver := filepath.Join(t.TempDir(), "quiver")
	wrapper := fmt.Sprintf("#!/bin/sh\n%s=1 exec %q \"$@\"\n", asQuiver, os.Args[0])
	if err := os.WriteFile(quiver, []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	// The user's Codex configuration: the scripted model, and (when
	// trusted) the project, which only the user ever writes.
	userConfig := func(h *harness, trusted bool) string {
		path := filepath.Join(h.home, ".codex", "config.toml")
		c := fmt.Sprintf("# the user's own\nmodel_provider = \"mock\"\nmodel = \"gpt-5-codex\"\n\n[model_providers.mock]\nname = \"mock\"\nbase_url = %q\nwire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 0\n",
			model.URL+"/v1")
		if trusted {
			c += fmt.Sprintf("\n[projects.%q]\ntrust_level = \"trusted\"\n", h.project)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// offered runs Codex headless and reports whether the request it
	// sent its model offered the probe server's tool.
	var lastSent string
	offered := func(h *harness) (bool, string) {
		t.Helper()
		before := len(model.Requests())
		env := agentEnv(h, "CODEX_HOME="+filepath.Join(h.home, ".codex"), "MOCK_API_KEY=x")
		out := runAgent(t, h, env, codex, "exec", "--json", "--skip-git-repo-check", "-s", "workspace-write", "say hello")
		var sent strings.Builder
		for _, r := range model.Requests()[before:] {
			sent.Write(r.Body)
		}
		if sent.Len() == 0 {
			t.Fatalf("Codex sent its model nothing\nagent output:\n%s", out)
		}
		s := sent.String()
		lastSent = s
		return strings.Contains(s, `"name":"`+modelserver.ProbeTool+`"`) && strings.Contains(s, modelserver.ProbeDescription), out
	}

	t.Run("project", func(t *testing.T) {
		h := newHarness(t, srv)
		userConfig(h, false)
		h.must("agent", "install", "codex", "--command", quiver)
		h.must("plugin", "add", "acme/demo")
		data, err := os.ReadFile(filepath.Join(h.project, ".codex", "config.toml"))
		if err != nil || !strings.Contains(string(data), "[mcp_servers.acme-demo-probe]") {
			t.Fatalf("quiver wrote no server for Codex (%v):\n%s", err, data)
		}
		if r := h.must("agent", "list"); !strings.Contains(r.stdout, "run codex in the project once and trust it") {
			t.Errorf("agent list says nothing of Codex's trust gate:\n%s", r.stdout)
		}
		if ok, out := offered(h); ok {
			t.Errorf("Codex offered the server of a project it does not trust\nagent output:\n%s", out)
		}
		userConfig(h, true)
		if r := h.must("agent", "list"); strings.Contains(r.stdout, "trust it") {
			t.Errorf("agent list still names the gate once trusted:\n%s", r.stdout)
		}
		if ok, out := offered(h); !ok {
			t.Errorf("Codex did not offer its model the MCP server's tool (%s)\nagent output:\n%s", modelserver.ProbeTool, out)
		}
		// The subagent (an agent role in .codex/agents) and the skill
		// (.agents/skills) reach it too; Codex has no project commands.
		for what, want := range map[string]string{"the subagent": "HELPER-AGENT-DESCRIPTION", "the skill": "TIDY-SKILL-DESCRIPTION"} {
			if !strings.Contains(lastSent, want) {
				t.Errorf("Codex did not send its model %s (%q)", what, want)
			}
		}
	})

	t.Run("user", func(t *testing.T) {
		h := newHarness(t, srv)
		config := userConfig(h, false)
		before, _ := os.ReadFile(config)
		h.must("agent", "install", "codex", "-g", "--command", quiver)
		h.must("plugin", "add", "-g", "acme/demo")
		if data, _ := os.ReadFile(config); !bytes.HasPrefix(data, before) || !strings.Contains(string(data), "[mcp_servers.acme-demo-probe]") {
			t.Fatalf("the user's config.toml:\n%s", data)
		}
		if ok, out := offered(h); !ok {
			t.Errorf("Codex did not offer its model the MCP server's tool (%s)\nagent output:\n%s", modelserver.ProbeTool, out)
		}
		h.must("agent", "remove", "codex", "-g")
		if data, _ := os.ReadFile(config); !bytes.Equal(data, before) {
			t.Errorf("agent remove did not give the user's config.toml back:\n%s\nwant:\n%s", data, before)
		}
	})
}

// TestRealClaudeStartsTheLSPServer: a plugin's LSP server (here from a
// strict: false style .lsp.json) reaches Claude Code through the plugin
// route, the only way Claude loads LSP servers: when the model reads a
// file of its language, Claude starts the server from the view, with
// ${CLAUDE_PLUGIN_ROOT} expanded.
func TestRealClaudeStartsTheLSPServer(t *testing.T) {
	claude := realAgent(t, "QUIVER_TEST_CLAUDE")
	h, marker := lspProbe(t)
	h.must("agent", "install", "claude", "--command", os.Args[0])
	h.must("plugin", "add", "acme/probe-lsp")
	model, err := modelserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	model.Tool = &modelserver.ToolUse{Name: "LSP", Input: map[string]any{"operation": "hover", "filePath": filepath.Join(h.project, "main.probe"), "line": 1, "character": 1}}
	env := agentEnv(h, claudeVars(model.URL)...)
	out := runAgent(t, h, env, claude, "-p", "read main.probe", "--output-format", "stream-json", "--verbose", "--allowedTools", "LSP")
	started, err := os.ReadFile(marker)
	if err != nil {
		t.Fatalf("Claude did not start the plugin's LSP server (%v)\nagent output:\n%s", err, out)
	}
	view := filepath.Join(plugins.ProjectMachineDir(h.home, h.project), "claude-plugins", "plugins", "probe-lsp")
	if got := string(started); got != "--root="+view {
		t.Errorf("Claude started the server with %q, want the view's root expanded (--root=%s)", got, view)
	}
}

// TestRealOpenCodeStartsTheLSPServer: OpenCode starts a project plugin's
// LSP server, written into opencode.json's lsp key, when its model reads
// a file of the server's extension; the server starts through quiver lsp
// exec, which expands the plugin's root.
func TestRealOpenCodeStartsTheLSPServer(t *testing.T) {
	opencode := realAgent(t, "QUIVER_TEST_OPENCODE")
	h, marker := lspProbe(t)
	model, err := modelserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	writeFile(t, filepath.Join(h.project, "opencode.json"), `{
  "provider": {"anthropic": {"options": {"baseURL": "`+model.URL+`/v1", "apiKey": "x"}}},
  "model": "anthropic/claude-sonnet-4-5",
}
`)
	h.must("agent", "install", "opencode", "--command", os.Args[0])
	h.must("plugin", "add", "acme/probe-lsp")
	model.Tool = &modelserver.ToolUse{Name: "read", Input: map[string]any{"filePath": filepath.Join(h.project, "main.probe")}}
	env := agentEnv(h, "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"npm_config_registry=http://127.0.0.1:9/", "npm_config_fetch_retries=0", "BUN_CONFIG_REGISTRY=http://127.0.0.1:9/")
	out := runAgent(t, h, env, opencode, "run", "read main.probe")
	started, err := os.ReadFile(marker)
	if err != nil {
		t.Fatalf("OpenCode did not start the plugin's LSP server (%v)\nagent output:\n%s", err, out)
	}
	root := filepath.Join(h.project, ".quiver", "plugins", "acme@probe-lsp")
	if got := string(started); got != "--root="+root {
		t.Errorf("OpenCode started the server with %q, want the plugin's root expanded (--root=%s)", got, root)
	}
}

// lspProbe serves a plugin whose only part is an LSP server for .probe
// files (this test binary, which writes its arguments to marker when it
// starts), and gives a project with a main.probe file.
func lspProbe(t *testing.T) (h *harness, marker string) {
	dir := t.TempDir()
	marker = filepath.Join(t.TempDir(), "lsp-started")
	writeFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "probe-lsp", "version": "1.0.0"}`)
	lsp, _ := json.Marshal(map[string]any{"probe": map[string]any{
		"command": os.Args[0], "args": []string{"--root=${CLAUDE_PLUGIN_ROOT}"},
		"env": map[string]string{asLSP: marker}, "extensionToLanguage": map[string]string{".probe": "probe"},
	}})
	writeFile(t, filepath.Join(dir, ".lsp.json"), string(lsp))
	srv := gitserver.New(t, gitserver.Options{})
	if _, err := srv.Commit("acme/probe-lsp", "main", dir, "lsp"); err != nil {
		t.Fatal(err)
	}
	h = newHarness(t, srv)
	writeFile(t, filepath.Join(h.project, "main.probe"), "probe\n")
	return h, marker
}

// TestRealGeminiGivesServersWhatTheyNeed drives Gemini CLI 0.61, which
// starts an MCP server without the variables whose names look secret
// (*TOKEN*, *KEY*, ...) unless the server's entry names them, and names
// tools mcp_SERVER_TOOL cut past 63 characters (issue 42, defect 10): a
// project plugin's server that needs WHOLE_API_TOKEN gets it through
// quiver mcp exec, and a plugin with a long name still offers its tool
// under a name Gemini does not cut.
func TestRealGeminiGivesServersWhatTheyNeed(t *testing.T) {
	gemini := realAgent(t, "QUIVER_TEST_GEMINI")
	srv := gitserver.New(t, gitserver.Options{})
	dir := t.TempDir()
	mcp, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"whole": map[string]any{"command": os.Args[0], "env": map[string]string{
			asMCP: "1", mcpNeeds: "WHOLE_API_TOKEN", "WHOLE_API_TOKEN": "${WHOLE_API_TOKEN}"}},
	}})
	writeFile(t, filepath.Join(dir, ".mcp.json"), string(mcp))
	writeFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "whole"}`)
	if _, err := srv.Commit("acme/whole", "main", dir, "whole"); err != nil {
		t.Fatal(err)
	}
	long := t.TempDir()
	mcp, _ = json.Marshal(map[string]any{"mcpServers": map[string]any{
		"browser": map[string]any{"command": os.Args[0], "env": map[string]string{asMCP: "1"}},
	}})
	writeFile(t, filepath.Join(long, ".mcp.json"), string(mcp))
	if _, err := srv.Commit("claude-plugins-official/playwright-browser", "main", long, "long"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, srv)
	writeFile(t, filepath.Join(h.home, ".gemini", "settings.json"), `{"security": {"auth": {"selectedType": "gemini-api-key"}}}`)
	h.must("agent", "install", "gemini", "--command", os.Args[0])
	h.must("plugin", "add", "acme/whole")
	h.must("plugin", "add", "claude-plugins-official/playwright-browser")
	model, err := modelserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	env := agentEnv(h, "GEMINI_API_KEY=x", "GOOGLE_GEMINI_BASE_URL="+model.URL, "GEMINI_CLI_TRUST_WORKSPACE=true", "WHOLE_API_TOKEN=s3cret")
	out := runAgent(t, h, env, gemini, "-p", "hello", "--output-format", "stream-json", "--yolo", "-m", "gemini-2.5-flash")
	sent := model.All()
	for what, want := range map[string]string{
		"the tool of the server that needs a token": "mcp_acme-whole-whole_" + modelserver.ProbeTool,
		"the tool of the long-named plugin, uncut":  "mcp_browser_" + modelserver.ProbeTool,
	} {
		if !strings.Contains(sent, want) {
			t.Errorf("Gemini did not send its model %s (%q)\nagent output:\n%s", what, want, out)
		}
	}
	if list := h.must("agent", "list", "--json"); !strings.Contains(list.stdout, "written as browser") {
		t.Errorf("agent list does not say how the long-named server was written:\n%s", list.stdout)
	}
}

// TestRealClaudeValidatesTheScaffold: what plugin init --format claude
// writes passes Claude Code's own validator in every profile, strict
// included: the checks its plugin directory runs on a submission.
func TestRealClaudeValidatesTheScaffold(t *testing.T) {
	claude := realAgent(t, "QUIVER_TEST_CLAUDE")
	h := newHarness(t, gitserver.New(t, gitserver.Options{}))
	dir := filepath.Join(h.project, "myplug")
	h.must("plugin", "init", dir, "--format", "claude")
	for _, args := range [][]string{nil, {"--strict"}, {"--profile", "directory"}, {"--profile", "directory", "--strict"}} {
		cmd := exec.Command(claude, append(append([]string{"plugin", "validate"}, args...), dir)...)
		cmd.Env = agentEnv(h)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("claude plugin validate %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
