package claude

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/modelserver"
	"github.com/quiver-cli/quiver/internal/plugins/format"
)

// Claude's own payloads (SPEC §15): testdata/payloads holds one input per
// Claude event, each either captured from the real Claude Code 2.1.328
// (NAME.captured.json: TestRealClaudePayloads -update writes them) or,
// for the events a headless session cannot fire (Notification, Teammate,
// Task, Worktree, model switches, ...), written from the field lists of
// ../shared/notes/claude-hooks.md (NAME.notes.json).

// TestPayloadGoldens: for every event of Claude's, quiver knows it, its
// matcher reads a field Claude's payload has, and the input quiver builds
// for a Claude handler from it is Claude's own, field for field.
func TestPayloadGoldens(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "payloads", "*.json"))
	seen := map[string]bool{}
	for _, file := range files {
		name, source, _ := strings.Cut(strings.TrimSuffix(filepath.Base(file), ".json"), ".")
		t.Run(name, func(t *testing.T) {
			if source != "captured" && source != "notes" {
				t.Fatalf("%s: want NAME.captured.json or NAME.notes.json", file)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var p map[string]json.RawMessage
			if err := json.Unmarshal(data, &p); err != nil {
				t.Fatal(err)
			}
			var got string
			json.Unmarshal(p["hook_event_name"], &got)
			if got != name {
				t.Fatalf("hook_event_name %q in %s", got, file)
			}
			seen[name] = true
			event, ok := format.QuiverEvent(name)
			if !ok {
				t.Fatalf("%s is not a quiver event", name)
			}
			if f := format.MatchField(name); f != "" {
				if _, ok := p[f]; !ok {
					t.Errorf("the matcher of %s reads %s, which Claude's payload does not have", name, f)
				}
			}
			if format.ToolEvent(event) {
				for _, k := range []string{"tool_name", "tool_input"} {
					if _, ok := p[k]; !ok {
						t.Errorf("tool event %s without %s", name, k)
					}
				}
			}
			var back map[string]json.RawMessage
			if err := json.Unmarshal(Input(name, p), &back); err != nil {
				t.Fatal(err)
			}
			for k, v := range p {
				var a, b bytes.Buffer
				json.Compact(&a, back[k])
				json.Compact(&b, v)
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Errorf("Input changed %s: %s, was %s", k, back[k], v)
				}
			}
		})
	}
	for _, name := range claudeEvents() {
		if !seen[name] {
			t.Errorf("no payload of %s in testdata/payloads", name)
		}
	}
}

// claudeEvents lists Claude Code's events from quiver's table.
func claudeEvents() []string {
	var out []string
	for _, name := range format.Events() {
		e, _ := format.Lookup(name)
		out = append(out, e.Claude...)
	}
	return out
}

// TestRealClaudePayloads runs the real Claude Code (QUIVER_TEST_CLAUDE)
// headless against the scripted model server, with a settings.json hook
// on every event that keeps what Claude sent, through sessions that fire
// what a headless session can: a slash command, a tool that works, one
// that fails, one Claude asks permission for, a subagent. Each captured
// payload must have the fields of its golden file (a new Claude that
// renames one shows up here); -update rewrites the goldens, paths and
// ids made neutral.
func TestRealClaudePayloads(t *testing.T) {
	claude := os.Getenv("QUIVER_TEST_CLAUDE")
	if claude == "" {
		t.Skip("QUIVER_TEST_CLAUDE is not set")
	}
	home, project, capture := t.TempDir(), t.TempDir(), t.TempDir()
	hooks := map[string]any{}
	for _, name := range claudeEvents() {
		cmd := fmt.Sprintf("cat >> %s/%s.jsonl", capture, name)
		hooks[name] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}
	}
	settings, _ := json.Marshal(map[string]any{"hooks": hooks})
	write := func(path, body string) {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(project, ".claude", "settings.json"), string(settings))
	write(filepath.Join(project, ".claude", "commands", "hi.md"), "---\ndescription: Say hi\n---\nSay hi to $ARGUMENTS.\n")
	write(filepath.Join(project, "CLAUDE.md"), "# Project\nBe brief.\n")
	model, err := modelserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ANTHROPIC_BASE_URL=" + model.URL, "ANTHROPIC_API_KEY=x",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "ENABLE_TOOL_SEARCH=false", "NO_COLOR=1"}
	run := func(tool *modelserver.ToolUse, args ...string) {
		model.Tool = tool
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, claude, append([]string{"--output-format", "stream-json", "--verbose"}, args...)...)
		cmd.Dir, cmd.Env = project, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	bypass := []string{"--allowedTools", "Bash,Task,Agent"}
	run(&modelserver.ToolUse{Name: "Bash", Input: map[string]any{"command": "ls", "description": "list"}}, append([]string{"-p", "/hi there"}, bypass...)...)
	run(&modelserver.ToolUse{Name: "Bash", Input: map[string]any{"command": "exit 3", "description": "fail"}}, append([]string{"-p", "fail"}, bypass...)...)
	run(&modelserver.ToolUse{Name: "Bash", Input: map[string]any{"command": "touch x", "description": "ask"}}, "-p", "ask")
	run(&modelserver.ToolUse{Name: "Task", Input: map[string]any{"description": "helper", "prompt": "Say hi", "subagent_type": "general-purpose"}}, append([]string{"-p", "delegate"}, bypass...)...)

	captured, _ := filepath.Glob(filepath.Join(capture, "*.jsonl"))
	var names []string
	for _, file := range captured {
		name := strings.TrimSuffix(filepath.Base(file), ".jsonl")
		names = append(names, name)
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		sc.Scan() // the first of its kind
		f.Close()
		var p map[string]any
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		golden := filepath.Join("testdata", "payloads", name+".captured.json")
		if *update {
			neutral(p, map[string]string{project: "/project", home: "/home/user", os.TempDir(): "/tmp"})
			data, _ := json.MarshalIndent(p, "", "  ")
			os.Remove(filepath.Join("testdata", "payloads", name+".notes.json"))
			if err := os.WriteFile(golden, append(data, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var want map[string]any
		data, err := os.ReadFile(golden)
		if err != nil {
			t.Errorf("Claude fired %s, which has no captured golden (%v): run with -update", name, err)
			continue
		}
		json.Unmarshal(data, &want)
		for k := range want {
			if _, ok := p[k]; !ok {
				t.Errorf("%s: Claude no longer sends %s", name, k)
			}
		}
	}
	slices.Sort(names)
	t.Logf("events a headless Claude fired: %s", strings.Join(names, ", "))
}

// neutral replaces the run's own values in p (its folders, its session)
// with stable ones, so a golden file does not change from run to run.
func neutral(p map[string]any, paths map[string]string) {
	for k, v := range p {
		p[k] = neutralValue(k, v, paths)
	}
}

var uuid = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func neutralValue(k string, v any, paths map[string]string) any {
	switch v := v.(type) {
	case string:
		for from, to := range paths {
			v = strings.ReplaceAll(v, from, to)
			v = strings.ReplaceAll(v, strings.ReplaceAll(from, "/", "-"), strings.ReplaceAll(to, "/", "-"))
		}
		v = uuid.ReplaceAllString(v, "00000000-0000-0000-0000-000000000000")
		switch k {
		case "session_id", "prompt_id", "agent_id", "tool_use_id", "message_id", "turn_id":
			v = k + "-1"
		}
		return v
	case map[string]any:
		neutral(v, paths)
	case []any:
		for i := range v {
			v[i] = neutralValue("", v[i], paths)
		}
	}
	return v
}
