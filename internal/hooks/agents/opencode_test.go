package agents

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/hooks"
)

func TestOpenCodeDecode(t *testing.T) {
	for _, c := range []struct {
		event, input string
		want         map[string]string
	}{
		{"before_tool_call", `{"hook_event_name":"tool.execute.before","session_id":"ses_1","directory":"/tmp/p","tool_name":"bash","tool_input":{"command":"ls"},"call_id":"toolu_1"}`,
			map[string]string{"conv_id": `"ses_1"`, "cwd": `"/tmp/p"`, "tool_name": `"bash"`, "tool_input": `{"command":"ls"}`}},
		{"user_message_send", `{"session_id":"ses_1","directory":"/tmp/p","prompt":"hello"}`, map[string]string{"message": `"hello"`}},
		{"agent_stop", `{"session_id":"ses_1","directory":"/tmp/p"}`, map[string]string{"invoked_by": `"main"`}},
		{"session.idle", `{"session_id":"ses_2","directory":"/tmp/p","parent_id":"ses_2"}`, map[string]string{"invoked_by": `"subagent"`}},
	} {
		call, err := OpenCode.Decode(c.event, []byte(c.input))
		if err != nil {
			t.Fatalf("%s: %v", c.event, err)
		}
		for k, v := range c.want {
			if got := string(call.Payload[k]); got != v {
				t.Errorf("%s: %s = %s, want %s", c.event, k, got, v)
			}
		}
	}
	if root := OpenCode.SessionRoot(func(string) string { return "" }, []byte(`{"directory":"/tmp/p"}`)); root != "/tmp/p" {
		t.Errorf("the session's project is %q", root)
	}
}

func TestOpenCodeEncode(t *testing.T) {
	ctx := &[]hooks.Text{{Hook: "h", Text: "tabs"}}
	for _, c := range []struct {
		name, event string
		r           hooks.Result
		want        string
	}{
		{"block", "before_tool_call", hooks.Result{Blocked: true, Reason: "no"}, `{"decision":"block","reason":"no"}`},
		{"ask is a block", "before_tool_call", hooks.Result{Decision: hooks.Ask, Reason: "a human"}, `{"decision":"block","reason":"this needs the user's approval, which OpenCode cannot ask for from a plugin: a human"}`},
		{"rewrite", "before_tool_call", hooks.Result{Input: json.RawMessage(`{"command":"ls -la"}`)}, `{"args":{"command":"ls -la"}}`},
		{"output and context", "after_tool_call", hooks.Result{Output: json.RawMessage(`"short"`), Context: ctx}, `{"output":"short","context":"[h] tabs"}`},
		{"output as JSON", "after_tool_call", hooks.Result{Output: json.RawMessage(`{"a":1}`)}, `{"output":"{\"a\":1}"}`},
		{"session context", "session_start", hooks.Result{Context: ctx}, `{"context":"[h] tabs"}`},
		{"prompt block", "user_message_send", hooks.Result{Blocked: true, Reason: "secret"}, `{"decision":"block","reason":"secret"}`},
		{"stop says nothing", "agent_stop", hooks.Result{FollowUpMessages: &[]json.RawMessage{json.RawMessage(`"more"`)}}, `{}`},
	} {
		ev, _ := OpenCode.Resolve(c.event)
		ans := OpenCode.Encode(Call{Event: ev.Quiver, Native: ev.Native}, &c.r, Options{})
		if string(ans.Stdout) != c.want || ans.Exit != 0 {
			t.Errorf("%s: %s (exit %d), want %s", c.name, ans.Stdout, ans.Exit, c.want)
		}
	}
}

