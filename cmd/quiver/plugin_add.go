package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/marketplace"
	"github.com/spf13/cobra"
)

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
				a.warnf("Installed %s %s%s: %s%s", p.Name, scopeWord(p.Scope.Location), describeVersion(p.Entry), countItems(p.Contents), partsNote(p))
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

// partsNote names the parts beside hooks, skills and recipes (SPEC §16):
// "; 1 MCP server, 3 agents".
func partsNote(p plugins.Plugin) string {
	if s := plugins.CountParts(p.Contents, 0, p.Parts()).Describe(); s != "" {
		return "; " + s
	}
	return ""
}

// ---- plugin list ----
