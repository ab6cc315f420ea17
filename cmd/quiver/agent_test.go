package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/gitserver"
	"github.com/quiver-cli/quiver/internal/hooks/agents"
	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
)

// agentHarness is a project and a home with a `quiver` on PATH (the test
// binary, through a wrapper), as an agent finds it.
func agentHarness(t *testing.T) *harness {
	t.Helper()
	bin := t.TempDir()
	wrapper := fmt.Sprintf("#!/bin/sh\n%s=1 exec %q \"$@\"\n", asQuiver, os.Args[0])
	if err := os.WriteFile(filepath.Join(bin, "quiver"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := gitserver.New(t, gitserver.Options{})
	return newHarness(t, srv, "PATH="+bin+":"+os.Getenv("PATH"))
}

// TestAgentConfigLeftAlone: a configuration that does not parse, or that
// holds something else where quiver's entries go, is an error and keeps
// its bytes.
func TestAgentConfigLeftAlone(t *testing.T) {
	t.Parallel() // its own project, home and git server
	h := agentHarness(t)
	config := filepath.Join(h.project, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(config), 0o755)
	for _, bad := range []string{`{"hooks": `, `{"hooks": "none"}`, `{"hooks": {"PreToolUse": {}}}`, `[1]`, `{/* c */ "a": 1}`} {
		os.WriteFile(config, []byte(bad), 0o644)
		r := h.run("", "agent", "install", "claude")
		if r.code != 1 || !strings.HasPrefix(r.stderr, "quiver: ") || !strings.Contains(r.stderr, "left as it was") {
			t.Errorf("%s: %s", bad, r)
		}
		if got, _ := os.ReadFile(config); string(got) != bad {
			t.Errorf("%s: the file became %s", bad, got)
		}
	}
}

// seen is what an agent made of the answers to one event, in words every
// agent's documentation uses.
type seen struct {
	denied, asked bool
	reason        string
	input         json.RawMessage // the tool input that would run
	context       string          // for the model
	notice        string          // for the user
	keepGoing     string          // a stop that continues with this text
}

// fakeAgent behaves as an agent's documentation says: it reads the
// configuration quiver wrote, picks the entries for an event, runs each
// command through sh -c with the agent's input on stdin, and reads
// stdout and the exit code the way that agent does.
type fakeAgent struct {
	t      *testing.T
	h      *harness
	ag     *agents.Agent
	config string
}

// commands are the configured commands for a native event and the value
// its matcher is tested against.
func (f *fakeAgent) commands(event, subject string) []string {
	data, err := os.ReadFile(f.config)
	if err != nil {
		f.t.Fatal(err)
	}
	if f.ag.Syntax != wiring.JSON {
		data = regexp.MustCompile(`(?m)^\s*//.*$`).ReplaceAll(data, nil)
	}
	var doc struct {
		Hooks map[string][]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		f.t.Fatalf("the agent cannot read %s: %v\n%s", f.config, err, data)
	}
	var cmds []string
	for _, raw := range doc.Hooks[event] {
		var g struct {
			Matcher string `json:"matcher"`
			Command string `json:"command"`
			Hooks   []struct {
				Type, Command string
			} `json:"hooks"`
		}
		json.Unmarshal(raw, &g)
		if g.Matcher != "" && g.Matcher != "*" && !regexp.MustCompile(g.Matcher).MatchString(subject) {
			continue
		}
		if f.ag == agents.Cursor {
			cmds = append(cmds, g.Command)
			continue
		}
		if f.ag == agents.Copilot {
			var hd struct{ Bash string }
			json.Unmarshal(raw, &hd)
			cmds = append(cmds, hd.Bash)
			continue
		}
		for _, hd := range g.Hooks {
			cmds = append(cmds, hd.Command)
		}
	}
	return cmds
}

// fire sends one event and returns what the agent saw.
func (f *fakeAgent) fire(event string, input map[string]any) seen {
	f.t.Helper()
	if f.ag == agents.OpenCode {
		return f.fireOpenCode(event, input)
	}
	input["hook_event_name"] = event
	if f.ag == agents.Copilot {
		// Copilot's camelCase input names no event.
		delete(input, "hook_event_name")
		for from, to := range map[string]string{"session_id": "sessionId", "tool_name": "toolName", "tool_input": "toolArgs"} {
			if v, ok := input[from]; ok {
				input[to] = v
				delete(input, from)
			}
		}
		if ti, ok := input["toolArgs"]; ok {
			input["tool_input"] = ti // what fire compares, not sent
			defer delete(input, "tool_input")
		}
	}
	in, _ := json.Marshal(input)
	subject, _ := input["tool_name"].(string)
	cmds := f.commands(event, subject)
	if len(cmds) == 0 {
		f.t.Fatalf("%s: no command configured for %s", f.ag.Name, event)
	}
	var s seen
	if ti, ok := input["tool_input"]; ok {
		s.input, _ = json.Marshal(ti)
	}
	for _, c := range cmds {
		cmd := exec.Command("sh", "-c", c)
		cmd.Dir, cmd.Env = f.h.project, f.h.env
		cmd.Stdin = bytes.NewReader(in)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			f.t.Fatal(err)
		}
		if code != 0 {
			f.t.Fatalf("%s %s: quiver exited %d: %s", f.ag.Name, event, code, errb.String())
		}
		f.read(event, out.Bytes(), &s)
	}
	return s
}

// read interprets one exit-0 answer as the agent documents it.
func (f *fakeAgent) read(event string, stdout []byte, s *seen) {
	var o map[string]json.RawMessage
	if err := json.Unmarshal(stdout, &o); err != nil {
		f.t.Fatalf("%s %s: stdout is not JSON: %q", f.ag.Name, event, stdout)
	}
	str := func(m map[string]json.RawMessage, k string) string {
		var v string
		json.Unmarshal(m[k], &v)
		return v
	}
	switch f.ag {
	case agents.Claude, agents.Codex:
		s.notice = str(o, "systemMessage")
		var spec map[string]json.RawMessage
		json.Unmarshal(o["hookSpecificOutput"], &spec)
		if spec != nil && str(spec, "hookEventName") != event {
			spec = nil // Claude discards it
		}
		decision, reason := str(o, "decision"), str(o, "reason")
		if spec != nil {
			s.context = str(spec, "additionalContext")
			switch str(spec, "permissionDecision") {
			case "deny":
				s.denied, s.reason = true, str(spec, "permissionDecisionReason")
			case "ask":
				if f.ag == agents.Codex {
					f.t.Fatalf("codex does not support ask: %s", stdout)
				}
				s.asked, s.reason = true, str(spec, "permissionDecisionReason")
			case "allow":
			}
			if in, ok := spec["updatedInput"]; ok {
				if f.ag == agents.Codex && str(spec, "permissionDecision") != "allow" {
					f.t.Fatalf("codex takes updatedInput only with allow: %s", stdout)
				}
				s.input = in
			}
		}
		if decision == "block" {
			if event == "Stop" || event == "SubagentStop" {
				s.keepGoing = reason
			} else {
				s.denied, s.reason = true, reason
			}
		}
	case agents.Gemini:
		s.notice = str(o, "systemMessage")
		var spec map[string]json.RawMessage
		json.Unmarshal(o["hookSpecificOutput"], &spec)
		s.context = str(spec, "additionalContext")
		if ti, ok := spec["tool_input"]; ok {
			// Gemini merges tool_input over the arguments.
			var cur, upd map[string]json.RawMessage
			json.Unmarshal(s.input, &cur)
			json.Unmarshal(ti, &upd)
			for k, v := range upd {
				cur[k] = v
			}
			s.input, _ = json.Marshal(cur)
		}
		switch str(o, "decision") {
		case "deny", "block":
			if event == "AfterAgent" {
				s.keepGoing = str(o, "reason")
			} else {
				s.denied, s.reason = true, str(o, "reason")
			}
		case "ask":
			s.asked, s.reason = true, str(o, "reason")
		}
	case agents.Copilot:
		// Copilot shows no systemMessage: notices cannot reach the user.
		s.context = str(o, "additionalContext")
		switch str(o, "permissionDecision") {
		case "deny":
			s.denied, s.reason = true, str(o, "permissionDecisionReason")
		case "ask":
			s.asked, s.reason = true, str(o, "permissionDecisionReason")
		}
		if in, ok := o["modifiedArgs"]; ok {
			s.input = in
		}
		if str(o, "decision") == "block" {
			if event == "agentStop" || event == "subagentStop" {
				s.keepGoing = str(o, "reason")
			} else {
				s.denied, s.reason = true, str(o, "reason")
			}
		}
	case agents.Cursor:
		s.notice = str(o, "user_message")
		s.context = str(o, "additional_context")
		if str(o, "permission") == "deny" {
			s.denied, s.reason = true, str(o, "agent_message")
		}
		if in, ok := o["updated_input"]; ok {
			s.input = in
		}
		if c, ok := o["continue"]; ok && string(c) == "false" {
			s.denied, s.reason = true, str(o, "user_message")
		}
		s.keepGoing = str(o, "followup_message")
	}
}

// agentTestHooks are the user's own (global, trusted) hooks the harness
// runs through each agent.
var agentTestHooks = map[string]string{
	"guard": `#!/bin/bash
[ "$1" = hook ] && { echo before_tool_call; exit 0; }
in=$(cat)
case "$in" in
*'rm -rf'*) echo "rm -rf is not allowed" >&2; exit 2 ;;
*'"ls"'*) echo '{"input": {"command": "ls -la"}, "notice": "listing everything"}' ;;
*'deploy'*) echo '{"ask": true, "reason": "deploys need a human"}' ;;
esac
`,
	"welcome": `#!/bin/bash
[ "$1" = hook ] && { echo session_start; exit 0; }
echo '{"context": "this project uses tabs"}'
`,
	"keep-going": `#!/bin/bash
[ "$1" = hook ] && { echo agent_stop; exit 0; }
grep -q '"stop_hook_active":true' && exit 0
echo '{"follow_up_messages": ["run the tests before stopping"]}'
`,
	"no-secrets": `#!/bin/bash
[ "$1" = hook ] && { echo user_message_send; exit 0; }
grep -q 'password' && { echo "do not paste passwords" >&2; exit 2; }
exit 0
`,
}

// TestAgentHarness drives each agent's configuration as the agent would,
// and checks that quiver's decisions arrive in the agent's terms: a block
// of a shell call with its reason, a rewritten input, a stop that keeps
// going, session context, a notice for the user, a blocked prompt, and
// what each format cannot carry, as docs/agents.md says.
func TestAgentHarness(t *testing.T) {
	t.Parallel() // its own project, home and git server
	for _, ag := range agents.All() {
		t.Run(ag.Name, func(t *testing.T) {
			h := agentHarness(t)
			for name, body := range agentTestHooks {
				p := filepath.Join(h.home, "hooks", name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(body), 0o755)
			}
			h.must("agent", "install", ag.Name)
			f := &fakeAgent{t: t, h: h, ag: ag, config: filepath.Join(h.project, ag.ConfigLocal)}
			native := func(q string) string {
				for _, ev := range ag.Events() {
					if ev.Quiver == q {
						return ev.Native
					}
				}
				t.Fatalf("%s wires no %s", ag.Name, q)
				return ""
			}
			shell := map[string]string{"claude": "Bash", "codex": "Bash", "gemini": "run_shell_command", "cursor": "Shell", "copilot": "bash", "opencode": "bash"}[ag.Name]
			// What the agent's format cannot say (docs/agents.md).
			noNotices := ag == agents.Copilot || ag == agents.OpenCode
			noKeepGoing := ag == agents.OpenCode
			canAsk := ag == agents.Claude || ag == agents.Gemini || ag == agents.Copilot
			tool := func(command string) map[string]any {
				return map[string]any{"session_id": "s1", "conversation_id": "s1", "cwd": h.project,
					"tool_name": shell, "tool_input": map[string]any{"command": command}}
			}

			s := f.fire(native("before_tool_call"), tool("rm -rf /"))
			if !s.denied || s.reason != "rm -rf is not allowed" {
				t.Errorf("rm -rf: %+v", s)
			}
			s = f.fire(native("before_tool_call"), tool("ls"))
			if s.denied || string(s.input) != `{"command":"ls -la"}` {
				t.Errorf("rewrite: %+v input %s", s, s.input)
			}
			if !noNotices && !strings.Contains(s.notice, "listing everything") {
				t.Errorf("notice: %+v", s)
			}
			// A rewrite is never a permission: the agents that can ask,
			// ask (OpenCode judges the rewritten call by its own rules).
			if canAsk && !s.asked {
				t.Errorf("%s: a rewrite went ahead without asking: %+v", ag.Name, s)
			}
			s = f.fire(native("before_tool_call"), tool("deploy prod"))
			switch {
			case canAsk:
				if !s.asked || s.reason != "deploys need a human" {
					t.Errorf("ask: %+v", s)
				}
			default: // cannot ask: documented as a deny that says so
				if !s.denied || !strings.Contains(s.reason, "deploys need a human") {
					t.Errorf("ask on %s: %+v", ag.Name, s)
				}
			}
			s = f.fire(native("before_tool_call"), tool("go test ./..."))
			if s.denied || s.asked || string(s.input) != `{"command":"go test ./..."}` {
				t.Errorf("a harmless call: %+v", s)
			}

			s = f.fire(native("session_start"), map[string]any{"session_id": "s1", "source": "startup", "cwd": h.project})
			if !strings.Contains(s.context, "this project uses tabs") {
				t.Errorf("session context: %+v", s)
			}

			stop := map[string]any{"session_id": "s1", "cwd": h.project, "stop_hook_active": false}
			s = f.fire(native("agent_stop"), stop)
			if !noKeepGoing && !strings.Contains(s.keepGoing, "run the tests before stopping") {
				t.Errorf("stop follow-up: %+v", s)
			}
			stop["stop_hook_active"] = true
			if s = f.fire(native("agent_stop"), stop); s.keepGoing != "" {
				t.Errorf("the loop does not end: %+v", s)
			}

			s = f.fire(native("user_message_send"), map[string]any{"session_id": "s1", "cwd": h.project, "prompt": "my password is hunter2"})
			if !s.denied || !strings.Contains(s.reason, "do not paste passwords") {
				t.Errorf("prompt block: %+v", s)
			}
		})
	}
}

// TestHookRunFormatNeverExitsTwo: to an agent, exit 2 means "block" (on
// a stop, "keep going"); quiver's own errors under --format exit 1.
func TestHookRunFormatNeverExitsTwo(t *testing.T) {
	t.Parallel() // its own project, home and git server
	h := agentHarness(t)
	for _, args := range [][]string{
		{"hook", "run", "--format", "claude", "--no-such-flag", "before_tool_call"},
		{"hook", "run", "--format", "claude", "no_such_event"},
		{"hook", "run", "--format", "claude"},
		{"hook", "run", "--format=nobody", "before_tool_call"},
		{"hook", "run", "--format", "claude", "--timeout", "soon", "agent_stop"},
	} {
		if r := h.run("{}", args...); r.code != 1 {
			t.Errorf("%s", r)
		}
	}
	if r := h.run("not json", "hook", "run", "--format", "claude", "Stop"); r.code != 1 {
		t.Errorf("%s", r)
	}
}

// TestAgentLinksLeaveUsersFilesAlone: a user's own skill folder with the
// name of a quiver skill survives install, sync, plugin changes and
// remove; quiver copies its skill under the prefixed name instead.
func TestAgentLinksLeaveUsersFilesAlone(t *testing.T) {
	t.Parallel() // its own project, home and git server
	h := agentHarness(t)
	mine := filepath.Join(h.project, ".claude", "skills", "review")
	os.MkdirAll(mine, 0o755)
	os.WriteFile(filepath.Join(mine, "SKILL.md"), []byte("---\nname: review\ndescription: mine\n---\nmy own\n"), 0o644)
	h.must("plugin", "add", examplePlugin(t))
	h.must("agent", "install", "claude")
	link := filepath.Join(h.project, ".claude", "skills", "acme-guard-review")
	// A project plugin's skill is a copy of the trusted content.
	if fi, err := os.Lstat(link); err != nil || !fi.IsDir() {
		t.Fatalf("the plugin's skill is not copied under its full name: %v", err)
	}
	if data, err := os.ReadFile(filepath.Join(link, "SKILL.md")); err != nil || !strings.Contains(string(data), "name: acme-guard-review\n") ||
		!strings.Contains(string(data), "Review a change for correctness") {
		t.Fatalf("the copy is not the plugin's skill under the name it is placed by: %q %v", data, err)
	}
	check := func(when string) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(mine, "SKILL.md"))
		if err != nil || !strings.Contains(string(data), "my own") {
			t.Fatalf("%s: the user's skill is gone or changed: %v", when, err)
		}
	}
	check("install")
	h.must("agent", "sync")
	check("sync")
	h.must("plugin", "disable", "acme/guard")
	check("disable")
	if _, err := os.Lstat(link); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the disabled plugin's skill is still linked")
	}
	h.must("plugin", "enable", "acme/guard")
	if _, err := os.Stat(filepath.Join(link, "SKILL.md")); err != nil {
		t.Errorf("enable did not copy the skill again: %v", err)
	}
	// A link the user replaced with a folder of their own is theirs now.
	cmdLink := filepath.Join(h.project, ".claude", "commands", "code-review.md")
	os.Remove(cmdLink)
	os.WriteFile(cmdLink, []byte("my command\n"), 0o644)
	h.must("plugin", "remove", "acme/guard")
	check("plugin remove")
	if data, _ := os.ReadFile(cmdLink); string(data) != "my command\n" {
		t.Errorf("quiver removed or changed the user's command: %q", data)
	}
	h.must("agent", "remove", "claude")
	check("agent remove")
}

