package agents

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"

	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// LSP servers for agents without Claude's plugin loader (SPEC §16:
// Copilot's lsp.json, OpenCode's lsp key). As with MCP servers, each is
// named <org>-<plugin>-<server>, the plugin's variables are expanded and
// others written in the agent's syntax, and a project plugin's server is
// written only while the project is trusted, and only as `quiver lsp
// exec`, which checks trust again before it starts anything.

// lspFormat is how one agent keeps LSP servers.
type lspFormat struct {
	// Local and Global are the file, relative to the project and to the
	// home folder; Keys lead to the object of servers; Syntax: the
	// file is JSON with comments.
	Local, Global string
	Keys          []string
	Syntax        wiring.Syntax
	// Ref and Defaults are as mcpFormat's.
	Ref      func(name string) string
	Defaults bool
	// Entry writes one server: the command line, its environment, the
	// file extensions it serves (sorted) and Claude's definition, for the
	// rest (initializationOptions).
	Entry func(argv []string, env map[string]string, exts []string, def lspDef) map[string]any
}

// lspDef is an LSP server in Claude Code's schema, as far as quiver
// carries it to other agents.
type lspDef struct {
	Command               string            `json:"command"`
	Args                  []string          `json:"args,omitempty"`
	Env                   map[string]string `json:"env,omitempty"`
	ExtensionToLanguage   map[string]string `json:"extensionToLanguage"`
	Transport             string            `json:"transport,omitempty"`
	InitializationOptions json.RawMessage   `json:"initializationOptions,omitempty"`
}

func (f *lspFormat) file(site Site) string {
	rel := f.Global
	if site.Scope.Location == plugins.Local {
		rel = f.Local
	}
	return filepath.Join(site.Base, filepath.FromSlash(rel))
}

// parts plans the LSP entries of the site's plugins.
func (f *lspFormat) parts(site Site, d Docs, quiver string) Plan {
	var plan Plan
	var members []wiring.Member
	for _, p := range scopePlugins(site, d) {
		for _, s := range p.Parts().LSP {
			entry, missed := f.entry(site, p, s, quiver)
			if missed != "" {
				plan.Missed = append(plan.Missed, fmt.Sprintf("LSP server %s of %s: %s", s.Name, p.Name, missed))
			}
			if entry == nil {
				continue
			}
			v, err := json.Marshal(entry)
			if err != nil {
				continue
			}
			keys := append(slices.Clone(f.Keys), ServerName(p.Name, s.Name))
			members = append(members, wiring.Member{Keys: keys, Value: v})
		}
	}
	sort.Slice(members, func(i, j int) bool { return members[i].Keys[len(f.Keys)] < members[j].Keys[len(f.Keys)] })
	plan.add(f.file(site), members...)
	return plan
}

// entry is server s of plugin p as the agent writes it, or nil with the
// reason it cannot be written.
func (f *lspFormat) entry(site Site, p plugins.Plugin, s plugins.Server, quiver string) (map[string]any, string) {
	var def lspDef
	if err := json.Unmarshal(s.Config, &def); err != nil {
		return nil, "its definition is not Claude Code's: " + err.Error()
	}
	switch {
	case def.Command == "":
		return nil, "it names no command"
	case def.Transport != "" && def.Transport != "stdio":
		return nil, fmt.Sprintf("%s takes no %q transport", site.Agent.Title, def.Transport)
	case len(def.ExtensionToLanguage) == 0:
		return nil, "it maps no file extensions"
	}
	exts := make([]string, 0, len(def.ExtensionToLanguage))
	for ext := range def.ExtensionToLanguage {
		exts = append(exts, ext)
	}
	slices.Sort(exts)
	sd := plugins.ServerDef{Command: def.Command, Args: def.Args, Env: def.Env}
	vals := pluginVars(site, p.Scope, p.Name)
	secret, why := userConfigVars(p, sd, vals)
	if why != "" {
		return nil, why
	}
	// A project's server starts through quiver, which checks trust again
	// first; so does one whose command line needs a variable or a secret.
	if site.Scope.Location == plugins.Local || secret || needsVars(sd) {
		return f.Entry(lspExec(quiver, site, p.Name, s.Name), nil, exts, def), ""
	}
	var dropped []string
	x := sd.Map(refExpander(vals, f.Ref, f.Defaults, &dropped))
	return f.Entry(append([]string{x.Command}, x.Args...), x.Env, exts, def), droppedNote(dropped)
}

// lspExec is the command line that starts a plugin's LSP server through
// quiver, as mcpExec is for MCP servers.
func lspExec(quiver string, site Site, p plugins.Name, server string) []string {
	argv := mcpExec(quiver, site, p, server)
	argv[1] = "lsp"
	return argv
}
