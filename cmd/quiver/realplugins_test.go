package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/gitserver"
)

// TestRealClaudePlugins installs Claude-format plugins nobody here wrote,
// from public snapshots served by the loopback git server, and runs their
// hooks for the events they handle, set up as their READMEs describe.
// QUIVER_TEST_SNAPSHOTS names a folder of bare snapshots laid out as
// fetch leaves them (<owner>+<name>/repo); without it the test is skipped,
// so CI on a bare machine passes.
func TestRealClaudePlugins(t *testing.T) {
	snaps := os.Getenv("QUIVER_TEST_SNAPSHOTS")
	if snaps == "" {
		t.Skip("QUIVER_TEST_SNAPSHOTS is not set")
	}
	official := filepath.Join(snaps, "anthropics+claude-plugins-official", "repo")
	superpowers := filepath.Join(snaps, "obra+superpowers", "repo")
	for _, p := range []string{official, superpowers} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("snapshot %s is missing", p)
		}
	}
	for _, tool := range []string{"python3", "jq", "perl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the plugins need %s", tool)
		}
	}
	srv := gitserver.New(t, gitserver.Options{})
	// A subfolder becomes a repository of its own until subfolder
	// installs exist.
	export := func(bare, sub string) string {
		dir := t.TempDir()
		args := []string{"--git-dir", bare, "archive", "HEAD"}
		if sub != "" {
			args = append(args, sub)
		}
		archive := exec.Command("git", args...)
		untar := exec.Command("tar", "-x", "-C", dir)
		untar.Stdin, _ = archive.StdoutPipe()
		if err := untar.Start(); err != nil {
			t.Fatal(err)
		}
		if err := archive.Run(); err != nil {
			t.Fatalf("git archive %s: %v", sub, err)
		}
		if err := untar.Wait(); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(dir, sub)
	}
	for name, src := range map[string]string{
		"anthropics/hookify":    export(official, "plugins/hookify"),
		"anthropics/ralph-loop": export(official, "plugins/ralph-loop"),
		"obra/superpowers":      export(superpowers, ""),
	} {
		if _, err := srv.Commit(name, "main", src, "snapshot"); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarness(t, srv)
	add := h.must("plugin", "add", "anthropics/hookify", "anthropics/ralph-loop", "obra/superpowers")
	t.Logf("plugin add:\n%s", add.stderr)
	h.must("trust")
	list := h.must("hook", "list", "--all")
	t.Logf("hook list --all:\n%s", list.stdout)
	for _, want := range []string{
		"anthropics/hookify/hooks.json/PreToolUse.1", "anthropics/hookify/hooks.json/Stop.1",
		"anthropics/ralph-loop/hooks.json/Stop.1", "obra/superpowers/hooks.json/SessionStart.1",
	} {
		if !strings.Contains(list.stdout, want) {
			t.Errorf("hook list lacks %s", want)
		}
	}
	if strings.Contains(list.stdout, "invalid") || strings.Contains(list.stdout, "run-hook.cmd") {
		t.Errorf("a real plugin's handler is invalid, or a script was taken for a hook:\n%s", list.stdout)
	}

	// hookify: a rule file as its README writes one blocks rm -rf.
	write := func(rel, content string) {
		p := filepath.Join(h.project, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".claude/hookify.dangerous-rm.local.md", "---\nname: block-dangerous-rm\nenabled: true\nevent: bash\npattern: rm\\s+-rf\naction: block\n---\n\nDangerous rm command detected!\n")
	run := func(event, payload string) map[string]any {
		t.Helper()
		r := h.run(payload, "hook", "run", event)
		t.Logf("hook run %s %s:\n%s%s", event, payload, r.stdout, r.stderr)
		var res map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
			t.Fatalf("%s", r)
		}
		return res
	}
	res := run("before_tool_call", `{"tool_name":"Bash","tool_input":{"command":"rm -rf build"},"conv_id":"sess1"}`)
	if res["decision"] != "block" || !strings.Contains(res["reason"].(string), "Dangerous rm command") {
		t.Errorf("hookify did not block rm -rf: %v", res)
	}
	res = run("before_tool_call", `{"tool_name":"Bash","tool_input":{"command":"ls"},"conv_id":"sess1"}`)
	if res["decision"] != "allow" {
		t.Errorf("hookify blocked ls: %v", res)
	}

	// ralph-loop: an active loop (its state file) keeps the agent going
	// with the same prompt; without the state file it lets it stop.
	transcript := filepath.Join(h.project, "transcript.jsonl")
	write("transcript.jsonl", `{"message":{"role":"assistant","content":[{"type":"text","text":"working on it"}]}}`+"\n")
	write(".claude/ralph-loop.local.md", "---\nactive: true\niteration: 1\nsession_id: sess1\nmax_iterations: 5\ncompletion_promise: \"DONE\"\n---\n\nBuild the todo API\n")
	stop := `{"messages":[],"conv_id":"sess1","transcript_path":"` + transcript + `"}`
	res = run("agent_stop", stop)
	follow, _ := res["follow_up_messages"].([]any)
	if len(follow) != 1 || !strings.Contains(follow[0].(string), "Build the todo API") {
		t.Errorf("ralph-loop did not keep the agent going: %v", res)
	}
	os.Remove(filepath.Join(h.project, ".claude/ralph-loop.local.md"))
	res = run("agent_stop", stop)
	if follow, _ := res["follow_up_messages"].([]any); len(follow) != 0 {
		t.Errorf("ralph-loop kept going without a loop: %v", res)
	}

	// superpowers: its SessionStart handler injects its context.
	res = run("session_start", `{"source":"startup"}`)
	ctx, _ := res["context"].([]any)
	if len(ctx) != 1 || !strings.Contains(strings.ToLower(ctx[0].(map[string]any)["text"].(string)), "superpowers") {
		t.Errorf("superpowers added no context: %v", res)
	}
	res = run("session_start", `{"source":"resume"}`)
	if ctx, _ := res["context"].([]any); len(ctx) != 0 {
		t.Errorf("superpowers' matcher startup|clear|compact ran on resume: %v", res)
	}
}
