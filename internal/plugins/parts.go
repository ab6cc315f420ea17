package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// The parts of a plugin beside hooks, skills and recipes (SPEC §16): what
// an agent starts (MCP and LSP servers) or reads (subagents, output
// styles). quiver carries them to every wired agent; reading them is the
// same for every agent, and happens here.

// Server is one MCP or LSP server a plugin declares.
type Server struct {
	// Name is the plugin's own name for it (the key of its entry).
	Name string
	// Config is its definition as the plugin wrote it: a JSON object,
	// variables unexpanded.
	Config json.RawMessage
	// From is the file that declared it, relative to the plugin.
	From string
}

// Parts are a plugin's servers, subagents and output styles.
type Parts struct {
	MCP, LSP []Server
	// Agents are the subagents' files, OutputStyles the output styles'
	// (Name without ".md").
	Agents, OutputStyles []Item
	// Problems say what could not be read (a file that is not JSON, an
	// entry that is not an object, a name that is not safe); the rest
	// still counts.
	Problems []string
}

// Empty reports whether there is no part at all.
func (p Parts) Empty() bool {
	return len(p.MCP) == 0 && len(p.LSP) == 0 && len(p.Agents) == 0 && len(p.OutputStyles) == 0
}

// Count is how many of each part a plugin carries, as plugin list --json
// and plugin show --json print it (SPEC §16). Commands counts commands/
// files (also listed as recipes); Recipes counts recipes/.
type Count struct {
	Hooks        int `json:"hooks"`
	Skills       int `json:"skills"`
	Recipes      int `json:"recipes"`
	Commands     int `json:"commands"`
	Agents       int `json:"agents"`
	MCPServers   int `json:"mcp_servers"`
	LSPServers   int `json:"lsp_servers"`
	OutputStyles int `json:"output_styles"`
}

// CountParts counts what c and p hold; hooks counts native hooks and
// Claude-format handlers as handlers, which the caller passes.
func CountParts(c Contents, handlers int, p Parts) Count {
	n := Count{Hooks: len(c.Hooks) + handlers, Skills: len(c.Skills), Agents: len(p.Agents),
		MCPServers: len(p.MCP), LSPServers: len(p.LSP), OutputStyles: len(p.OutputStyles)}
	for _, r := range c.Recipes {
		if r.Command {
			n.Commands++
		} else {
			n.Recipes++
		}
	}
	return n
}

// Describe writes the parts beside hooks, skills and recipes as "1 MCP
// server, 2 agents", "" for none.
func (n Count) Describe() string {
	var out []string
	for _, k := range []struct {
		n          int
		one, other string
	}{
		{n.Agents, "agent", "agents"},
		{n.MCPServers, "MCP server", "MCP servers"},
		{n.LSPServers, "LSP server", "LSP servers"},
		{n.OutputStyles, "output style", "output styles"},
	} {
		switch {
		case k.n == 1:
			out = append(out, "1 "+k.one)
		case k.n > 1:
			out = append(out, fmt.Sprintf("%d %s", k.n, k.other))
		}
	}
	return strings.Join(out, ", ")
}

// partName is what a server, subagent or output style may be called: it
// becomes part of a name in agents' configurations (org-plugin-server)
// and of file names: `^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`, as a loop, since
// that regexp takes a millisecond to compile.
func partName(s string) bool {
	if len(s) == 0 || len(s) > 64 || !isAlnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// ReadParts reads the servers, subagents and output styles of the plugin
// folder root as Claude Code does (SPEC §16, notes/harnesses.md §6-7):
// .mcp.json (wrapped in "mcpServers" or bare) and the manifest's
// mcpServers (a path, an object or a list of both); .lsp.json and
// lspServers alike; agents/*.md and outputStyles/output-styles/*.md, plus
// the manifest's paths. m is the plugin's manifest (nil for none). Every
// file is read only inside root, as a regular file of bounded size.
func ReadParts(root string, m *ClaudeManifest) Parts {
	r := partsReader{guard: NewRootGuard(root)}
	var mcp, lsp json.RawMessage
	var agents, styles []string
	if m != nil {
		mcp, lsp, agents, styles = m.MCPServers, m.LSPServers, m.Agents, m.OutputStyles
	}
	r.p.MCP = r.servers(".mcp.json", "mcpServers", mcp, m)
	r.p.LSP = r.servers(".lsp.json", "lspServers", lsp, m)
	r.p.Agents = r.docs("agents", agents)
	r.p.OutputStyles = r.docs("output-styles", styles)
	return r.p
}

// ReadFolderParts is ReadParts with the folder's own manifest, if it can
// be read.
func ReadFolderParts(root string) Parts {
	m, ok, err := ReadClaudeManifest(root)
	if !ok || err != nil {
		return ReadParts(root, nil)
	}
	return ReadParts(root, &m)
}

type partsReader struct {
	guard *RootGuard
	p     Parts
}

func (r *partsReader) problem(format string, a ...any) {
	r.p.Problems = append(r.p.Problems, fmt.Sprintf(format, a...))
}

// read reads rel inside the plugin: ok false when it does not exist.
func (r *partsReader) read(rel string) (data []byte, ok bool) {
	path := filepath.Join(r.guard.Root(), filepath.FromSlash(rel))
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, false
	}
	if why := r.guard.Escape(path); why != "" {
		r.problem("%s: %s", rel, why)
		return nil, false
	}
	data, err := safefs.ReadFile(path, safefs.MaxMeta)
	if err != nil {
		r.problem("%s: %v", rel, err)
		return nil, false
	}
	return data, true
}

