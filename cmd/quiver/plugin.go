package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/marketplace"
)

func (a *App) newPluginCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugin",
		Short: "Install, list, show and remove plugins",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.newPluginAddCmd(), a.newPluginListCmd(), a.newPluginShowCmd(), a.newPluginRemoveCmd(),
		a.newPluginUpdateCmd(), a.newPluginOutdatedCmd(), a.newPluginInstallCmd(), a.newPluginVerifyCmd(),
		a.newPluginEnableCmd(false), a.newPluginEnableCmd(true), a.newPluginInitCmd(), a.newPluginValidateCmd())
	return cmd
}

// pluginJSON is the shape of a plugin in --json output (SPEC §7).
type pluginJSON struct {
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
}

// pluginShowJSON adds what only `plugin show` prints.
type pluginShowJSON struct {
	pluginJSON
	// RepoPath is the folder of the repository installed (lock "path").
	RepoPath    string `json:"repo_path,omitempty"`
	Marketplace string `json:"marketplace,omitempty"`
	Hash        string `json:"hash,omitempty"`
	Link        bool   `json:"link,omitempty"`
	// Unused counts what quiver does not use, by kind ("agents": 3).
	Unused      map[string]int `json:"unused"`
	Missing     bool           `json:"missing,omitempty"`
	Description string         `json:"description,omitempty"`
	Version     string         `json:"version,omitempty"`
	Homepage    string         `json:"homepage,omitempty"`
}

func toJSON(p plugins.Plugin) pluginJSON {
	return pluginJSON{
		Name:     p.Name.String(),
		Location: string(p.Scope.Location),
		Path:     p.Dir,
		Source:   p.Entry.Source,
		Ref:      p.Entry.Ref,
		Commit:   p.Entry.Commit,
		Enabled:  p.Enabled(),
		Skills:   plugins.Names(p.Contents.Skills),
		Recipes:  plugins.Names(p.Contents.Recipes),
		Hooks:    append(plugins.Names(p.Contents.Hooks), discovery.HandlerNames(p.Contents)...),
	}
}

// installer builds the installer for the chosen scope, wired to stderr.
func (a *App) installer(layout plugins.Layout, global bool) *plugins.Installer {
	scope := layout.Scope(global)
	in := &plugins.Installer{
		Scope: scope,
		OnWait: func() {
			fmt.Fprintf(a.Stderr, "quiver: waiting for another quiver command to finish in %s (up to %s)...\n", scope.Root, plugins.DefaultLockWait)
		},
		OnRecover: func(msg string) { a.warnf("quiver: %s", msg) },
		Fetcher:   a.fetcher(),
		GitBase:   a.Getenv("QUIVER_GIT_BASE"),
	}
	if other, ok := layout.Other(scope); ok {
		in.Other = &other
	}
	return in
}

func (a *App) fetcher() *plugins.Fetcher {
	token := a.Getenv("QUIVER_GIT_TOKEN")
	if token == "" {
		token = a.Getenv("GITHUB_TOKEN")
	}
	f := &plugins.Fetcher{Credentials: plugins.Credentials{Token: token, Base: a.Getenv("QUIVER_GIT_BASE")}}
	rw, err := plugins.LoadRewrites(plugins.GitConfigPaths(a.Getenv))
	if err != nil {
		a.warnf("quiver: %v; fetching without its url.insteadOf rewrites", err)
	}
	f.Rewrites = rw
	if a.StderrIsTTY && !a.quiet {
		f.Progress = a.Stderr
	}
	return f
}

func scopeWord(l plugins.Location) string {
	if l == plugins.Global {
		return "globally"
	}
	return "in the project"
}

// ---- plugin add ----

type pluginAddOptions struct {
	Specs  []string
	Global bool
	Ref    string
	Name   string
	Path   string
	Force  bool
	Link   bool
	JSON   bool
}

func (a *App) newPluginAddCmd() *cobra.Command {
	var o pluginAddOptions
	cmd := &cobra.Command{
		Use:   "add SPEC...",
		Short: "Install plugins from git repositories or local folders",
		Long: `Install plugins into the project (.quiver/plugins/org@repo) or, with -g,
into your home (~/.quiver/plugins/org@repo), and record the exact commit and
a content hash in that scope's quiver.lock.

SPEC is org/repo (from $QUIVER_GIT_BASE, default https://github.com), an
https, http or ssh URL, user@host:org/repo.git, or a local path (./dir,
../dir, /dir, file:///dir). A ref goes after the last @ (org/repo@v1.2.0) or
in --ref. A local git repository is cloned, a plain folder copied, and with
--link the folder is linked so edits show up at once. org/repo/sub/dir or
--path sub/dir installs one folder of the repository, named org/dir.

The plugin is fetched and checked beside its final place and swapped in
whole: a failed or interrupted add leaves the previous state as it was.`,
		Example: `  quiver plugin add acme/guard
  quiver plugin add acme/guard@v1.2.0
  quiver plugin add -g https://github.com/acme/guard.git --ref feature/x
  quiver plugin add ./my-plugin --link --name me/my-plugin
  quiver plugin add anthropics/claude-plugins-official/plugins/hookify
  quiver plugin add https://git.example.com/tools.git --path plugins/guard`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Specs = args
			return a.runPluginAdd(cmd, o)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&o.Global, "global", "g", false, "install into your home instead of the project")
	f.StringVar(&o.Ref, "ref", "", "branch, tag or commit to install (for refs containing /)")
	f.StringVar(&o.Name, "name", "", "install under this `org/repo` name")
	f.StringVar(&o.Path, "path", "", "install only this `folder` of the repository")
	f.BoolVar(&o.Force, "force", false, "replace an installed plugin of the same name")
	f.BoolVar(&o.Link, "link", false, "link a local folder instead of copying it (for plugin authors)")
	f.BoolVar(&o.JSON, "json", false, "print the installed plugins as JSON")
	return cmd
}

