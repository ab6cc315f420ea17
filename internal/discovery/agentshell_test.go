package discovery

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMarkAgentShell: the marker is appended to an absolute env file,
// created if need be; a relative path or a symlink is left alone.
func TestMarkAgentShell(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	file := filepath.Join(dir, "env")
	os.WriteFile(file, []byte("export A=1\n"), 0o600)
	env["CLAUDE_ENV_FILE"] = file
	MarkAgentShell(getenv)
	if data, _ := os.ReadFile(file); string(data) != "export A=1\nexport QUIVER_IN_AGENT=1\n" {
		t.Errorf("appended: %q", data)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(file, link)
	env["CLAUDE_ENV_FILE"] = link
	MarkAgentShell(getenv)
	if data, _ := os.ReadFile(file); string(data) != "export A=1\nexport QUIVER_IN_AGENT=1\n" {
		t.Errorf("through a link: %q", data)
	}
	env["CLAUDE_ENV_FILE"] = "relative"
	MarkAgentShell(getenv)
	if _, err := os.Stat("relative"); err == nil {
		t.Error("a relative path was written")
	}
}
