package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/marketplace"
)

// ---- plugin add ----

type pluginAddOptions struct {
	Specs []string
	marketplace.AddOptions
	Global, JSON bool
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
		Args:              minArgs(1),
		ValidArgsFunction: a.fromScopes(cobra.ShellCompDirectiveDefault, marketplace.ShellCandidates),
		PostRunE:          a.resyncAgents,
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
	f.BoolVar(&o.AllowHiddenUnicode, "allow-hidden-unicode", false, "install plugins whose files hide tag, bidi or variation-selector characters")
	a.jobsFlag(cmd)
	return cmd
}

func (a *App) runPluginAdd(cmd *cobra.Command, o pluginAddOptions) error {
	if err := o.Check(len(o.Specs)); err != nil {
		return err
	}
	e, err := a.env()
	if err != nil {
		return err
	}
	wd, err := a.Getwd()
	if err != nil {
		return err
	}
	reqs, err := e.Marketplaces(o.Global).Requests(o.Specs, o.AddOptions, wd, func(msg string) { a.Warnf("%s", msg) })
	if err != nil {
		return err
	}
	added, err := e.Changes(o.Global).AddSaying(cmd.Context(), reqs, o.JSON, a.Say)
	if err != nil && len(reqs) == 1 {
		return err
	}
	if errors.Is(err, plugins.ErrSomeFailed) {
		err = errReported
	}
	if o.JSON {
		if werr := a.JSON(added); werr != nil {
			return werr
		}
	}
	return err
}

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
		Example:           "  quiver plugin remove acme/guard\n  quiver plugin remove -g acme/guard acme/lint --keep-data",
		Args:              minArgs(1),
		ValidArgsFunction: a.fromScopes(noFiles, plugins.CompletePlugins),
		PostRunE:          a.resyncAgents,
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
	names, e, err := a.namedIn(o.Names...)
	if err != nil {
		return err
	}
	return plugins.ExplainScope(e.Changes(o.Global).Remove(cmd.Context(), names, o.KeepData), "remove")
}
