package claude

import (
	"fmt"
	"strings"

	"github.com/quiver-cli/quiver/internal/lazy"
)

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

// execVar is a variable Claude Code expands in an exec-form handler's
// command and args.
var execVar = lazy.Regexp{Expr: `\$\{(CLAUDE_PROJECT_DIR|CLAUDE_PLUGIN_ROOT|CLAUDE_PLUGIN_DATA|user_config\.[^}]+)\}`}

// ExecArgv is an exec-form handler's command line: its command, then its
// args, each with ${CLAUDE_PROJECT_DIR}, ${CLAUDE_PLUGIN_ROOT},
// ${CLAUDE_PLUGIN_DATA} (from vars) and ${user_config.K} (from options)
// replaced by their values as plain text, in one pass, so a value is
// never read again (no shell reads them either). A ${user_config.K}
// without a value is an error naming K, as Claude Code refuses it.
func ExecArgv(command string, args []string, vars, options map[string]string) ([]string, error) {
	var missing string
	expand := func(s string) string {
		return execVar.Get().ReplaceAllStringFunc(s, func(m string) string {
			name := m[2 : len(m)-1]
			if key, ok := strings.CutPrefix(name, "user_config."); ok {
				v, ok := options[key]
				if !ok && missing == "" {
					missing = key
				}
				return v
			}
			return vars[name]
		})
	}
	argv := make([]string, 0, 1+len(args))
	argv = append(argv, expand(command))
	for _, a := range args {
		argv = append(argv, expand(a))
	}
	if missing != "" {
		return nil, fmt.Errorf("plugin option %q is not set", missing)
	}
	return argv, nil
}

// OptionVar is the variable a handler reads a plugin option from:
// CLAUDE_PLUGIN_OPTION_ and the key upper-cased, each character other
// than a letter, digit or _ made _, as Claude Code names it.
func OptionVar(key string) string {
	return "CLAUDE_PLUGIN_OPTION_" + strings.ToUpper(notWord.Get().ReplaceAllString(key, "_"))
}

var notWord = lazy.Regexp{Expr: `[^A-Za-z0-9_]`}

// EnvFileEvent reports the events on which Claude Code gives a handler
// CLAUDE_ENV_FILE (a file whose `export` lines reach the session's
// later commands).
func EnvFileEvent(claudeEvent string) bool {
	switch claudeEvent {
	case "SessionStart", "Setup", "CwdChanged", "FileChanged":
		return true
	}
	return false
}
