package agents

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// Settings in an agent's own files can switch off what quiver wired
// without touching it: Claude Code's disableAllHooks, Gemini CLI's
// hooksConfig.enabled, a list of disabled hooks or servers naming
// quiver's. The agent honours them (each one measured, docs/agents.md),
// so a repository that commits one silences the user's guards, the global
// ones included, while the entries quiver wrote stay in place. agent
// list, doctor and audit read them (Agent.silenced) and say so.

// Silence is one setting that keeps the agent from running what quiver
// wired: the file that holds it and what it does.
type Silence struct {
	File, Reason string
}

func (s Silence) String() string { return safefs.Visible(s.File) + ": " + s.Reason }

// Silenced lists the settings that keep the agent of site from running
// quiver's entries or servers there, nil for none.
func (w *Wirer) Silenced(site Site) []Silence {
	if site.Agent.silenced == nil {
		return nil
	}
	return site.Agent.silenced(w, site)
}

// settingsDoc reads one of an agent's settings files as the agent reads
// it, nil when it is absent or cannot be read (what cannot be read is
// reported elsewhere, by the reader of the file quiver edits).
func settingsDoc(path string, syntax wiring.Syntax) *wiring.Doc {
	data, err := safefs.ReadFile(path, safefs.MaxMeta)
	if err != nil {
		return nil
	}
	d, err := wiring.ParseDoc(data, syntax)
	if err != nil {
		return nil
	}
	return d
}

// jsonBool reads a JSON boolean; ok is false for anything else.
func jsonBool(raw json.RawMessage) (v, ok bool) {
	switch strings.TrimSpace(string(raw)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// jsonStrings reads a JSON list of strings (what is not one is left out).
func jsonStrings(raw json.RawMessage) []string {
	var list []any
	json.Unmarshal(raw, &list)
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// geminiSettingsFiles are the settings files Gemini CLI 0.61 merges, from
// the lowest precedence to the highest: the user's, the workspace's (the
// project's, read from its folder: a user-scope wiring is silenced there
// too), the system's (GEMINI_CLI_SYSTEM_SETTINGS_PATH, else
// /etc/gemini-cli/settings.json; Gemini skips one that is not root-owned,
// which quiver does not judge).
func geminiSettingsFiles(w *Wirer, site Site) []string {
	files := []string{filepath.Join(w.Home, ".gemini", "settings.json")}
	if w.Layout.Local != nil {
		files = append(files, filepath.Join(w.Layout.ProjectDir, ".gemini", "settings.json"))
	}
	system := "/etc/gemini-cli/settings.json"
	if w.Getenv != nil && w.Getenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH") != "" {
		system = w.Getenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
	}
	return append(files, system)
}

// geminiSilenced reads what switches quiver's entries and servers off in
// Gemini CLI 0.61: hooksConfig.enabled false in the file of highest
// precedence that sets it; hooksConfig.disabled (joined across files)
// naming quiver's handlers, which are named "quiver", or their command;
// mcp.excluded (joined) or mcp.allowed (the lists' intersection) leaving
// out a server quiver wrote; and ~/.gemini/mcp-server-enablement.json
// turning one off.
func geminiSilenced(w *Wirer, site Site) []Silence {
	var out []Silence
	files := geminiSettingsFiles(w, site)
	docs := make([]*wiring.Doc, len(files))
	for i, f := range files {
		docs[i] = settingsDoc(f, wiring.JSONComments)
	}
	enabledBy := ""
	for i := len(docs) - 1; i >= 0; i-- {
		if docs[i] == nil {
			continue
		}
		if v, ok := jsonBool(docs[i].Get("hooksConfig", "enabled")); ok {
			if !v {
				enabledBy = files[i]
			}
			break
		}
	}
	if enabledBy != "" {
		out = append(out, Silence{enabledBy, "hooksConfig.enabled is false: Gemini CLI runs no hook, quiver's included"})
	}
	for i, d := range docs {
		if d == nil {
			continue
		}
		for _, name := range jsonStrings(d.Get("hooksConfig", "disabled")) {
			if name == geminiHookName || site.Agent.Writes(name) {
				out = append(out, Silence{files[i], fmt.Sprintf("hooksConfig.disabled lists %q: Gemini CLI skips quiver's hooks", name)})
			}
		}
	}
	servers := w.wiredServers(site)
	if len(servers) == 0 {
		return out
	}
	var allowed []string
	allowedIn := []string{}
	for i, d := range docs {
		if d == nil {
			continue
		}
		for _, name := range jsonStrings(d.Get("mcp", "excluded")) {
			if slices.Contains(servers, name) {
				out = append(out, Silence{files[i], fmt.Sprintf("mcp.excluded lists %s: Gemini CLI does not start that server", name)})
			}
		}
		if raw := d.Get("mcp", "allowed"); raw != nil {
			list := jsonStrings(raw)
			if len(allowedIn) == 0 {
				allowed = list
			} else {
				allowed = slices.DeleteFunc(allowed, func(s string) bool { return !slices.Contains(list, s) })
			}
			allowedIn = append(allowedIn, files[i])
		}
	}
	if len(allowedIn) > 0 && len(allowed) > 0 {
		for _, s := range servers {
			if !slices.Contains(allowed, s) {
				out = append(out, Silence{strings.Join(allowedIn, ", "), fmt.Sprintf("mcp.allowed does not list %s: Gemini CLI does not start that server", s)})
			}
		}
	}
	enablement := filepath.Join(w.Home, ".gemini", "mcp-server-enablement.json")
	if d := settingsDoc(enablement, wiring.JSONComments); d != nil {
		for _, s := range servers {
			if v, ok := jsonBool(d.Get(strings.ToLower(s), "enabled")); ok && !v {
				out = append(out, Silence{enablement, fmt.Sprintf("%s is disabled: Gemini CLI does not start that server", s)})
			}
		}
	}
	return out
}

// wiredServers are the names of the MCP servers quiver keeps in the
// agent's files at site, as its record says.
func (w *Wirer) wiredServers(site Site) []string {
	rec, err := wiring.ReadRecord(site.Record)
	if err != nil || rec.Agents[site.Agent.Name] == nil {
		return nil
	}
	var out []string
	for _, f := range rec.Agents[site.Agent.Name].Files {
		for _, m := range f.Members {
			if len(m.Keys) > 0 {
				out = append(out, m.Keys[len(m.Keys)-1])
			}
		}
	}
	return out
}