// TestAgentReadmeStory is the README's "Use it with your agent" story: in
// a fresh project, add the bundled example plugin, wire Claude Code, and
// the example's guard blocks `rm -rf /` as Claude Code would see it.
func TestAgentReadmeStory(t *testing.T) {
	t.Parallel() // its own project, home and git server
	h := agentHarness(t)
	h.must("plugin", "add", examplePlugin(t))
	h.must("agent", "install", "claude")
	f := &fakeAgent{t: t, h: h, ag: agents.Claude, config: filepath.Join(h.project, ".claude", "settings.json")}
	s := f.fire("PreToolUse", map[string]any{"session_id": "s1", "cwd": h.project, "tool_name": "Bash",
		"tool_input": map[string]any{"command": "rm -rf /"}, "tool_use_id": "t1"})
	if !s.denied || s.reason != "rm -rf is not allowed by acme/guard" {
		t.Fatalf("Claude Code would not have been stopped: %+v", s)
	}
	if s = f.fire("PreToolUse", map[string]any{"session_id": "s1", "cwd": h.project, "tool_name": "Bash",
		"tool_input": map[string]any{"command": "ls"}}); s.denied || s.asked {
		t.Fatalf("a harmless call was stopped: %+v", s)
	}
}

// TestHookRunFormatFailsClosed: with --fail-closed, quiver's own failure
// before any hook runs (bad input, no home, a bad timeout) is the
// agent's deny, never "proceed".
func TestHookRunFormatFailsClosed(t *testing.T) {
	t.Parallel() // its own project, home and git server
	h := agentHarness(t)
	for _, c := range []struct {
		stdin string
		env   []string
		args  []string
	}{
		{"not json", nil, nil},
		{"{}", []string{"QUIVER_HOME=", "HOME="}, nil},
		{"{}", []string{"QUIVER_HOOK_TIMEOUT=soon"}, nil},
		{"{}", []string{"QUIVER_PROJECT_DIR=/nowhere/at/all"}, nil},
	} {
		r := h.with(c.env...).run(c.stdin, append([]string{"hook", "run", "--format", "claude", "--fail-closed", "PreToolUse"}, c.args...)...)
		if r.code != 0 || !strings.Contains(r.stdout, `"permissionDecision":"deny"`) || !strings.Contains(r.stdout, "failing closed") {
			t.Errorf("%v %q: %s", c.env, c.stdin, r)
		}
		// Without --fail-closed it is a non-blocking error: exit 1.
		r = h.with(c.env...).run(c.stdin, "hook", "run", "--format", "claude", "PreToolUse")
		if r.code != 1 || r.stdout != "" {
			t.Errorf("without --fail-closed, %v %q: %s", c.env, c.stdin, r)
		}
	}
	if r := h.run("{}", "hook", "run", "--", "--format", "claude", "PreToolUse"); r.code != 1 {
		t.Errorf("--format after --: %s", r)
	}
}

