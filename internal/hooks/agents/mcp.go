package agents

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
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
	// Syntax: the file is JSON with comments; TOML: it is TOML, each
	// server a table.
	Syntax wiring.Syntax
	TOML   bool
	// Ref writes a reference to environment variable name; Defaults says
	// the agent takes ${NAME:-default} as Claude does. Without Ref the
	// agent expands nothing: Stdio and Remote get ${NAME} as it is, where
	// entry leaves one (an environment value that is exactly ${KEY}, a
	// header), and translate it or refuse the server.
	Ref      func(name string) string
	Defaults bool
	// Clears says the agent starts a server with only the variables its
	// entry names (Codex): `quiver mcp exec` is then given QUIVER_HOME and
	// the variables the server refers to, each as ${NAME} under its own
	// name, so that it finds the same quiver and can expand them.
	Clears bool
	// Redacts says the agent removes from a server's environment the
	// variables whose names look secret unless the entry's env names them
	// (Gemini CLI 0.61: *TOKEN*, *KEY*, *SECRET*, ...): `quiver mcp exec`
	// is then given the variables the server refers to, each as Ref(NAME)
	// under its own name.
	Redacts bool
	// NameBudget bounds a server's name in the agent's configuration (0:
	// none): the agent names its tools after it within a limit of its own
	// (Tools, a limit of ToolLimit characters with Overhead of them the
	// agent's own; Gemini CLI: mcp_SERVER_TOOL, cut past 63, after which
	// the server's approval rules no longer match). A longer
	// <org>-<plugin>-<server> is shortened (serverKeys).
	NameBudget, ToolLimit, Overhead int
	Tools                           string
	// Order lists the fields written first, in this order (the rest
	// follow sorted): a TOML table reads best with its command on top.
	Order []string
	// Stdio and Remote write one server's entry; Remote's nil entry means
	// the agent cannot take the server, for the reason it gives.
	Stdio  func(argv []string, env map[string]string) map[string]any
	Remote func(kind, url string, headers map[string]string) (map[string]any, string)
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
	ps := scopePlugins(site, d)
	names := serverKeys(ps, f.NameBudget, func(p plugins.Plugin) []plugins.Server { return p.Parts().MCP })
	for _, p := range ps {
		parts := p.Parts()
		for _, s := range parts.MCP {
			key := names[ServerName(p.Name, s.Name)]
			if key != ServerName(p.Name, s.Name) {
				plan.Missed = append(plan.Missed, fmt.Sprintf("MCP server %s of %s: written as %s, since %s names tools %s within %d characters; a tool of it named longer than %d characters is still %s",
					s.Name, p.Name, key, site.Agent.Title, f.Tools, f.ToolLimit, f.ToolLimit-f.Overhead-len(key), "cut or dropped by the agent"))
			}
			entry, missed := f.entry(site, p, s, quiver)
			if missed != "" {
				plan.Missed = append(plan.Missed, fmt.Sprintf("MCP server %s of %s: %s", s.Name, p.Name, missed))
			}
			if entry == nil {
				continue
			}
			v, err := marshalOrdered(entry, f.Order)
			if err != nil {
				plan.Missed = append(plan.Missed, fmt.Sprintf("MCP server %s of %s: %v", s.Name, p.Name, err))
				continue
			}
			keys := append(append([]string(nil), f.Keys...), key)
			members = append(members, wiring.Member{Keys: keys, Value: v})
		}
	}
	sort.Slice(members, func(i, j int) bool {
		return strings.Join(members[i].Keys, "\x00") < strings.Join(members[j].Keys, "\x00")
	})
	plan.add(file, members...)
	return plan
}

// serverKeys names each server of ps (servers lists a plugin's) in an
// agent whose names may be at most budget long (0: any length): its
// <org>-<plugin>-<server>, else the first of <plugin>-<server> and
// <server> (just <plugin> where the two are one word) that fits and no
// other server of the site takes, else the name cut with a hash of it,
// so that two servers never share one. The map is keyed by ServerName.
func serverKeys(ps []plugins.Plugin, budget int, servers func(plugins.Plugin) []plugins.Server) map[string]string {
	out := map[string]string{}
	var long [][3]string // full, plugin, server
	taken := map[string]bool{}
	for _, p := range ps {
		for _, s := range servers(p) {
			full := ServerName(p.Name, s.Name)
			out[full] = full
			if budget > 0 && len(full) > budget {
				long = append(long, [3]string{full, p.Name.Repo(), s.Name})
			} else {
				taken[full] = true
			}
		}
	}
	for _, l := range long {
		full, repo, server := l[0], l[1], l[2]
		pair := repo + "-" + server
		if repo == server || strings.HasPrefix(server, repo+"-") {
			pair = server
		}
		name := ""
		for _, c := range []string{pair, server} {
			if len(c) <= budget && !taken[c] {
				name = c
				break
			}
		}
		if name == "" {
			sum := sha256.Sum256([]byte(full))
			name = strings.TrimRight(full[:budget-7], "-_.") + "-" + hex.EncodeToString(sum[:3])
		}
		taken[name] = true
		out[full] = name
	}
	return out
}

