package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
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
	// MCPServers and LSPServers are the raw mcpServers and lspServers
	// fields (a path, an object or a list; ReadParts reads them); Agents
	// and OutputStyles the agents and outputStyles paths.
	MCPServers, LSPServers json.RawMessage
	Agents, OutputStyles   []string
	// UserConfig are the settings the plugin asks of its user (SPEC §16).
	UserConfig []ConfigKey
	// ComponentsFile is the file the component fields came from:
	// ClaudeManifestPath, or EntryManifestPath for a strict: false entry.
	ComponentsFile string
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
	m.MCPServers, m.LSPServers, m.Agents, m.OutputStyles = nil, nil, nil, nil
	userConfig := m.UserConfig
	err = components(raw, EntryManifestPath, &m)
	if _, ok := raw["userConfig"]; !ok {
		m.UserConfig = userConfig // an entry that declares none keeps the plugin's
	}
	return m, true, err
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
	return m, true, nil
}

// components reads the component fields of file: commands, skills,
// hooks, agents, outputStyles, mcpServers and lspServers.
func components(raw map[string]json.RawMessage, file string, m *ClaudeManifest) (err error) {
	m.ComponentsFile = file
	m.MCPServers, m.LSPServers = raw["mcpServers"], raw["lspServers"]
	if uc, ok := raw["userConfig"]; ok {
		if m.UserConfig, err = parseUserConfig(uc); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
	}
	if m.Agents, err = paths(raw, file, "agents"); err != nil {
		return err
	}
	if m.OutputStyles, err = paths(raw, file, "outputStyles"); err != nil {
		return err
	}
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