// TestAgentRepositoryCannotRedirect: what a repository commits (a link for
// .claude or for settings.json, an agents.yaml naming links and agents)
// never makes quiver edit, delete or link anything outside the agent's
// own files in this project.
func TestAgentRepositoryCannotRedirect(t *testing.T) {
	t.Parallel() // its own project, home and git server
	h := agentHarness(t)
	global := filepath.Join(h.home, ".claude")
	os.MkdirAll(global, 0o755)
	secret := `{"env": {"API_KEY": "sk-secret"}}`
	os.WriteFile(filepath.Join(global, "settings.json"), []byte(secret), 0o600)

	// .claude committed as a link to the user's own folder.
	os.Symlink(global, filepath.Join(h.project, ".claude"))
	if r := h.run("", "agent", "install", "claude"); r.code != 1 || !strings.Contains(r.stderr, "symbolic link") {
		t.Errorf(".claude as a link: %s", r)
	}
	os.Remove(filepath.Join(h.project, ".claude"))
	// settings.json committed as a link to the user's global settings.
	os.MkdirAll(filepath.Join(h.project, ".claude"), 0o755)
	os.Symlink(filepath.Join(global, "settings.json"), filepath.Join(h.project, ".claude", "settings.json"))
	if r := h.run("", "agent", "install", "claude"); r.code != 1 || !strings.Contains(r.stderr, "symbolic link") {
		t.Errorf("settings.json as a link: %s", r)
	}
	if r := h.run("", "agent", "remove", "claude"); r.code != 1 {
		t.Errorf("remove through a link: %s", r)
	}
	if data, _ := os.ReadFile(filepath.Join(global, "settings.json")); string(data) != secret {
		t.Errorf("the user's global settings changed: %s", data)
	}
	if fi, err := os.Lstat(filepath.Join(h.project, ".claude", "settings.json")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the committed link was replaced: %v", err)
	}

	// An agents.yaml that records a link of the user's and an agent the
	// user never wired.
	os.Symlink("/usr/bin/python3", filepath.Join(h.project, "python"))
	os.MkdirAll(filepath.Join(h.project, ".quiver"), 0o755)
	os.WriteFile(filepath.Join(h.project, ".quiver", "agents.yaml"), []byte(`version: 1
agents:
  codex:
    command: quiver
    links:
      - {path: python, target: /usr/bin/python3, item: x}
`), 0o644)
	h.must("plugin", "add", examplePlugin(t))
	h.must("agent", "sync")
	if _, err := os.Readlink(filepath.Join(h.project, "python")); err != nil {
		t.Errorf("a link named by a committed agents.yaml was removed: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(h.project, ".agents")); err == nil {
		t.Errorf("skills were linked for an agent the user never wired")
	}
}

// TestAgentKeepsUsersQuiverEntry: an entry the user wrote that calls
// quiver differently (--fail-closed) is theirs: install adds quiver's
// beside it, remove leaves it.
func TestAgentKeepsUsersQuiverEntry(t *testing.T) {
	t.Parallel() // its own project, home and git server
	h := agentHarness(t)
	config := filepath.Join(h.project, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(config), 0o755)
	mine := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "quiver hook run --format claude --fail-closed before_tool_call"}]}]}}`
	os.WriteFile(config, []byte(mine), 0o644)
	h.must("agent", "install", "claude")
	data, _ := os.ReadFile(config)
	if !strings.Contains(string(data), "--fail-closed before_tool_call") {
		t.Fatalf("install changed the user's entry:\n%s", data)
	}
	h.must("agent", "remove", "claude")
	if data, _ := os.ReadFile(config); string(data) != mine {
		t.Errorf("remove did not give the user's file back:\n%s", data)
	}
}

// fireOpenCode runs quiver's generated plugin under node, as OpenCode
// 1.18 calls it: the hook function for the event, awaited, with the
// objects it may change; quiver is the harness's. A session's context
// reaches the model with its first message, and a stop runs after a
// message, so those events send one first.
func (f *fakeAgent) fireOpenCode(event string, input map[string]any) seen {
	f.t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		f.t.Skip("node is not installed")
	}
	dir := f.t.TempDir()
	plugin, err := os.ReadFile(f.config)
	if err != nil {
		f.t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "quiver.mjs"), plugin, 0o644)
	os.WriteFile(filepath.Join(dir, "driver.mjs"), []byte(openCodeDriver), 0o644)
	in, _ := json.Marshal(input)
	cmd := exec.Command(node, filepath.Join(dir, "driver.mjs"), f.h.project, event, string(in))
	cmd.Dir, cmd.Env = f.h.project, f.h.env
	out, err := cmd.Output()
	if err != nil {
		f.t.Fatalf("opencode %s: %v\n%s", event, err, out)
	}
	var r struct {
		Threw   *string         `json:"threw"`
		Args    json.RawMessage `json:"args"`
		Context string          `json:"context"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		f.t.Fatalf("opencode %s: %q", event, out)
	}
	var s seen
	if r.Threw != nil {
		s.denied, s.reason = true, *r.Threw
	}
	s.input, s.context = r.Args, r.Context
	return s
}

const openCodeDriver = `import { QuiverHooks } from "./quiver.mjs";
const [dir, event, raw] = process.argv.slice(2);
const input = JSON.parse(raw);
const id = input.session_id || "s1";
const h = await QuiverHooks({ directory: dir, worktree: dir });
const result = {};
const message = async (text) => {
  const out = { message: {}, parts: [{ id: "prt_1", sessionID: id, messageID: "m1", type: "text", text }] };
  await h["chat.message"]({ sessionID: id, agent: "build" }, out);
  result.context = out.parts.filter((p) => p.synthetic).map((p) => p.text).join("\n\n");
};
try {
  switch (event) {
    case "tool.execute.before": {
      const output = { args: input.tool_input };
      await h[event]({ tool: input.tool_name, sessionID: id, callID: "c1" }, output);
      result.args = output.args;
      break;
    }
    case "session.created":
      await h.event({ event: { type: event, properties: { info: { id } } } });
      await message("hello");
      break;
    case "session.idle":
      await message("hello");
      await h.event({ event: { type: event, properties: { sessionID: id } } });
      break;
    case "chat.message":
      await message(input.prompt);
      break;
  }
} catch (e) {
  result.threw = e.message;
}
console.log(JSON.stringify(result));
`
