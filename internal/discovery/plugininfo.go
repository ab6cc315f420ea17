package discovery

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// What plugin add, list and show say of installed plugins: discovery's,
// since a plugin's hooks include the handlers of its hooks.json.

// PluginInfo is the shape of a plugin in --json output (SPEC §7).
type PluginInfo struct {
	Name     string   `json:"name"`
	Location string   `json:"location"`
	Path     string   `json:"path"`
	Source   string   `json:"source"`
	Ref      string   `json:"ref"`
	Commit   string   `json:"commit"`
	Enabled  bool     `json:"enabled"`
	Skills   []string `json:"skills"`
	Recipes  []string `json:"recipes"`
	Hooks    []string `json:"hooks"`
	// Parts counts every part the plugin carries (SPEC §16).
	Parts plugins.Count `json:"parts"`
}

// InfoOf is what list and add say of p.
func InfoOf(p plugins.Plugin) PluginInfo {
	handlers := HandlerNames(p.Contents)
	return PluginInfo{
		Name:     p.Name.String(),
		Location: string(p.Scope.Location),
		Path:     p.Dir,
		Source:   p.Entry.Source,
		Ref:      p.Entry.Ref,
		Commit:   p.Entry.Commit,
		Enabled:  p.Enabled(),
		Skills:   plugins.Names(p.Contents.Skills),
		Recipes:  plugins.Names(p.Contents.Recipes),
		Hooks:    append(plugins.Names(p.Contents.Hooks), handlers...),
		Parts:    plugins.CountParts(p.Contents, len(handlers), p.Parts()),
	}
}

// Infos is what plugin list --json says of ps: never nil, so JSON says
// [].
func Infos(ps []plugins.Plugin) []PluginInfo {
	out := make([]PluginInfo, 0, len(ps))
	for _, p := range ps {
		out = append(out, InfoOf(p))
	}
	return out
}

// PluginDetail adds what only plugin show says.
type PluginDetail struct {
	PluginInfo
	// RepoPath is the folder of the repository installed (lock "path").
	RepoPath    string `json:"repo_path,omitempty"`
	Marketplace string `json:"marketplace,omitempty"`
	Hash        string `json:"hash,omitempty"`
	Link        bool   `json:"link,omitempty"`
	Missing     bool   `json:"missing,omitempty"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version,omitempty"`
	Homepage    string `json:"homepage,omitempty"`
	// Problems say which parts could not be read.
	Problems []string `json:"problems,omitempty"`
}

// DetailOf is what plugin show says of p: plugin.yaml's description,
// version and homepage where it says them, else .claude-plugin's.
func DetailOf(p plugins.Plugin) PluginDetail {
	d := PluginDetail{
		PluginInfo: InfoOf(p), RepoPath: p.Entry.Path, Marketplace: p.Entry.Marketplace, Hash: p.Entry.Hash, Link: p.Entry.Link, Missing: p.Missing,
		Description: p.Manifest.Description, Version: p.Manifest.Version, Homepage: p.Manifest.Homepage,
		Problems: p.Parts().Problems,
	}
	if m := p.Contents.Manifest; m != nil {
		d.Description = cmp.Or(d.Description, m.Description)
		d.Version = cmp.Or(d.Version, m.Version)
		d.Homepage = cmp.Or(d.Homepage, m.Homepage)
	}
	return d
}

// Fields are what plugin show prints of d, in order, as name and value:
// a field with nothing to say is left out, an empty list says "-".
func (d PluginDetail) Fields() [][2]string {
	var out [][2]string
	field := func(k, v string) {
		if v != "" {
			out = append(out, [2]string{k, v})
		}
	}
	field("name", d.Name)
	field("description", d.Description)
	field("version", d.Version)
	field("location", d.Location)
	field("path", d.Path)
	field("source", d.Source)
	field("ref", d.Ref)
	field("commit", d.Commit)
	field("hash", d.Hash)
	if d.Link {
		field("link", "yes (edits to the source show up at once)")
	}
	if d.Missing {
		field("missing", "the folder is gone; reinstall it with quiver plugin add --force")
	}
	field("enabled", strconv.FormatBool(d.Enabled))
	field("also", d.Parts.Describe())
	for _, l := range []struct {
		name  string
		items []string
	}{{"hooks", d.Hooks}, {"skills", d.Skills}, {"recipes", d.Recipes}} {
		if len(l.items) == 0 {
			field(l.name, "-")
		} else {
			field(l.name, strings.Join(l.items, ", "))
		}
	}
	return out
}

// Lines are what plugin show prints of d for people: each field's name
// and value in aligned columns, what a plugin wrote made visible.
func (d PluginDetail) Lines() []string {
	var out []string
	for _, f := range d.Fields() {
		out = append(out, fmt.Sprintf("%-12s %s", f[0]+":", safefs.Visible(f[1])))
	}
	return out
}

// Added is plugin add's line for an installed plugin: "Installed acme/guard
// in the project (v1, 4f1c2ab): 2 hooks, 1 skill, 0 recipes; 1 MCP server".
func Added(p plugins.Plugin) string {
	return fmt.Sprintf("Installed %s %s%s: %s%s", p.Name, p.Scope.Location.Where(), p.Entry.Installed(),
		plugins.CountItems(p.Contents, len(HandlerNames(p.Contents))), p.PartsNote())
}

// PluginRowHeader heads the rows of PluginRow.
var PluginRowHeader = []string{"NAME", "LOCATION", "REF", "COMMIT", "SKILLS", "RECIPES", "HOOKS", "AGENTS", "MCP", "LSP"}

// PluginRow is p's row in plugin list's table.
func PluginRow(p plugins.Plugin) []string {
	ref, commit := dash(plugins.ShortRef(p.Entry.Ref)), dash(plugins.ShortCommit(p.Entry.Commit))
	switch {
	case p.Missing:
		commit = "missing"
	case p.Entry.Link:
		commit = "link"
	}
	name := p.Name.String()
	if !p.Enabled() {
		name += " (disabled)"
	}
	parts := p.Parts()
	return []string{
		name, string(p.Scope.Location), ref, commit,
		strconv.Itoa(len(p.Contents.Skills)), strconv.Itoa(len(p.Contents.Recipes)), strconv.Itoa(len(p.Contents.Hooks) + len(HandlerNames(p.Contents))),
		strconv.Itoa(len(parts.Agents)), strconv.Itoa(len(parts.MCP)), strconv.Itoa(len(parts.LSP)),
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