// TestOpenCodeSubagent: OpenCode refuses to start on frontmatter it does
// not take, so only its keys are written; Claude's allow-list of tools
// becomes a deny of every OpenCode tool not on it.
func TestOpenCodeSubagent(t *testing.T) {
	out, dropped, err := opencodeSubagent(map[string]any{"name": "helper", "description": "Helps", "tools": "Read, Grep, Bash(git:*), mcp__x__y",
		"disallowedTools": []any{"WebFetch"}, "model": "sonnet", "color": "blue"}, "You help.\n", "helper")
	if err != nil {
		t.Fatal(err)
	}
	want := "---\ndescription: Helps\nmode: subagent\npermission:\n    edit: deny\n    glob: deny\n    list: deny\n    skill: deny\n    task: deny\n    todowrite: deny\n    webfetch: deny\n    websearch: deny\n---\nYou help.\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if got := strings.Join(dropped, ", "); got != "color, model, tool mcp__x__y" {
		t.Errorf("dropped %s", got)
	}
	out, _, _ = opencodeSubagent(map[string]any{"description": "x", "color": "#FF5733"}, "", "x")
	if !strings.Contains(string(out), "color: '#FF5733'") || strings.Contains(string(out), "permission") {
		t.Errorf("a valid color, no tools:\n%s", out)
	}
	if _, _, err := opencodeSubagent(map[string]any{"name": "x"}, "", "x"); err == nil {
		t.Error("a subagent without a description was written")
	}
	cmd, dropped, _ := opencodeCommand(map[string]any{"description": "Say hi", "allowed-tools": "Read", "model": "sonnet"}, "Greet $ARGUMENTS.\n", "hi")
	if string(cmd) != "---\ndescription: Say hi\n---\nGreet $ARGUMENTS.\n" || strings.Join(dropped, ",") != "allowed-tools,model" {
		t.Errorf("command:\n%s\ndropped %v", cmd, dropped)
	}
}

// TestOpenCodePlugin runs the plugin quiver generates the way OpenCode
// 1.18 calls it (its hook functions, awaited, with the objects they may
// change), under node, with a stand-in quiver that answers by event. It
// checks what OpenCode would do next: a thrown Error blocks, arguments
// change in place, the tool's output and the message get quiver's
// context, a second idle runs no second stop, and a quiver that fails
// blocks nothing.
func TestOpenCodePlugin(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	fake := filepath.Join(dir, "bin", "fake quiver")
	os.MkdirAll(filepath.Dir(fake), 0o755)
	os.WriteFile(fake, []byte(`#!/bin/sh
in=$(cat)
event=$(eval echo \${$#})
printf '%s %s\n' "$*" "$in" >> "`+log+`"
case "$event:$in" in
before_tool_call:*rm\ -rf*) echo '{"decision":"block","reason":"rm -rf is not allowed"}' ;;
before_tool_call:*'"ls"'*) echo '{"args":{"command":"ls -la"}}' ;;
before_tool_call:*crash*) exit 1 ;;
after_tool_call:*) echo '{"output":"short","context":"[h] after"}' ;;
session_start:*) echo '{"context":"[h] tabs"}' ;;
user_message_send:*password*) echo '{"decision":"block","reason":"no passwords"}' ;;
user_message_send:*) echo '{"context":"[h] prompt"}' ;;
*) echo '{}' ;;
esac
`), 0o755)
	plugin := filepath.Join(dir, "quiver.mjs")
	os.WriteFile(plugin, opencodePlugin(OpenCode, fake, false), 0o644)
	driver := filepath.Join(dir, "driver.mjs")
	os.WriteFile(driver, []byte(`import { QuiverHooks } from "./quiver.mjs";
const out = (k, v) => console.log(JSON.stringify([k, v]));
const h = await QuiverHooks({ directory: process.argv[2], worktree: process.argv[2] });
const tryIt = async (k, f) => { try { await f(); out(k, "ran"); } catch (e) { out(k, "threw: " + e.message); } };
await h.event({ event: { type: "session.created", properties: { info: { id: "s1" } } } });
const msg = { message: {}, parts: [{ id: "prt_1", sessionID: "s1", messageID: "m1", type: "text", text: "hello" }] };
await tryIt("message", () => h["chat.message"]({ sessionID: "s1", agent: "build" }, msg));
out("parts", msg.parts.map((p) => [p.id, p.text, !!p.synthetic]));
await tryIt("rm", () => h["tool.execute.before"]({ tool: "bash", sessionID: "s1", callID: "c1" }, { args: { command: "rm -rf /" } }));
const args = { command: "ls", extra: 1 };
await tryIt("ls", () => h["tool.execute.before"]({ tool: "bash", sessionID: "s1", callID: "c2" }, { args }));
out("args", args);
await tryIt("crash", () => h["tool.execute.before"]({ tool: "bash", sessionID: "s1", callID: "c3" }, { args: { command: "crash" } }));
const result = { title: "ls", output: "a very long listing", metadata: {} };
await h["tool.execute.after"]({ tool: "bash", sessionID: "s1", callID: "c2", args }, result);
out("output", result.output);
await h.event({ event: { type: "session.idle", properties: { sessionID: "s1" } } });
await h.event({ event: { type: "session.idle", properties: { sessionID: "s1" } } });
await tryIt("password", () => h["chat.message"]({ sessionID: "s1" }, { message: {}, parts: [{ id: "prt_2", type: "text", text: "my password" }] }));
`), 0o644)
	cmd := exec.Command(node, driver, dir)
	cmd.Dir = dir
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, got)
	}
	want := `["message","ran"]
["parts",[["prt_1","hello",false],["prt_1q","[h] tabs\n\n[h] prompt",true]]]
["rm","threw: rm -rf is not allowed"]
["ls","ran"]
["args",{"command":"ls -la"}]
["crash","ran"]
["output","short\n\n[h] after"]
["password","threw: no passwords"]
`
	if string(got) != want {
		t.Errorf("OpenCode would have seen:\n%s\nwant:\n%s", got, want)
	}
	calls, _ := os.ReadFile(log)
	for _, w := range []string{
		`hook run --format opencode session_start {"hook_event_name":"session.created","session_id":"s1","directory":"` + dir + `"`,
		`hook run --format opencode before_tool_call {"hook_event_name":"tool.execute.before","session_id":"s1","directory":"` + dir + `","worktree":"` + dir + `","tool_name":"bash","tool_input":{"command":"rm -rf /"},"call_id":"c1"}`,
		`after_tool_call {"hook_event_name":"tool.execute.after","session_id":"s1","directory":"` + dir + `","worktree":"` + dir + `","tool_name":"bash","tool_input":{"command":"ls -la"},"call_id":"c2","tool_output":"a very long listing","title":"ls"}`,
	} {
		if !strings.Contains(string(calls), w) {
			t.Errorf("quiver was not called with %s\ncalls:\n%s", w, calls)
		}
	}
	if n := strings.Count(string(calls), " agent_stop "); n != 1 {
		t.Errorf("%d agent_stop calls for one turn:\n%s", n, calls)
	}
}

