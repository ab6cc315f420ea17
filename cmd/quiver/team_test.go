package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/gitserver"
	"github.com/quiver-cli/quiver/internal/hooks/agents"
	"github.com/quiver-cli/quiver/internal/modelserver"
)

// teammate is one person's machine: a home of their own and their clone
// of the team's repository at a path of their own.
type teammate struct {
	*harness
	name string
}

func newTeammate(t *testing.T, srv *gitserver.Server, name, remote string, clonePath ...string) *teammate {
	t.Helper()
	base := t.TempDir()
	project := filepath.Join(append([]string{base}, clonePath...)...)
	os.MkdirAll(filepath.Dir(project), 0o755)
	tm := &teammate{harness: newHarness(t, srv), name: name}
	tm.project = project
	tm.scope.Root = filepath.Join(project, ".quiver")
	for i, kv := range tm.env {
		if strings.HasPrefix(kv, "QUIVER_PROJECT_DIR=") {
			tm.env[i] = "QUIVER_PROJECT_DIR=" + project
		}
	}
	tm.git(base, "clone", "-q", remote, project)
	return tm
}

// git runs git in dir (the clone when "") as this teammate.
func (tm *teammate) git(dir string, args ...string) string {
	tm.t.Helper()
	if dir == "" {
		dir = tm.project
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME="+tm.name, "GIT_AUTHOR_EMAIL="+tm.name+"@example.com",
		"GIT_COMMITTER_NAME="+tm.name, "GIT_COMMITTER_EMAIL="+tm.name+"@example.com", "HOME="+tm.home,
		"GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tm.t.Fatalf("%s: git %s: %v\n%s", tm.name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// status is git status --porcelain of the clone, untracked files
// included: what quiver left for the teammate to commit.
func (tm *teammate) status() string {
	return tm.git("", "status", "--porcelain", "--untracked-files=all")
}

// TestTeamReproducesTheSameSet plays issue 43's story: Alice adds a
// plugin that carries a hook, an MCP server, a subagent, a command and a
// skill, wires the six agents and pushes; Bob clones at another path, in
// another home, and runs what docs/versions.md tells a teammate; every
// agent's files reach his own copy, nothing names Alice's machine, and
// neither clone has anything to commit that only running quiver made.
// Then Bob removes the plugin and Alice's plugin install follows, and a
// fresh CI clone installs and audits.
func TestTeamReproducesTheSameSet(t *testing.T) {
	srv := gitserver.New(t, gitserver.Options{})
	if _, err := srv.Commit("acme/demo", "main", wholePlugin(t), "demo"); err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(t.TempDir(), "hooks")
	os.MkdirAll(hook, 0o755)
	remote := filepath.Join(t.TempDir(), "app.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", remote).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}

	alice := newTeammate(t, srv, "alice", remote, "src", "app")
	writeFile(t, filepath.Join(alice.project, "README.md"), "the team's app\n")
	alice.must("plugin", "add", "acme/demo")
	for _, ag := range agents.Names() {
		alice.must("agent", "install", ag)
	}
	alice.git("", "add", "-A")
	alice.git("", "commit", "-qm", "plugins and agents")
	alice.git("", "push", "-q", "origin", "HEAD:main")
	if st := alice.status(); st != "" {
		t.Errorf("Alice has something left to commit after her push:\n%s", st)
	}

	// What the team committed names nothing of Alice's machine.
	committed := alice.git("", "ls-files")
	t.Logf("Alice committed:\n%s", committed)
	for _, f := range strings.Fields(committed) {
		data, err := os.ReadFile(filepath.Join(alice.project, f))
		if err != nil {
			continue
		}
		for _, mine := range []string{alice.project, alice.home} {
			if strings.Contains(string(data), mine) {
				t.Errorf("committed %s names Alice's %s:\n%s", f, mine, data)
			}
		}
	}
	if strings.Contains(committed, "settings.local.json") {
		t.Errorf("Alice committed Claude Code's personal settings:\n%s", committed)
	}

	// Bob: another home, another path; the documented steps.
	bob := newTeammate(t, srv, "bob", remote, "work", "clones", "the-app")
	bob.must("plugin", "install")
	bob.must("trust")
	if st := bob.status(); st != "" {
		t.Errorf("Bob's clone changed by running quiver:\n%s", st)
	}
	t.Logf("Bob's git status after plugin install and trust: %q", bob.status())
	t.Logf("Bob's agent list:\n%s", bob.must("agent", "list").stdout)
	list := bob.must("agent", "list", "--json").stdout
	for _, ag := range agents.Names() {
		if !strings.Contains(list, `"agent": "`+ag+`",`) {
			t.Errorf("agent list does not name %s", ag)
		}
	}
	if strings.Contains(list, `"silenced"`) {
		t.Errorf("an agent of Bob's is silenced:\n%s", list)
	}
	for _, f := range []string{".gemini/settings.json", ".cursor/mcp.json", ".github/mcp.json", ".codex/config.toml", "opencode.json"} {
		data, err := os.ReadFile(filepath.Join(bob.project, f))
		if err != nil {
			t.Errorf("Bob's clone has no %s: %v", f, err)
			continue
		}
		if !strings.Contains(string(data), "acme-demo-probe") {
			t.Errorf("%s does not give Bob's agent the server:\n%s", f, data)
		}
	}
	// The server starts from Bob's copy, in his project, wherever his
	// agent's session is.
	sub := filepath.Join(bob.project, "docs")
	os.MkdirAll(sub, 0o755)
	cmd := bob.cmd("mcp", "exec", "acme/demo", "probe")
	cmd.Dir = sub
	cmd.Env = dropEnv(cmd.Env, "QUIVER_PROJECT_DIR")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("Bob's quiver mcp exec from %s: %v\n%s", sub, err, out)
	}
	// Bob's copies of what he trusted are there, and out of git.
	for _, f := range []string{".gemini/agents/helper.md", ".cursor/agents/helper.md", ".codex/agents/helper.toml"} {
		if _, err := os.Stat(filepath.Join(bob.project, f)); err != nil {
			t.Errorf("Bob's %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(bob.project, ".claude", "settings.local.json")); err != nil {
		t.Errorf("Bob's Claude Code gets no plugin route: %v", err)
	}

	// Bob removes the plugin and pushes; Alice pulls, and plugin install
	// makes her set the lock's, unwiring what it carried.
	bob.must("plugin", "remove", "acme/demo")
	bob.git("", "add", "-A")
	bob.git("", "commit", "-qm", "no demo")
	bob.git("", "push", "-q", "origin", "HEAD:main")
	alice.git("", "pull", "-q", "origin", "main")
	alice.must("plugin", "install")
	if _, err := os.Stat(filepath.Join(alice.scope.PluginsDir(), "acme@demo")); err == nil {
		t.Error("Alice's plugin install kept a plugin the lock no longer names")
	}
	for _, f := range []string{".gemini/settings.json", ".github/mcp.json"} {
		if data, _ := os.ReadFile(filepath.Join(alice.project, f)); strings.Contains(string(data), "acme-demo-probe") {
			t.Errorf("Alice's %s still starts the removed plugin's server:\n%s", f, data)
		}
	}
	if st := alice.status(); st != "" {
		t.Errorf("Alice's clone changed by running quiver after the pull:\n%s", st)
	}

	// Alice adds it back; Bob pulls and converges.
	alice.must("plugin", "add", "acme/demo")
	alice.git("", "add", "-A")
	alice.git("", "commit", "-qm", "demo again")
	alice.git("", "push", "-q", "origin", "HEAD:main")
	bob.git("", "pull", "-q", "origin", "main")
	bob.must("plugin", "install")
	bob.must("trust")
	if st := bob.status(); st != "" {
		t.Errorf("Bob's clone changed by running quiver after the second pull:\n%s", st)
	}
	t.Logf("after remove, pull, add back, pull: Alice's git status %q, Bob's %q", alice.status(), bob.status())

	// CI: a fresh clone, install what the lock says, audit.
	ci := newTeammate(t, srv, "ci", remote, "runner", "work", "app")
	ci.must("plugin", "install")
	if r := ci.run("", "audit"); r.code != 0 {
		t.Errorf("CI's audit of the team's clone fails:\n%s", r)
	}
}

// dropEnv is env without name.
func dropEnv(env []string, name string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// TestRealClaudeTeammateGetsThePlugin: Bob's real Claude Code, in his
// own clone and home, is offered the plugin's MCP tool, its subagent and
// its command after the documented steps (plugin install, trust), with
// nothing committed but what Alice's quiver wrote for the team.
func TestRealClaudeTeammateGetsThePlugin(t *testing.T) {
	claude := realAgent(t, "QUIVER_TEST_CLAUDE")
	srv := gitserver.New(t, gitserver.Options{})
	if _, err := srv.Commit("acme/demo", "main", wholePlugin(t), "demo"); err != nil {
		t.Fatal(err)
	}
	remote := filepath.Join(t.TempDir(), "app.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", "main", remote).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	// The agents find quiver by its bare name, as a project's files say.
	bin := t.TempDir()
	if err := os.Symlink(os.Args[0], filepath.Join(bin, "quiver")); err != nil {
		t.Fatal(err)
	}
	alice := newTeammate(t, srv, "alice", remote, "src", "app")
	writeFile(t, filepath.Join(alice.project, "README.md"), "the team's app\n")
	alice.must("plugin", "add", "acme/demo")
	alice.must("agent", "install", "claude")
	alice.git("", "add", "-A")
	alice.git("", "commit", "-qm", "plugins")
	alice.git("", "push", "-q", "origin", "HEAD:main")

	bob := newTeammate(t, srv, "bob", remote, "elsewhere", "app")
	bob.must("plugin", "install")
	bob.must("trust")
	if st := bob.status(); st != "" {
		t.Errorf("Bob's clone changed by running quiver:\n%s", st)
	}
	model, err := modelserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	env := agentEnv(bob.harness, claudeVars(model.URL)...)
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + bin + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
	}
	out := runAgent(t, bob.harness, env, claude, "-p", "/demo:hello world", "--output-format", "stream-json", "--verbose")
	sent := model.All()
	for what, want := range map[string]string{
		"the MCP server's tool":    "mcp__plugin_demo_probe__" + modelserver.ProbeTool,
		"the subagent, namespaced": "demo:helper",
		"the command's text":       "greet world.",
	} {
		if !strings.Contains(sent, want) {
			t.Errorf("Bob's Claude did not send its model %s (%q)\nagent output:\n%s", what, want, out)
		}
	}
	if st := bob.status(); st != "" {
		t.Errorf("Bob's session left his clone changed:\n%s", st)
	}
}
