package discovery

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// Launch is how to start a plugin's stdio MCP or LSP server: the
// program, its arguments (argv[0] first) and its whole environment.
type Launch struct {
	Path string
	Argv []string
	Env  []string
}

// ServerKind is the kind of server a plugin declares: "MCP" or "LSP".
type ServerKind string

// The kinds of server a plugin declares (SPEC §16).
const (
	MCPServer ServerKind = "MCP"
	LSPServer ServerKind = "LSP"
)

// ErrNotTrusted is wrapped when a project's server would start in a
// project whose plugins the user has not trusted as they are.
var ErrNotTrusted = errors.New("not trusted")

// ServerLaunch resolves the kind server of plugin name in the scope global
// names (SPEC §16, `quiver mcp exec` and `quiver lsp exec`): it checks again what the agent's
// configuration cannot (the project trusted as it is now, the plugin
// installed and enabled, the server still declared, and the team's policy
// as it is now, which may have changed since the server was wired), then
// expands the plugin's variables (${CLAUDE_PLUGIN_ROOT}, ${CLAUDE_PLUGIN_DATA},
// ${CLAUDE_PROJECT_DIR}) and ${VAR} and ${VAR:-default} from environ. It
// starts nothing, and reads no secret before every check has passed.
func (e *Env) ServerLaunch(global bool, kind ServerKind, name plugins.Name, server string, environ []string) (Launch, error) {
	l := e.Layout
	if !global && l.Local == nil {
		return Launch{}, errors.New("no project: name it with --project DIR, or -g for your own plugins")
	}
	s := l.Scope(global)
	if s.Location == plugins.Local {
		t, err := ProjectTrust(l, false)
		if err != nil {
			return Launch{}, err
		}
		if !t.Trusted() {
			return Launch{}, fmt.Errorf("the plugins of %s are %w as they are now; review them and run quiver trust there", l.ProjectDir, ErrNotTrusted)
		}
	}
	p, err := plugins.ReadPlugin(s, name)
	if err != nil {
		return Launch{}, err
	}
	if !p.Enabled() {
		return Launch{}, fmt.Errorf("plugin %s is disabled", name)
	}
	if err := e.Policy().Scope(global).CheckPlugin(s, name); err != nil {
		return Launch{}, err
	}
	var def plugins.ServerDef
	found := false
	servers := p.Parts().MCP
	if kind == LSPServer {
		servers = p.Parts().LSP
	}
	for _, sv := range servers {
		if sv.Name == server {
			if def, err = sv.Def(); err != nil {
				return Launch{}, fmt.Errorf("%s server %s of %s: %w", kind, server, name, err)
			}
			if kind == LSPServer {
				// Claude's LSP servers say "transport", not "type".
				var t struct{ Transport string }
				json.Unmarshal(sv.Config, &t)
				def.Type = t.Transport
			}
			found = true
		}
	}
	switch {
	case !found:
		return Launch{}, fmt.Errorf("plugin %s has no %s server %s", name, kind, server)
	case !def.Stdio():
		return Launch{}, fmt.Errorf("%s server %s of %s is a %s server, not a program to start", kind, server, name, def.Type)
	}
	env := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := env[k]; !ok {
			order = append(order, k)
		}
		env[k] = v
	}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			set(k, v)
		}
	}
	data := s.DataDir(name)
	vars := map[string]string{plugins.VarPluginRoot: p.Dir, plugins.VarPluginData: data}
	if s.Location == plugins.Local {
		vars[plugins.VarProjectDir] = l.ProjectDir
	}
	uc, err := plugins.ReadUserConfig(p)
	if err != nil {
		return Launch{}, err
	}
	for _, k := range uc.Keys {
		if v, ok := uc.Value(k.Name); ok {
			vars[plugins.VarUserConfig+k.Name] = v
		}
	}
	var missing []string
	expand := func(v string) string {
		return plugins.MapVars(v, func(r plugins.Var) string {
			if x, ok := vars[r.Name]; ok {
				return x
			}
			if x, ok := env[r.Name]; ok && x != "" {
				return x
			}
			if k, ok := strings.CutPrefix(r.Name, plugins.VarUserConfig); ok {
				missing = append(missing, k+" (quiver plugin config "+name.String()+" "+k+"=VALUE)")
			} else if !r.HasDefault {
				missing = append(missing, r.Name)
			}
			return r.Default
		})
	}
	x := def.Map(expand)
	if len(missing) > 0 {
		return Launch{}, fmt.Errorf("%s server %s of %s needs %s, which is not set", kind, server, name, strings.Join(missing, ", "))
	}
	for k, v := range vars {
		if !strings.HasPrefix(k, plugins.VarUserConfig) {
			set(k, v) // settings reach the server only where it asks
		}
	}
	for k, v := range x.Env {
		set(k, v)
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		return Launch{}, err
	}
	path := x.Command
	if s.Location == plugins.Local && strings.Contains(path, "/") && !filepath.IsAbs(path) {
		// Relative to the agent's working folder: a file of the project
		// that trust never covered. A plugin names its own files from
		// ${CLAUDE_PLUGIN_ROOT}.
		return Launch{}, fmt.Errorf("%s server %s of %s names its command %q relative to the agent's folder, which quiver does not run for a project's plugin; name it from ${CLAUDE_PLUGIN_ROOT}", kind, server, name, path)
	}
	if !strings.Contains(path, "/") {
		if path, err = lookPath(x.Command, env["PATH"]); err != nil {
			return Launch{}, fmt.Errorf("%s server %s of %s: %w", kind, server, name, err)
		}
	}
	out := Launch{Path: path, Argv: append([]string{x.Command}, x.Args...)}
	for _, k := range order {
		out.Env = append(out.Env, k+"="+env[k])
	}
	return out, nil
}

// lookPath finds command on the given PATH (the server's, which may differ
// from quiver's own), in its absolute folders only: a relative one (or an
// empty one, the working folder) would run whatever the folder the agent
// started in holds.
func lookPath(command, path string) (string, error) {
	for _, dir := range strings.Split(path, ":") {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, command)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not on PATH", command)
}
