package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/gitserver"
	"github.com/quiver-cli/quiver/internal/modelserver"
)

// A guard that cannot run blocks (issue 42, defect 1): the agent is
// started with a PATH on which quiver is not (an IDE, a GUI, another
// shell profile), the model would ask for a shell command, and the agent
// runs nothing: it blocks, saying why and how to mend it. The
// agents whose configurations quiver writes for a shell are driven for
// real: Claude Code (2.1.328) and Gemini CLI (0.61).
func TestRealAgentsBlockWhenQuiverCannotRun(t *testing.T) {
	type agent struct {
		name, env, tool string
		args            func(model string) ([]string, []string)
	}
	for _, a := range []agent{
		{"claude", "QUIVER_TEST_CLAUDE", "Bash", func(url string) ([]string, []string) {
			return claudeVars(url), []string{"-p", "run the probe", "--allowedTools", "Bash", "--output-format", "stream-json", "--verbose"}
		}},
		{"gemini", "QUIVER_TEST_GEMINI", "run_shell_command", func(url string) ([]string, []string) {
			return []string{"GEMINI_API_KEY=x", "GOOGLE_GEMINI_BASE_URL=" + url, "GEMINI_CLI_TRUST_WORKSPACE=true"},
				[]string{"-p", "run the probe", "--output-format", "stream-json", "--yolo", "-m", "gemini-2.5-flash"}
		}},
	} {
		t.Run(a.name, func(t *testing.T) {
			bin := realAgent(t, a.env)
			h := newHarness(t, gitserver.New(t, gitserver.Options{}))
			writeFile(t, filepath.Join(h.home, ".gemini", "settings.json"), `{"security": {"auth": {"selectedType": "gemini-api-key"}}}`)
			h.must("agent", "install", a.name) // the bare name, as a project's configuration has it
			marker := filepath.Join(h.project, "PROBE-RAN")
			model, err := modelserver.Start()
			if err != nil {
				t.Fatal(err)
			}
			defer model.Close()
			vars, args := a.args(model.URL)
			model.Tool = &modelserver.ToolUse{Name: a.tool, Input: map[string]any{"command": "touch " + marker, "description": "probe"}}
			// A PATH with the agent's node and the shell, and no quiver.
			env := agentEnv(h, vars...)
			for i, kv := range env {
				if strings.HasPrefix(kv, "PATH=") {
					env[i] = "PATH=" + filepath.Dir(nodePath(t)) + ":/usr/bin:/bin"
				}
			}
			out := runAgent(t, h, env, bin, args...)
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("%s ran the tool call though quiver could not be started\nagent output:\n%s", a.name, out)
			}
			// The prompt is blocked first (user_message_send is a guard
			// too), so the person is told, not the model.
			if !strings.Contains(out, "quiver could not be started") || !strings.Contains(out, "--command /absolute/path/to/quiver") {
				t.Errorf("%s did not say why it blocked, or how to mend it\nagent output:\n%s", a.name, out)
			}
		})
	}
}

// nodePath is node's path, which an agent run as a Node.js script needs
// on its PATH.
func nodePath(t *testing.T) string {
	p, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	return p
}
