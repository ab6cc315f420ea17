package discovery

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentSessionSeesAncestors: a quiver started (however deep) by a
// program named like an agent is in that agent's session, even with every
// marker cleared; markers count whatever their value.
func TestAgentSessionSeesAncestors(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if os.Getenv("QUIVER_TEST_ANCESTRY_CHILD") == "1" {
		if got := AgentSession(func(string) string { return "" }); got != "" {
			os.Stdout.WriteString(got)
		}
		return
	}
	empty := func(string) string { return "" }
	if got := AgentSession(empty); got != "" {
		t.Fatalf("this test runs inside %s", got)
	}
	if got := AgentSession(func(k string) string {
		if k == "CLAUDECODE" {
			return "0"
		}
		return ""
	}); got != "CLAUDECODE" {
		t.Errorf("CLAUDECODE=0 is not a session: %q", got)
	}
	// A shell named claude starts a shell that starts this test binary.
	claude := filepath.Join(t.TempDir(), "claude")
	if err := os.Symlink("/bin/sh", claude); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(claude, "-c", `sh -c "env -u CLAUDECODE \"$0\" -test.run=TestAgentSessionSeesAncestors"`, os.Args[0])
	cmd.Env = append(os.Environ(), "QUIVER_TEST_ANCESTRY_CHILD=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "a process of Claude Code") {
		t.Errorf("a grandchild of claude: %q", out)
	}
}
