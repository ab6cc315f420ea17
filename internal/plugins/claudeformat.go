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

// ClaudeManifestPath is where a Claude-format plugin keeps its manifest.
const ClaudeManifestPath = ".claude-plugin/plugin.json"

// EntryManifestPath is where a plugin installed from a marketplace entry
// with "strict": false keeps that entry's commands, skills and hooks
// fields (SPEC §12): the entry is the plugin's manifest, so these replace
// plugin.json's. quiver writes it at install; the content hash covers it.
const EntryManifestPath = ".quiver-entry.json"

// HooksJSON is the file name of a Claude-format hook configuration; one
// in a hooks/ folder makes that folder Claude's (SPEC §11): its files are
// the scripts the handlers call, never native hooks.
const HooksJSON = "hooks.json"

// ClaudeManifest is what quiver reads of .claude-plugin/plugin.json.
type ClaudeManifest struct {
	Name, Version, Description, Homepage, Author string
	// Commands and Skills replace the default folders when set (paths
	// validated, relative to the plugin).
	Commands, Skills []string
	// HookPaths are hook configuration files named by "hooks"; Hooks is
	// an inline "hooks" object. Both add to hooks/hooks.json.
	HookPaths []string
	Hooks     json.RawMessage
	// HooksFile is the file holding the inline Hooks, relative to the
	// plugin: ClaudeManifestPath or EntryManifestPath.
	HooksFile string
	// Unused counts what quiver does not use, by kind ("agents", "MCP
	// servers", ...), as far as the manifest names it.
	Unused map[string]int
}

// HookFile is one source of Claude-format handlers in a plugin folder.
type HookFile struct {
	// Name is the prefix of its handlers' item names: "hooks.json" for
	// hooks/hooks.json, the path relative to the plugin for another file,
	// "plugin.json" for a manifest's inline object.
	Name string
	// Path is the file to read (the manifest for an inline object).
	Path string
	// Inline holds the manifest's inline hooks object.
	Inline json.RawMessage
}

// ReadClaudeManifest reads root/.claude-plugin/plugin.json, and the
// component fields of root/.quiver-entry.json over it; ok is false when
// there is neither. Component paths are validated like every path read
// from a file (SPEC §9).
func ReadClaudeManifest(root string) (m ClaudeManifest, ok bool, err error) {
	m, ok, err = readPluginJSON(root)
	if err != nil {
		return m, ok, err
	}
	raw, found, err := readObject(root, EntryManifestPath)
	if !found || err != nil {
		return m, ok || found, err
	}
	m.Commands, m.Skills, m.HookPaths, m.Hooks, m.HooksFile = nil, nil, nil, nil, ""
	return m, true, components(raw, EntryManifestPath, &m)
}

// readObject reads root/rel as a JSON object; found is false when there
// is no such file.
func readObject(root, rel string) (raw map[string]json.RawMessage, found bool, err error) {
	data, err := safefs.ReadFile(filepath.Join(root, filepath.FromSlash(rel)), safefs.MaxMeta)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	if err := json.Unmarshal(data, &raw); err != nil || raw == nil {
		return nil, true, fmt.Errorf("%s is not a JSON object: %v", rel, err)
	}
	return raw, true, nil
}

func readPluginJSON(root string) (m ClaudeManifest, ok bool, err error) {
	raw, ok, err := readObject(root, ClaudeManifestPath)
	if !ok || err != nil {
		return m, ok, err
	}
	field := func(name string) (string, error) {
		v, ok := raw[name]
		if !ok || string(v) == "null" {
			return "", nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", fmt.Errorf("%s: %q must be a string", ClaudeManifestPath, name)
		}
		return s, nil
	}
	for name, dst := range map[string]*string{"name": &m.Name, "version": &m.Version, "description": &m.Description, "homepage": &m.Homepage} {
		if *dst, err = field(name); err != nil {
			return m, true, err
		}
	}
	if a, ok := raw["author"]; ok {
		var who struct{ Name string }
		if json.Unmarshal(a, &m.Author) != nil && json.Unmarshal(a, &who) == nil {
			m.Author = who.Name
		}
	}
	if err := components(raw, ClaudeManifestPath, &m); err != nil {
		return m, true, err
	}
	m.Unused = map[string]int{}
	for key, kind := range map[string]string{"agents": "agents", "mcpServers": "MCP servers", "lspServers": "LSP servers", "outputStyles": "output styles"} {
		if v, ok := raw[key]; ok {
			m.Unused[kind] += countEntries(v)
		}
	}
	return m, true, nil
}