// servers reads the default file and the manifest's field, the manifest's
// entries winning on a name both use (as the later source does in Claude
// Code).
func (r *partsReader) servers(file, key string, field json.RawMessage, m *ClaudeManifest) []Server {
	found := map[string]Server{}
	if data, ok := r.read(file); ok {
		r.serverFile(found, file, key, data)
	}
	manifest := ClaudeManifestPath
	if m != nil && m.ComponentsFile != "" {
		manifest = m.ComponentsFile
	}
	r.serverField(found, manifest, key, field)
	out := make([]Server, 0, len(found))
	for _, s := range found {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// serverField reads a manifest's mcpServers or lspServers: a path to a
// file like .mcp.json, an object of servers, or a list of both.
func (r *partsReader) serverField(found map[string]Server, file, key string, v json.RawMessage) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return
	}
	var list []json.RawMessage
	if v[0] != '[' {
		list = []json.RawMessage{v}
	} else if err := json.Unmarshal(v, &list); err != nil {
		r.problem("%s: %q is not valid JSON", file, key)
		return
	}
	for _, one := range list {
		var path string
		if json.Unmarshal(one, &path) == nil {
			rel, err := safefs.RelPath(path)
			if err != nil {
				r.problem("%s: %q: %v", file, key, err)
				continue
			}
			if data, ok := r.read(rel); ok {
				r.serverFile(found, rel, key, data)
			} else {
				r.problem("%s: %q names %s, which is not in the plugin", file, key, rel)
			}
			continue
		}
		r.serverMap(found, file, key, one)
	}
}

// serverFile reads a file of servers: {"mcpServers": {...}} or the bare
// map of servers.
func (r *partsReader) serverFile(found map[string]Server, file, key string, data []byte) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil || doc == nil {
		r.problem("%s is not a JSON object", file)
		return
	}
	if inner, ok := doc[key]; ok {
		r.serverMap(found, file, key, inner)
		return
	}
	r.serverMap(found, file, key, data)
}

// serverMap reads {"name": {definition}, ...}; an entry that is not an
// object, or whose name is not safe, is a problem and left out.
func (r *partsReader) serverMap(found map[string]Server, file, key string, v json.RawMessage) {
	var servers map[string]json.RawMessage
	if err := json.Unmarshal(v, &servers); err != nil || servers == nil {
		r.problem("%s: %q is not an object of servers", file, key)
		return
	}
	for name, def := range servers {
		// The key in the message says which kind of server is left
		// out: the policy refuses what it cannot check (mcpServers),
		// whichever file declared it.
		if !partName(name) {
			r.problem("%s: %s: server name %q is not safe (letters, digits, '.', '_' and '-', at most 64)", file, key, name)
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(def, &obj) != nil || obj == nil {
			r.problem("%s: %s: server %q is not an object", file, key, name)
			continue
		}
		found[name] = Server{Name: name, Config: bytes.TrimSpace(def), From: file}
	}
}

// docs reads the .md files directly in the default folder dir and in the
// manifest's paths (a folder, or one file).
func (r *partsReader) docs(dir string, extra []string) []Item {
	seen := map[string]bool{}
	var out []Item
	add := func(rel string) {
		path := filepath.Join(r.guard.Root(), filepath.FromSlash(rel))
		if seen[path] {
			return
		}
		seen[path] = true
		if why := r.guard.Escape(path); why != "" {
			r.problem("%s: %s", rel, why)
			return
		}
		fi, err := os.Stat(path)
		if err != nil || !fi.Mode().IsRegular() {
			return
		}
		name := strings.TrimSuffix(filepath.Base(rel), ".md")
		if !partName(name) {
			r.problem("%s: name %q is not safe (letters, digits, '.', '_' and '-', at most 64)", rel, name)
			return
		}
		out = append(out, Item{Name: name, Path: path})
	}
	for _, d := range append([]string{dir}, extra...) {
		full := filepath.Join(r.guard.Root(), filepath.FromSlash(d))
		if strings.HasSuffix(d, ".md") {
			add(d)
			continue
		}
		entries, err := os.ReadDir(full)
		if err != nil {
			continue
		}
		if why := r.guard.Escape(full); why != "" {
			r.problem("%s: %s", d, why)
			continue
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), ".md") || strings.EqualFold(e.Name(), "README.md") {
				continue
			}
			add(d + "/" + e.Name())
		}
	}
	sortItems(out)
	return out
}