func (a *App) runPluginAdd(cmd *cobra.Command, o pluginAddOptions) error {
	if len(o.Specs) > 1 && (o.Ref != "" || o.Name != "") {
		return usageErrorf(cmd, "--ref and --name apply to a single spec")
	}
	if len(o.Specs) > 1 && o.Path != "" {
		return usageErrorf(cmd, "--path applies to a single spec")
	}
	if o.Ref != "" {
		if err := plugins.ValidateRef(o.Ref); err != nil {
			return &usageError{err: err, cmd: cmd}
		}
	}
	layout, err := a.layout()
	if err != nil {
		return err
	}
	wd, err := a.Getwd()
	if err != nil {
		return err
	}
	// Parse and name everything before touching the disk.
	var jobs []marketplace.Job
	seen := map[string]bool{}
	store := a.marketplaces(layout, o.Global)
	for _, raw := range o.Specs {
		if j, ok, err := store.Job(raw); ok {
			if err != nil {
				return err
			}
			if j.Renamed != "" {
				a.warnf("quiver: %s@%s was renamed to %s; installing that", j.Renamed, j.Marketplace, j.Name.Repo()+"@"+j.Marketplace)
			}
			if o.Ref != "" || o.Path != "" || o.Link {
				return usageErrorf(cmd, "%s: a marketplace entry says where and what to fetch; --ref, --path and --link do not apply", raw)
			}
			if o.Name != "" {
				if j.Name, err = plugins.ResolveName(j.Spec, o.Name); err != nil {
					return &usageError{err: err, cmd: cmd}
				}
			}
			if seen[j.Name.String()] {
				return usageErrorf(cmd, "plugin %s is named twice", j.Name)
			}
			seen[j.Name.String()] = true
			jobs = append(jobs, j)
			continue
		}
		spec, err := plugins.ParseSpec(raw, a.Getenv("QUIVER_GIT_BASE"), wd)
		if err != nil {
			return &usageError{err: err, cmd: cmd}
		}
		if o.Ref != "" {
			if spec.Ref != "" {
				return usageErrorf(cmd, "%s: give the ref once, either after @ or with --ref", plugins.Redact(raw))
			}
			spec.Ref = o.Ref
		}
		if o.Path != "" {
			if spec.Subdir != "" {
				return usageErrorf(cmd, "%s: give the folder once, either in the spec or with --path", plugins.Redact(raw))
			}
			if err := spec.SetSubdir(o.Path); err != nil {
				return &usageError{err: err, cmd: cmd}
			}
		}
		if o.Link && !spec.IsLocal() {
			return usageErrorf(cmd, "%s: --link needs a local folder", plugins.Redact(raw))
		}
		if spec.IsLocal() {
			if fi, err := os.Stat(spec.Path); err != nil || !fi.IsDir() {
				return fmt.Errorf("%s: no such folder %s", raw, spec.Path)
			}
		}
		name, err := plugins.ResolveName(spec, o.Name)
		if err != nil {
			return &usageError{err: err, cmd: cmd}
		}
		if seen[name.String()] {
			return usageErrorf(cmd, "plugin %s is named twice", name)
		}
		seen[name.String()] = true
		jobs = append(jobs, marketplace.Job{Spec: spec, Name: name})
	}

	in := a.installer(layout, o.Global)
	var added []pluginJSON
	var touched []plugins.Name
	for _, j := range jobs {
		touched = append(touched, j.Name)
	}
	var chosen []plugins.Name
	err = a.keepTrust(layout, o.Global, &discovery.Change{Plugins: touched}, func() error {
		var failed error
		for _, j := range jobs {
			p, err := a.addOne(cmd.Context(), in, j, o)
			if err != nil {
				if len(jobs) == 1 {
					return err
				}
				a.printError(err)
				failed = errReported
				continue
			}
			added = append(added, toJSON(p))
			chosen = append(chosen, p.Name)
			if !o.JSON {
				a.warnf("Installed %s %s%s: %s%s", p.Name, scopeWord(p.Scope.Location), describeVersion(p.Entry), countItems(p.Contents), unusedNote(p.Dir))
			}
		}
		return failed
	}, func() error { return discovery.ChoosePlugins(layout, chosen) })
	if err != nil && len(jobs) == 1 {
		return err
	}
	if o.JSON {
		if added == nil {
			added = []pluginJSON{}
		}
		if werr := writeJSON(a.Stdout, added); werr != nil {
			return werr
		}
	}
	return err
}

