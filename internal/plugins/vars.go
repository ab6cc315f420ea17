package plugins

import (
	"encoding/json"

	"github.com/quiver-cli/quiver/internal/lazy"
)

// varRef is a variable reference as Claude Code writes them in commands,
// skills, agents and server definitions: ${NAME} or ${NAME:-default};
// names may be dotted (${user_config.KEY}).
// Compiled at first use: package initialisation is paid by every run.
var varRef = lazy.Regexp{Expr: `\$\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)?)(?::-([^}]*))?\}`}

// Var is one reference found in a string.
type Var struct {
	Name, Default string
	HasDefault    bool
}

// MapVars rewrites every ${NAME} and ${NAME:-default} of s with what f
// says; the rest of s stays as it is.
func MapVars(s string, f func(v Var) string) string {
	re := varRef.Get()
	return re.ReplaceAllStringFunc(s, func(m string) string {
		sub := re.FindStringSubmatch(m)
		return f(Var{Name: sub[1], Default: sub[2], HasDefault: len(m) > len(sub[1])+3})
	})
}

// ExpandVars replaces the references to the variables vals names with
// their values; every other reference stays as it is written.
func ExpandVars(s string, vals map[string]string) string {
	return MapVars(s, func(v Var) string {
		if x, ok := vals[v.Name]; ok {
			return x
		}
		if v.HasDefault {
			return "${" + v.Name + ":-" + v.Default + "}"
		}
		return "${" + v.Name + "}"
	})
}

// HasVars reports whether s refers to any variable.
func HasVars(s string) bool { return varRef.Get().MatchString(s) }

// The variables Claude Code gives a plugin (SPEC §11, §16).
const (
	VarPluginRoot = "CLAUDE_PLUGIN_ROOT"
	VarPluginData = "CLAUDE_PLUGIN_DATA"
	VarProjectDir = "CLAUDE_PROJECT_DIR"
	// VarUserConfig prefixes a plugin setting: ${user_config.KEY}.
	VarUserConfig = "user_config."
)

// ServerDef is an MCP server definition in Claude Code's schema, as far as
// quiver carries it to other agents.
type ServerDef struct {
	// Type is "stdio" (or ""), "http", "sse" or "ws".
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// Stdio reports a server the agent starts as a program.
func (d ServerDef) Stdio() bool { return d.Type == "" || d.Type == "stdio" }

// Def reads the server's definition; fields of other types are an error.
func (s Server) Def() (ServerDef, error) {
	var d ServerDef
	if err := json.Unmarshal(s.Config, &d); err != nil {
		return d, err
	}
	return d, nil
}

// Map applies f to every string of the definition that may hold a
// variable: command, arguments, environment values, url, header values.
func (d ServerDef) Map(f func(string) string) ServerDef {
	out := ServerDef{Type: d.Type, Command: f(d.Command), URL: f(d.URL)}
	for _, a := range d.Args {
		out.Args = append(out.Args, f(a))
	}
	if d.Env != nil {
		out.Env = map[string]string{}
		for k, v := range d.Env {
			out.Env[k] = f(v)
		}
	}
	if d.Headers != nil {
		out.Headers = map[string]string{}
		for k, v := range d.Headers {
			out.Headers[k] = f(v)
		}
	}
	return out
}