// TestOpenCodePluginQuotesQuiver: the quiver to run is data in the
// generated program, whatever its path holds: a path that tries to close
// the string and run code only names a program that does not exist, and
// a quiver that cannot be started blocks the tool call, saying how to
// mend it (a guard that cannot run blocks, issue 42).
func TestOpenCodePluginQuotesQuiver(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	dir := t.TempDir()
	pwned := filepath.Join(dir, "pwned")
	evil := "/x\"; require('fs').writeFileSync(" + string(marshal(pwned)) + ", ''); //\n`${process.exit(3)}`</script>\u2028"
	os.WriteFile(filepath.Join(dir, "quiver.mjs"), opencodePlugin(OpenCode, evil, false), 0o644)
	os.WriteFile(filepath.Join(dir, "driver.mjs"), []byte(`import { QuiverHooks } from "./quiver.mjs";
const h = await QuiverHooks({ directory: process.argv[2], worktree: process.argv[2] });
const output = { args: { command: "ls" } };
try {
  await h["tool.execute.before"]({ tool: "bash", sessionID: "s1", callID: "c1" }, output);
  console.log("ran");
} catch (e) {
  console.log("threw: " + e.message);
}
await h["tool.execute.after"]({ tool: "bash", sessionID: "s1", callID: "c1", args: {} }, { output: "out" });
console.log("after ran");
`), 0o644)
	out, err := exec.Command(node, filepath.Join(dir, "driver.mjs"), dir).CombinedOutput()
	if want := "threw: " + OpenCode.cannotRun() + "\nafter ran\n"; err != nil || string(out) != want {
		t.Errorf("the plugin did not just fail to find the program, blocking the tool call: %v\n%s\nwant:\n%s", err, out, want)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Error("a quiver path ran code in OpenCode")
	}
}