func (a *App) addOne(ctx context.Context, in *plugins.Installer, j marketplace.Job, o pluginAddOptions) (plugins.Plugin, error) {
	p, err := in.Add(ctx, plugins.AddRequest{Spec: j.Spec, Name: j.Name, Force: o.Force, Link: o.Link,
		FolderName:  o.Name == "" && j.Marketplace == "" && j.Spec.Subdir != "" && !j.Spec.IsLocal(),
		Marketplace: j.Marketplace, EntryManifest: j.Manifest})
	if errors.Is(err, plugins.ErrNotAPlugin) && len(j.Carries) > 0 {
		return p, fmt.Errorf("add %s: the marketplace entry carries only %s, which quiver does not use (it installs hooks, skills and recipes)", j.Name, strings.Join(j.Carries, " and "))
	}
	if errors.Is(err, plugins.ErrAlreadyInstalled) {
		return p, fmt.Errorf("plugin %s is already installed %s; use --force to replace it", j.Name, scopeWord(in.Scope.Location))
	}
	if err != nil {
		return p, fmt.Errorf("add %s: %w", j.Name, err)
	}
	return p, nil
}

// describeVersion says what was installed: " (v1.2.0, 4f1c2ab)".
func describeVersion(e plugins.LockEntry) string {
	var parts []string
	if e.Ref != "" {
		parts = append(parts, shortRef(e.Ref))
	}
	switch {
	case e.Link:
		parts = append(parts, "linked to "+e.Source)
	case e.Commit != "":
		parts = append(parts, shortCommit(e.Commit))
	default:
		parts = append(parts, "copied from "+e.Source)
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// shortRef abbreviates a commit SHA given as a ref; names stay whole.
func shortRef(r string) string {
	if len(r) == 40 && strings.Trim(r, "0123456789abcdef") == "" {
		return r[:7]
	}
	return r
}

func shortCommit(c string) string {
	if len(c) > 7 {
		return c[:7]
	}
	return c
}

func countItems(c plugins.Contents) string {
	n := func(k int, word string) string {
		if k == 1 {
			return "1 " + word
		}
		return strconv.Itoa(k) + " " + word + "s"
	}
	return n(len(c.Hooks)+len(discovery.HandlerNames(c)), "hook") + ", " + n(len(c.Skills), "skill") + ", " + n(len(c.Recipes), "recipe")
}

// unusedNote names what a plugin carries that quiver does not use (SPEC
// §11), never dropped silently: "; not used by quiver: 3 agents".
func unusedNote(dir string) string {
	if s := plugins.DescribeUnused(plugins.Unused(dir)); s != "" {
		return "; not used by quiver: " + s
	}
	return ""
}

// ---- plugin list ----

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
		Unused: plugins.Unused(p.Dir),
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
	field("not used", plugins.DescribeUnused(out.Unused))
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
	return nil
}

// ---- plugin remove ----

type pluginRemoveOptions struct {
	Names    []string
	Global   bool
	KeepData bool
}

func (a *App) newPluginRemoveCmd() *cobra.Command {
	var o pluginRemoveOptions
	cmd := &cobra.Command{
		Use:     "remove NAME...",
		Aliases: []string{"rm", "uninstall"},
		Short:   "Uninstall plugins",
		Long: `Uninstall plugins from the project or, with -g, from your home: the plugin
folder and its lock entry go, and so does its data folder unless
--keep-data. Every name is checked before anything is removed.`,
		Example: "  quiver plugin remove acme/guard\n  quiver plugin remove -g acme/guard acme/lint --keep-data",
		Args:    minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Names = args
			return a.runPluginRemove(cmd, o)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&o.Global, "global", "g", false, "remove from your home instead of the project")
	f.BoolVar(&o.KeepData, "keep-data", false, "keep the plugin's data folder")
	return cmd
}

func (a *App) runPluginRemove(cmd *cobra.Command, o pluginRemoveOptions) error {
	names, err := parseNames(cmd, o.Names)
	if err != nil {
		return err
	}
	layout, err := a.layout()
	if err != nil {
		return err
	}
	in := a.installer(layout, o.Global)
	removed := false
	err = a.keepTrust(layout, o.Global, &discovery.Change{Plugins: names}, func() error {
		err := in.Remove(cmd.Context(), names, o.KeepData)
		removed = err == nil
		return err
	}, func() error {
		if !removed {
			return nil
		}
		return discovery.Forget(layout, names, nil)
	})
	if err != nil {
		return scopeError(err, "remove")
	}
	for _, n := range names {
		a.warnf("Removed %s %s", n, scopeWord(in.Scope.Location))
	}
	return nil
}
