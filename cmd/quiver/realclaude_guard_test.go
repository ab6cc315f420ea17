package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/modelserver"
)

// TestRealClaudeSecurityGuidanceAgrees drives the real Claude Code with
// the official security-guidance plugin installed by Claude Code itself
// and through quiver, on the same tool calls, and compares what the
// plugin's guard did: which of its handlers ran on which event and call
// (its `if: Bash(git commit:*)` handlers on compound commands included),
// and whether its warning reached the model. A shim in front of python3
// (which the plugin's sg-python.sh runs) keeps each handler's script and
// input; both installs see the same shim. Run with QUIVER_TEST_CLAUDE and
// QUIVER_TEST_SNAPSHOTS.
func TestRealClaudeSecurityGuidanceAgrees(t *testing.T) {
	claude := realAgent(t, "QUIVER_TEST_CLAUDE")
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	if real, err := exec.Command(python, "-c", "import sys; print(sys.executable)").Output(); err == nil {
		python = strings.TrimSpace(string(real)) // past a pyenv shim, which the shim would find again
	}
	shims, logs := t.TempDir(), t.TempDir()
	shim := fmt.Sprintf(`#!/bin/bash
if [ "$1" = -c ]; then exec %[1]q "$@"; fi
in=$(cat)
printf '%%s\t%%s\n' "$(basename "$1")" "$(printf '%%s' "$in" | tr -d '\n')" >> "$SG_SHIM_LOG"
printf '%%s' "$in" | exec %[1]q "$@"
`, python)
	for _, name := range []string{"python3", "python3.13", "python3.12", "python3.11", "python3.10", "python"} {
		writeFile(t, filepath.Join(shims, name), shim)
		os.Chmod(filepath.Join(shims, name), 0o755)
	}
	path := "PATH=" + shims + string(os.PathListSeparator) + os.Getenv("PATH")
	model, err := modelserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	// No network: the plugin's LLM review cannot reach a model anyway;
	// what is compared is which handlers ran, not what they found.
	own, ownEnv, q, qEnv := bothInstalls(t, claude, model, []string{"security-guidance"}, []string{"ENABLE_CODE_SECURITY_REVIEW=0"})
	for i := range ownEnv {
		if strings.HasPrefix(ownEnv[i], "PATH=") {
			ownEnv[i] = path
		}
	}
	for i := range qEnv {
		if strings.HasPrefix(qEnv[i], "PATH=") {
			qEnv[i] = path
		}
	}
	for _, h := range []*harness{own, q} {
		for _, c := range [][]string{{"init", "-q"}, {"config", "user.email", "t@example.com"}, {"config", "user.name", "t"}} {
			if out, err := exec.Command("git", append([]string{"-C", h.project}, c...)...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", c, err, out)
			}
		}
	}

	calls := []modelserver.ToolUse{
		{Name: "Bash", Input: map[string]any{"command": "git status", "description": "status"}},
		{Name: "Bash", Input: map[string]any{"command": "git commit --allow-empty -m one", "description": "commit"}},
		{Name: "Bash", Input: map[string]any{"command": "ls && git commit --allow-empty -m two", "description": "compound"}},
		{Name: "Bash", Input: map[string]any{"command": "FOO=1 git commit --allow-empty -m three", "description": "assignment"}},
		{Name: "Bash", Input: map[string]any{"command": "bash -c 'git commit --allow-empty -m four'", "description": "nested"}},
		{Name: "Write", Input: map[string]any{"file_path": "WORKDIR/.github/workflows/ci.yml", "content": "on: push\njobs: {}\n"}},
	}
	type verdict struct {
		ran    []string
		warned bool
	}
	run := func(h *harness, env []string, call modelserver.ToolUse) verdict {
		log := filepath.Join(logs, fmt.Sprintf("%p-%d.log", h, len(call.Name)+len(fmt.Sprint(call.Input))))
		os.Remove(log)
		in := map[string]any{}
		for k, v := range call.Input {
			if s, ok := v.(string); ok {
				v = strings.ReplaceAll(s, "WORKDIR", h.project)
			}
			in[k] = v
		}
		model.Tool = &modelserver.ToolUse{Name: call.Name, Input: in}
		before := len(model.Requests())
		runAgent(t, h, append(env, "SG_SHIM_LOG="+log), claude, "-p", "go", "--allowedTools", "Bash,Write",
			"--output-format", "stream-json", "--verbose")
		var v verdict
		for _, r := range model.Requests()[before:] {
			v.warned = v.warned || strings.Contains(string(r.Body), "GitHub Actions workflow")
		}
		if f, err := os.Open(log); err == nil {
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 4<<20)
			for sc.Scan() {
				script, input, _ := strings.Cut(sc.Text(), "\t")
				var p struct {
					Event string `json:"hook_event_name"`
					Tool  struct {
						Command string `json:"command"`
					} `json:"tool_input"`
				}
				json.Unmarshal([]byte(input), &p)
				if p.Event == "SessionStart" || p.Event == "Stop" || p.Event == "UserPromptSubmit" {
					continue // every session's, whatever the call
				}
				v.ran = append(v.ran, script+" "+p.Event+" "+p.Tool.Command)
			}
			f.Close()
		}
		slices.Sort(v.ran)
		return v
	}
	for _, call := range calls {
		o, g := run(own, ownEnv, call), run(q, qEnv, call)
		t.Logf("%s %v: Claude's own install ran %q (warned %v); quiver ran %q (warned %v)", call.Name, call.Input, o.ran, o.warned, g.ran, g.warned)
		if !slices.Equal(o.ran, g.ran) || o.warned != g.warned {
			t.Errorf("%s %v: Claude's own install ran %q and warned %v; through quiver %q and %v", call.Name, call.Input, o.ran, o.warned, g.ran, g.warned)
		}
	}
}