// marshalOrdered writes an entry as a JSON object with the fields in
// first on top, in that order, then the others sorted.
func marshalOrdered(entry map[string]any, first []string) (json.RawMessage, error) {
	keys := make([]string, 0, len(entry))
	for k := range entry {
		if !slices.Contains(first, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var lead []string
	for _, k := range first {
		if _, ok := entry[k]; ok {
			lead = append(lead, k)
		}
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range append(lead, keys...) {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(entry[k])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
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
	secret, why := userConfigVars(p, def, vals)
	if why != "" {
		return nil, why
	}
	expand := refExpander(vals, f.Ref, f.Defaults, &dropped)
	note := func() string { return droppedNote(dropped) }
	switch {
	case def.Stdio():
		if def.Command == "" {
			return nil, "it names no command"
		}
		// A project's server starts through quiver, which checks trust
		// again first; so does one that needs a variable the agent cannot
		// expand.
		if site.Scope.Location == plugins.Local || secret || (f.Ref == nil && (needsVars(def) || !passesThrough(def))) {
			var env map[string]string
			switch {
			case f.Clears:
				env = map[string]string{"QUIVER_HOME": "${QUIVER_HOME}"}
				for _, name := range refersTo(def) {
					env[name] = "${" + name + "}"
				}
			case f.Redacts:
				for _, name := range refersTo(def) {
					if env == nil {
						env = map[string]string{}
					}
					env[name] = f.Ref(name)
				}
			}
			return f.Stdio(mcpExec(quiver, site, p.Name, s.Name), env), ""
		}
		x := def.Map(expand)
		return f.Stdio(append([]string{x.Command}, x.Args...), x.Env), note()
	case def.Type == "http" || def.Type == "sse":
		if f.Remote == nil {
			return nil, "the agent takes no remote servers"
		}
		if secret {
			return nil, "it needs a sensitive setting, which quiver writes into no agent's file"
		}
		x := def.Map(expand)
		entry, why := f.Remote(def.Type, x.URL, x.Headers)
		if entry == nil {
			return nil, why
		}
		return entry, note()
	}
	return nil, fmt.Sprintf("the agent takes no %q servers", def.Type)
}

// refExpander returns the expansion of one configuration string for an
// agent: the plugin's own variables and settings (vals) become their
// values, any other ${VAR} the agent's reference to it (ref; ${VAR} as it
// is without one, for the adapter to translate or refuse), with its
// default where the agent takes ${VAR:-default} as Claude does. What it
// cannot write is added to dropped.
func refExpander(vals map[string]string, ref func(string) string, defaults bool, dropped *[]string) func(string) string {
	return func(v string) string {
		return plugins.MapVars(v, func(r plugins.Var) string {
			if x, ok := vals[r.Name]; ok {
				return x
			}
			if strings.Contains(r.Name, ".") {
				*dropped = append(*dropped, "${"+r.Name+"}")
				return ""
			}
			if r.HasDefault && !defaults {
				*dropped = append(*dropped, fmt.Sprintf("the default of ${%s}", r.Name))
			}
			if ref == nil {
				return "${" + r.Name + "}"
			}
			if r.HasDefault && defaults {
				return "${" + r.Name + ":-" + r.Default + "}"
			}
			return ref(r.Name)
		})
	}
}

// droppedNote says what an entry was written without ("" for nothing).
func droppedNote(dropped []string) string {
	if len(dropped) == 0 {
		return ""
	}
	return "dropped " + strings.Join(dropped, ", ")
}

// userConfigVars adds to vals the plugin's settings that def refers to
// as ${user_config.KEY}, the plain ones by value; secret reports one that
// is sensitive (only quiver mcp exec may hand it to the server), and why
// says what is missing (the server is then not written).
func userConfigVars(p plugins.Plugin, def plugins.ServerDef, vals map[string]string) (secret bool, why string) {
	var refs []string
	def.Map(func(v string) string {
		plugins.MapVars(v, func(r plugins.Var) string {
			if k, ok := strings.CutPrefix(r.Name, plugins.VarUserConfig); ok {
				refs = append(refs, k)
			}
			return ""
		})
		return v
	})
	if len(refs) == 0 {
		return false, ""
	}
	uc, err := plugins.ReadUserConfig(p)
	if err != nil {
		return false, err.Error()
	}
	var missing []string
	for _, k := range refs {
		v, ok := uc.Value(k)
		switch {
		case !ok:
			missing = append(missing, k)
		case uc.Sensitive(k):
			secret = true
		default:
			vals[plugins.VarUserConfig+k] = v
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		missing = slices.Compact(missing)
		return false, fmt.Sprintf("it needs %s: quiver plugin config %s %s=VALUE", strings.Join(missing, ", "), p.Name, missing[0])
	}
	return secret, ""
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

// passesThrough reports a stdio definition whose environment an agent
// without ${VAR} can write: each value either holds no variable but the
// plugin's own, or is exactly ${KEY}, the variable of its own name, which
// the agent passes through.
func passesThrough(d plugins.ServerDef) bool {
	for k, v := range d.Env {
		if v == "${"+k+"}" {
			continue
		}
		if len(refersTo(plugins.ServerDef{Command: v})) > 0 {
			return false
		}
	}
	return true
}

// refersTo lists, sorted, the variables a stdio definition's command,
// arguments and environment refer to, other than the plugin's own and
// its configuration values (${user_config.x}, never a variable).
func refersTo(d plugins.ServerDef) []string {
	var names []string
	strs := append([]string{d.Command}, d.Args...)
	for _, v := range d.Env {
		strs = append(strs, v)
	}
	for _, s := range strs {
		plugins.MapVars(s, func(r plugins.Var) string {
			switch r.Name {
			case plugins.VarPluginRoot, plugins.VarPluginData, plugins.VarProjectDir:
			default:
				if !strings.Contains(r.Name, ".") {
					names = append(names, r.Name)
				}
			}
			return ""
		})
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// mcpExec is the command line that starts a plugin's server through
// quiver, in a file the agent reads at site. The user's own scope is named
// (-g). A project's files are committed and read on every teammate's
// machine, so its server names no path of this one (issue 43): the
// project is the agent's own variable for it where the agent expands one
// in a server's arguments (Cursor's ${workspaceFolder}), and otherwise
// what quiver mcp exec finds from the folder the agent starts the server
// in (the session's, in every agent measured), up to the project that
// holds .quiver. Either way mcp exec checks trust, the fingerprint and
// the policy of that project before it starts anything.
func mcpExec(quiver string, site Site, p plugins.Name, server string) []string {
	argv := []string{quiver, "mcp", "exec"}
	switch {
	case site.Scope.Location == plugins.Global:
		argv = append(argv, "-g")
	case site.Agent.ProjectVar != "":
		argv = append(argv, "--project", site.Agent.ProjectVar)
	}
	return append(argv, p.String(), server)
}

// mcpExecAt is mcpExec for a file of this machine only (Claude Code's
// view of a plugin, in quiver's machine folder): the project by its path.
func mcpExecAt(quiver string, site Site, p plugins.Name, server string) []string {
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

// planParts plans the plugin parts that reach the agent (Agent.parts):
// its adapter's plan, or for an agent whose parts are MCP servers only,
// its MCP file's.
func (a *Agent) planParts(w *Wirer, site Site, d Docs, quiver string) (Plan, error) {
	var plan Plan
	var err error
	switch {
	case a.parts != nil:
		plan, err = a.parts(w, site, d, quiver)
	case a.mcp != nil:
		plan = mcpParts(w, site, d, a.mcp, quiver)
	}
	// What the agent has no place for is named, never dropped unseen.
	for _, p := range scopePlugins(site, d) {
		parts := p.Parts()
		if a.NoLSP != "" {
			for _, s := range parts.LSP {
				plan.Missed = append(plan.Missed, fmt.Sprintf("LSP server %s of %s: %s", s.Name, p.Name, a.NoLSP))
			}
		}
		if !a.OutputStyles {
			for _, st := range parts.OutputStyles {
				plan.Missed = append(plan.Missed, fmt.Sprintf("output style %s of %s: %s has no output styles", st.Name, p.Name, a.Title))
			}
		}
	}
	return plan, err
}

// hasPartFiles reports an agent that keeps plugin parts in files of its
// own; partFilesOf lists them for a site (Agent.partFiles).
func (a *Agent) hasPartFiles() bool { return a.partFiles != nil || a.mcp != nil }

func (a *Agent) partFilesOf(w *Wirer, site Site) []FileMembers {
	if a.partFiles != nil {
		return a.partFiles(w, site)
	}
	if a.mcp != nil {
		if file := a.mcp.file(site); file != "" {
			return []FileMembers{{Path: file, Syntax: a.mcp.Syntax, TOML: a.mcp.TOML}}
		}
	}
	return nil
}
