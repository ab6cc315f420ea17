package agents

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// MCP servers for agents without Claude's plugin loader (SPEC §16): each
// server becomes an entry of the agent's MCP configuration, named
// <org>-<plugin>-<server>, with ${CLAUDE_PLUGIN_ROOT} and friends
// expanded and ${VAR} written in the agent's own syntax. A project
// plugin's server is written only while the project is trusted, and only
// as `quiver mcp exec`, which checks trust again before it starts
// anything: a project's configuration files are committed, and a
// teammate's agent must start nothing their own quiver has not trusted.

// mcpFormat is how one agent keeps MCP servers.
type mcpFormat struct {
	// Local and Global are the file, relative to the project and to the
	// home folder ("" where the agent has none in that scope); Keys lead
	// to the object of servers.
	Local, Global string
	Keys          []string
	Comments      bool
	// Ref writes a reference to environment variable name; Defaults says
	// the agent takes ${NAME:-default} as Claude does.
	Ref      func(name string) string
	Defaults bool
	// Stdio and Remote write one server's entry.
	Stdio  func(argv []string, env map[string]string) map[string]any
	Remote func(kind, url string, headers map[string]string) map[string]any
}

// mcpFile is the agent's MCP file for the site ("" for none).
func (f *mcpFormat) file(site Site) string {
	rel := f.Global
	if site.Scope.Location == plugins.Local {
		rel = f.Local
	}
	if rel == "" {
		return ""
	}
	return filepath.Join(site.Base, filepath.FromSlash(rel))
}

// ServerName is a server's name where the agent has no plugin namespace:
// the plugin's prefixed name with / as -, then the server's.
func ServerName(p plugins.Name, server string) string {
	return p.Org() + "-" + p.Repo() + "-" + server
}

// mcpParts plans the MCP entries of the site's plugins for an agent with
// format f.
func mcpParts(w *Wirer, site Site, d Docs, f *mcpFormat, quiver string) Plan {
	var plan Plan
	file := f.file(site)
	if file == "" {
		return plan
	}
	var members []wiring.Member
	for _, p := range scopePlugins(site, d) {
		parts := p.Parts()
		for _, s := range parts.MCP {
			entry, missed := f.entry(site, p, s, quiver)
			if missed != "" {
				plan.Missed = append(plan.Missed, fmt.Sprintf("MCP server %s of %s: %s", s.Name, p.Name, missed))
			}
			if entry == nil {
				continue
			}
			v, err := json.Marshal(entry)
			if err != nil {
				continue
			}
			keys := append(append([]string(nil), f.Keys...), ServerName(p.Name, s.Name))
			members = append(members, wiring.Member{Keys: keys, Value: v})
		}
	}
	sort.Slice(members, func(i, j int) bool {
		return strings.Join(members[i].Keys, "\x00") < strings.Join(members[j].Keys, "\x00")
	})
	plan.add(file, f.Comments, members...)
	return plan
}

// entry is server s of plugin p as the agent writes it, or nil with the
// reason it cannot be written.
func (f *mcpFormat) entry(site Site, p plugins.Plugin, s plugins.Server, quiver string) (map[string]any, string) {
	def, err := s.Def()
	if err != nil {
		return nil, "its definition is not Claude Code's: " + err.Error()
	}
	var dropped []string
	vals := pluginVars(site, p.Scope, p.Name)
	expand := func(v string) string {
		return plugins.MapVars(v, func(r plugins.Var) string {
			if x, ok := vals[r.Name]; ok {
				return x
			}
			if strings.Contains(r.Name, ".") {
				dropped = append(dropped, "${"+r.Name+"} (set it with quiver plugin config)")
				return ""
			}
			if r.HasDefault && !f.Defaults {
				dropped = append(dropped, fmt.Sprintf("the default of ${%s}", r.Name))
			}
			if f.Ref == nil {
				return "${" + r.Name + "}"
			}
			if r.HasDefault && f.Defaults {
				return "${" + r.Name + ":-" + r.Default + "}"
			}
			return f.Ref(r.Name)
		})
	}
	note := func() string {
		if len(dropped) == 0 {
			return ""
		}
		return "dropped " + strings.Join(dropped, ", ")
	}
	switch {
	case def.Stdio():
		if def.Command == "" {
			return nil, "it names no command"
		}
		// A project's server starts through quiver, which checks trust
		// again first; so does one whose arguments need a variable the
		// agent cannot expand.
		if site.Scope.Location == plugins.Local || (f.Ref == nil && needsVars(def)) {
			return f.Stdio(mcpExec(quiver, site, p.Name, s.Name), nil), ""
		}
		x := def.Map(expand)
		return f.Stdio(append([]string{x.Command}, x.Args...), x.Env), note()
	case def.Type == "http" || def.Type == "sse":
		if f.Remote == nil {
			return nil, "the agent takes no remote servers"
		}
		x := def.Map(expand)
		return f.Remote(def.Type, x.URL, x.Headers), note()
	}
	return nil, fmt.Sprintf("the agent takes no %q servers", def.Type)
}

// needsVars reports a stdio definition whose command or arguments refer to
// variables other than the plugin's own.
func needsVars(d plugins.ServerDef) bool {
	for _, s := range append([]string{d.Command}, d.Args...) {
		found := false
		plugins.MapVars(s, func(r plugins.Var) string {
			switch r.Name {
			case plugins.VarPluginRoot, plugins.VarPluginData, plugins.VarProjectDir:
			default:
				found = true
			}
			return ""
		})
		if found {
			return true
		}
	}
	return false
}

// mcpExec is the command line that starts a plugin's server through
// quiver: the scope and project named explicitly, so the agent's working
// folder decides nothing.
func mcpExec(quiver string, site Site, p plugins.Name, server string) []string {
	argv := []string{quiver, "mcp", "exec"}
	if site.Scope.Location == plugins.Global {
		argv = append(argv, "-g")
	} else {
		argv = append(argv, "--project", site.Base)
	}
	return append(argv, p.String(), server)
}

// standardStdio is the entry most agents take: command, args, env.
func standardStdio(argv []string, env map[string]string) map[string]any {
	m := map[string]any{"command": argv[0]}
	if len(argv) > 1 {
		m["args"] = argv[1:]
	}
	if len(env) > 0 {
		m["env"] = env
	}
	return m
}

// withType adds a type field to an entry.
func withType(kind string, m map[string]any) map[string]any {
	m["type"] = kind
	return m
}

func standardRemote(url string, headers map[string]string) map[string]any {
	m := map[string]any{"url": url}
	if len(headers) > 0 {
		m["headers"] = headers
	}
	return m
}

// withMCP gives an agent whose plugin parts are MCP servers only its
// parts functions.
func withMCP(a *Agent, f *mcpFormat) {
	a.parts = func(w *Wirer, site Site, d Docs, quiver string) (Plan, error) {
		return mcpParts(w, site, d, f, quiver), nil
	}
	a.partFiles = func(w *Wirer, site Site) []FileMembers {
		if file := f.file(site); file != "" {
			return []FileMembers{{Path: file, Comments: f.Comments}}
		}
		return nil
	}
}
