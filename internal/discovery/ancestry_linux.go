package discovery

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// agentAncestor names an agent among this process's ancestors (its
// program, or the script a node or bun runs), "" when none is: a command
// an agent runs through its shell is its descendant however the command
// line clears the environment (env -u CLAUDECODE quiver trust).
func agentAncestor() string {
	pid := os.Getppid()
	for range 64 {
		if pid <= 1 {
			return ""
		}
		cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err == nil {
			args := bytes.Split(bytes.TrimRight(cmdline, "\x00"), []byte{0})
			for i, a := range args {
				if i > 1 {
					break
				}
				if name := agentProgram(filepath.Base(string(a))); name != "" {
					return name
				}
			}
		}
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return ""
		}
		// pid (comm) state ppid ...: comm may hold spaces and parens.
		rest := stat[bytes.LastIndexByte(stat, ')')+1:]
		fields := strings.Fields(string(rest))
		if len(fields) < 2 {
			return ""
		}
		if pid, err = strconv.Atoi(fields[1]); err != nil {
			return ""
		}
	}
	return ""
}
