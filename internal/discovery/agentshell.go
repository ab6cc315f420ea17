package discovery

import (
	"os"
	"path/filepath"
)

// MarkAgentShell exports QUIVER_IN_AGENT=1 into the agent's own shell
// where the agent offers a way (Claude's CLAUDE_ENV_FILE, a file of
// exports it sources before each Bash call it starts, given to SessionStart
// hooks), so that a quiver trust an agent runs from its Bash tool is
// refused even where the agent's own marker is missing (SPEC §9). The file
// is appended to only when it is a regular file or does not exist yet.
func MarkAgentShell(getenv func(string) string) {
	path := getenv("CLAUDE_ENV_FILE")
	if path == "" || !filepath.IsAbs(path) {
		return
	}
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		f.WriteString("export QUIVER_IN_AGENT=1\n")
	}
}
