package plugins

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/quiver-cli/quiver/internal/lazy"
	"github.com/quiver-cli/quiver/internal/safefs"
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
// quiver judges it and carries it to other agents.
type ServerDef struct {
	// Type is "stdio" (or ""), "http", "sse" or "ws".
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// HeadersHelper is a command Claude Code runs to make a remote
	// server's headers: a program, judged like a command line.
	HeadersHelper string `json:"headersHelper,omitempty"`
}

// Stdio reports a server the agent starts as a program.
func (d ServerDef) Stdio() bool { return d.Type == "" || d.Type == "stdio" }

// serverKeys are the keys of a server definition quiver reads, and
// carries keys are those it passes on to Claude Code as written (data
// that starts nothing). Any other key reaches no agent: what an agent is
// handed is what quiver judged.
var (
	serverKeys  = []string{"type", "command", "args", "env", "url", "headers", "headersHelper"}
	carriesKeys = []string{"oauth", "timeout"}
)

// Def reads the server's definition with its keys exactly as written, as
// the agent reading the plugin's file does (Claude Code reads .mcp.json
// with JSON.parse: keys are case-sensitive, the last copy wins, as in
// encoding/json's maps). encoding/json's struct decoding would match keys
// in any case, so {"command": "/tmp/evil", "COMMAND": "npx"} would be
// judged as npx and run as /tmp/evil: a key that differs from one quiver
// reads only in case is refused, whichever way a reader takes it.
func (s Server) Def() (ServerDef, error) {
	var d ServerDef
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(s.Config, &raw); err != nil {
		return d, err
	}
	fields := map[string]any{"type": &d.Type, "command": &d.Command, "args": &d.Args, "env": &d.Env,
		"url": &d.URL, "headers": &d.Headers, "headersHelper": &d.HeadersHelper}
	for k, v := range raw {
		dst, ok := fields[k]
		if !ok {
			for _, name := range append(serverKeys, carriesKeys...) {
				if strings.EqualFold(k, name) {
					return d, fmt.Errorf("key %q differs from %q only in case; agents disagree on which one counts", safefs.Visible(k), name)
				}
			}
			continue
		}
		if string(v) == "null" {
			continue
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return d, fmt.Errorf("%s: %v", k, err)
		}
	}
	return d, nil
}

// Carried is the server's definition as quiver hands it to an agent that
// reads Claude Code's format (Claude Code's own view of the plugin): the
// keys quiver reads and judges, and the data keys it carries, as written;
// dropped names every other key, which reaches no agent.
func (s Server) Carried() (def json.RawMessage, dropped []string, err error) {
	if _, err := s.Def(); err != nil {
		return nil, nil, err
	}
	var raw map[string]json.RawMessage
	json.Unmarshal(s.Config, &raw)
	for k := range raw {
		if !slices.Contains(serverKeys, k) && !slices.Contains(carriesKeys, k) {
			dropped = append(dropped, k)
			delete(raw, k)
		}
	}
	slices.Sort(dropped)
	def, err = json.Marshal(raw)
	return def, dropped, err
}

// Map applies f to every string of the definition that may hold a
// variable: command, arguments, environment values, url, header values.
func (d ServerDef) Map(f func(string) string) ServerDef {
	out := ServerDef{Type: d.Type, Command: f(d.Command), URL: f(d.URL), HeadersHelper: f(d.HeadersHelper)}
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
