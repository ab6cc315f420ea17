package claude

import "strings"

// Vars are the variables a Claude handler gets, both in its environment
// and substituted into its command.
var Vars = []string{"CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA", "CLAUDE_PROJECT_DIR"}

// Command returns the handler's command with "${VAR}" of each variable
// in vars replaced by its value, as Claude does before handing the command
// to the shell. A value that is not plain (a folder named with quotes,
// '$' or spaces) is left as "${VAR}" for bash to expand from the
// environment instead: pasted into the command text it would be shell
// syntax, and a folder's name must never become code. Inside double
// quotes, where real handlers write these, both give the same string.
func Command(command string, vars map[string]string) string {
	for _, name := range Vars {
		v, ok := vars[name]
		if !ok || !plainValue(v) {
			continue
		}
		command = strings.ReplaceAll(command, "${"+name+"}", v)
	}
	return command
}

func plainValue(v string) bool {
	if v == "" {
		return false
	}
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@%=", r)) {
			return false
		}
	}
	return true
}
