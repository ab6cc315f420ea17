package main

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/spf13/cobra"
)

type pluginListOptions struct {
	Global, Local, JSON bool
}

func (a *App) newPluginListCmd() *cobra.Command {
	var o pluginListOptions
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List installed plugins",
		Long: `List the plugins installed in the project and in your home: the project's
first, then by name. -g shows only your home's, --local only the project's.`,
		Example: "  quiver plugin list\n  quiver plugin list -g --json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Global && o.Local {
				return usageErrorf(cmd, "-g and --local exclude each other")
			}
			return a.runPluginList(o)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&o.Global, "global", "g", false, "only plugins installed in your home")
	f.BoolVar(&o.Local, "local", false, "only plugins installed in the project")
	f.BoolVar(&o.JSON, "json", false, "print JSON")
	return cmd
}

func (a *App) runPluginList(o pluginListOptions) error {
	layout, err := a.layout()
	if err != nil {
		return err
	}
	var scopes []plugins.Scope
	switch {
	case o.Global:
		scopes = []plugins.Scope{layout.Global}
	case o.Local:
		if layout.Local != nil {
			scopes = []plugins.Scope{*layout.Local}
		}
	default:
		scopes = layout.Scopes()
	}
	var all []plugins.Plugin
	for _, s := range scopes {
		ps, err := plugins.ListPlugins(s)
		if err != nil {
			return err
		}
		all = append(all, ps...)
	}
	if o.JSON {
		out := make([]pluginJSON, 0, len(all))
		for _, p := range all {
			out = append(out, toJSON(p))
		}
		return writeJSON(a.Stdout, out)
	}
	if len(all) == 0 {
		a.warnf("No plugins installed. Add one with: quiver plugin add ORG/REPO")
		return nil
	}
	rows := make([][]string, 0, len(all))
	for _, p := range all {
		ref, commit := dash(shortRef(p.Entry.Ref)), dash(shortCommit(p.Entry.Commit))
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
		rows = append(rows, []string{
			name, string(p.Scope.Location), ref, commit,
			strconv.Itoa(len(p.Contents.Skills)), strconv.Itoa(len(p.Contents.Recipes)), strconv.Itoa(len(p.Contents.Hooks) + len(discovery.HandlerNames(p.Contents))),
		})
	}
	return a.writeTable([]string{"NAME", "LOCATION", "REF", "COMMIT", "SKILLS", "RECIPES", "HOOKS"}, rows)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ---- plugin show ----

type pluginShowOptions struct {
	Name   string
	Global bool
	JSON   bool
}

func (a *App) newPluginShowCmd() *cobra.Command {
	var o pluginShowOptions
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Show one installed plugin with its items",
		Long: `Show an installed plugin: where it is, its source, ref, commit and content
hash, and the hooks, skills and recipes it carries. NAME is org/repo (or
org@repo). Without -g the project's install is shown, else your home's.`,
		Example: "  quiver plugin show acme/guard\n  quiver plugin show -g acme/guard --json",
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return a.runPluginShow(cmd, o)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&o.Global, "global", "g", false, "show the plugin installed in your home")
	f.BoolVar(&o.JSON, "json", false, "print JSON")
	return cmd
}

func (a *App) runPluginShow(cmd *cobra.Command, o pluginShowOptions) error {
	name, err := plugins.ParseName(o.Name)
	if err != nil {
		return &usageError{err: err, cmd: cmd}
	}
	layout, err := a.layout()
	if err != nil {
		return err
	}
	scopes := layout.Scopes()
	if o.Global {
		scopes = []plugins.Scope{layout.Global}
	}
	var p plugins.Plugin
	found := false
	for _, s := range scopes {
		if plugins.Installed(s, name) {
			if p, err = plugins.ReadPlugin(s, name); err != nil {
				return err
			}
			found = true
			break
		}
	}
	if !found {
		if o.Global && layout.Local != nil && plugins.Installed(*layout.Local, name) {
			return fmt.Errorf("plugin %s is installed in the project, not globally; drop -g to show it", name)
		}
		return fmt.Errorf("plugin %s is not installed; see quiver plugin list", name)
	}
	out := pluginShowJSON{
		pluginJSON: toJSON(p), RepoPath: p.Entry.Path, Marketplace: p.Entry.Marketplace, Hash: p.Entry.Hash, Link: p.Entry.Link, Missing: p.Missing,
		Description: p.Manifest.Description, Version: p.Manifest.Version, Homepage: p.Manifest.Homepage,
		Problems: p.Parts().Problems,
	}
	if m := p.Contents.Manifest; m != nil {
		// plugin.yaml wins where both say something.
		out.Description = cmp.Or(out.Description, m.Description)
		out.Version = cmp.Or(out.Version, m.Version)
		out.Homepage = cmp.Or(out.Homepage, m.Homepage)
	}
	if o.JSON {
		return writeJSON(a.Stdout, out)
	}
	w := a.Stdout
	field := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-12s %s\n", k+":", visible(v))
		}
	}
	field("name", out.Name)
	field("description", out.Description)
	field("version", out.Version)
	field("location", out.Location)
	field("path", out.Path)
	field("source", out.Source)
	field("ref", out.Ref)
	field("commit", out.Commit)
	field("hash", out.Hash)
	if out.Link {
		field("link", "yes (edits to the source show up at once)")
	}
	if out.Missing {
		field("missing", "the folder is gone; reinstall it with quiver plugin add --force")
	}
	field("enabled", strconv.FormatBool(out.Enabled))
	field("also", out.Parts.Describe())
	list := func(k string, items []string) {
		if len(items) == 0 {
			field(k, "-")
			return
		}
		field(k, strings.Join(items, ", "))
	}
	list("hooks", out.Hooks)
	list("skills", out.Skills)
	list("recipes", out.Recipes)
	for _, problem := range out.Problems {
		a.warnf("quiver: %s: %s", out.Name, problem)
	}
	return nil
}

// ---- plugin remove ----