// components reads the commands, skills and hooks fields of file.
func components(raw map[string]json.RawMessage, file string, m *ClaudeManifest) (err error) {
	if m.Commands, err = paths(raw, file, "commands"); err != nil {
		return err
	}
	if m.Skills, err = paths(raw, file, "skills"); err != nil {
		return err
	}
	if h, ok := raw["hooks"]; ok && bytes.HasPrefix(bytes.TrimSpace(h), []byte("{")) {
		var inline struct {
			Hooks json.RawMessage `json:"hooks"`
		}
		// Written either as {"hooks": {EVENT...}} like a hooks.json or as
		// the event map itself.
		if json.Unmarshal(h, &inline) == nil && inline.Hooks != nil {
			m.Hooks = inline.Hooks
		} else {
			m.Hooks = h
		}
		m.HooksFile = file
	} else if m.HookPaths, err = paths(raw, file, "hooks"); err != nil {
		return err
	}
	return nil
}

// paths reads a component field: one path or a list of them.
func paths(raw map[string]json.RawMessage, file, name string) ([]string, error) {
	v, ok := raw[name]
	if !ok || string(v) == "null" {
		return nil, nil
	}
	var list []string
	var one string
	if json.Unmarshal(v, &one) == nil {
		list = []string{one}
	} else if err := json.Unmarshal(v, &list); err != nil {
		return nil, fmt.Errorf("%s: %q must be a path or a list of paths", file, name)
	}
	out := make([]string, 0, len(list))
	for _, p := range list {
		clean, err := safefs.RelPath(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %q: %w", file, name, err)
		}
		out = append(out, clean)
	}
	return out, nil
}

// countEntries counts a component field's entries: the keys of an object,
// the items of a list, one for a path.
func countEntries(v json.RawMessage) int {
	var obj map[string]json.RawMessage
	if json.Unmarshal(v, &obj) == nil {
		return len(obj)
	}
	var list []json.RawMessage
	if json.Unmarshal(v, &list) == nil {
		return len(list)
	}
	return 1
}

// Unused counts what a plugin folder carries that quiver does not use
// (SPEC §11): agents, MCP and LSP servers, output styles, settings. It
// reads the folder's top level and the manifest, nothing else.
func Unused(root string) map[string]int {
	out := map[string]int{}
	if m, ok, err := ReadClaudeManifest(root); ok && err == nil {
		for k, n := range m.Unused {
			out[k] += n
		}
	}
	if out["agents"] == 0 {
		if entries, err := os.ReadDir(filepath.Join(root, "agents")); err == nil {
			for _, e := range entries {
				if strings.HasSuffix(e.Name(), ".md") {
					out["agents"]++
				}
			}
		}
	}
	countJSON := func(file, key, kind string) {
		if out[kind] > 0 {
			return
		}
		data, err := safefs.ReadFile(filepath.Join(root, file), safefs.MaxMeta)
		if err != nil {
			return
		}
		var doc map[string]json.RawMessage
		if json.Unmarshal(data, &doc) != nil {
			return
		}
		if v, ok := doc[key]; ok {
			out[kind] += countEntries(v)
		} else {
			out[kind] += len(doc)
		}
	}
	countJSON(".mcp.json", "mcpServers", "MCP servers")
	countJSON(".lsp.json", "lspServers", "LSP servers")
	if fi, err := os.Stat(filepath.Join(root, "output-styles")); err == nil && fi.IsDir() && out["output styles"] == 0 {
		entries, _ := os.ReadDir(filepath.Join(root, "output-styles"))
		out["output styles"] = len(entries)
	}
	if fi, err := os.Stat(filepath.Join(root, "settings.json")); err == nil && fi.Mode().IsRegular() {
		out["settings"] = 1
	}
	for k, n := range out {
		if n == 0 {
			delete(out, k)
		}
	}
	return out
}

// DescribeUnused writes counts as "3 agents, 1 MCP server" in a stable
// order, "" for none.
func DescribeUnused(counts map[string]int) string {
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var parts []string
	for _, k := range kinds {
		word := k
		if counts[k] == 1 {
			word = strings.TrimSuffix(strings.Replace(k, "servers", "server", 1), "s")
			if k == "settings" {
				word = "settings file"
			}
		}
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], word))
	}
	return strings.Join(parts, ", ")
}
