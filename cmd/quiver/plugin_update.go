package main

import (
	"context"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/scan"
	"github.com/quiver-cli/quiver/internal/term"
	"github.com/spf13/cobra"
)

// ---- plugin outdated ----

type pluginOutdatedOptions struct{ Global, JSON bool }

func (a *App) newPluginOutdatedCmd() *cobra.Command {
	var o pluginOutdatedOptions
	cmd := &cobra.Command{
		Use:   "outdated",
		Short: "Show which plugins update would move",
		Long: `For each plugin in the lock file, show the locked commit and the newest
commit its ref points to now, asking the remote for its refs only (no
clone). Tag and commit pins are shown as pinned, local folders and links as
local. Exits 1 when a remote cannot be asked.`,
		Example: "  quiver plugin outdated\n  quiver plugin outdated -g --json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runPluginOutdated(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVarP(&o.Global, "global", "g", false, "check plugins installed in your home")
	a.jobsFlag(cmd)
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	return cmd
}

func (a *App) runPluginOutdated(ctx context.Context, o pluginOutdatedOptions) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	in := e.Installer(o.Global)
	out, failed, err := in.Outdated(ctx, e.Marketplaces(o.Global).Resolve)
	if err != nil {
		return err
	}
	if err := term.List(&a.Printer, o.JSON, out, plugins.NoPlugins(in.Scope.LockPath()), plugins.OutdatedHeader, plugins.Outdated.Row); err != nil {
		return err
	}
	if failed {
		return errReported
	}
	return nil
}

// ---- plugin update ----

type pluginUpdateOptions struct {
	Names               []string
	All, Global, DryRun bool
	Force, JSON         bool
	AllowHiddenUnicode  bool
	Ref                 string
}

func (a *App) newPluginUpdateCmd() *cobra.Command {
	var o pluginUpdateOptions
	cmd := &cobra.Command{
		Use:     "update [NAME...]",
		Aliases: []string{"upgrade"},
		Short:   "Move branch-tracking plugins to their newest commit",
		Long: `Update plugins that follow a branch (or the default branch) to its newest
commit, through the same staged, atomic swap as add, and record the new
commit and content hash in the lock file. Plugins pinned to a tag or a
commit stay where they are unless --ref moves them. A plugin whose folder
was edited is refused (the message lists the changed files) unless
--force. The plugin's data folder is kept. --dry-run changes nothing.`,
		Example:           "  quiver plugin update --all\n  quiver plugin update acme/guard --dry-run\n  quiver plugin update acme/guard --ref v2.0.0",
		ValidArgsFunction: a.fromScopes(noFiles, plugins.CompletePlugins),
		PostRunE:          a.resyncAgents,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Names = args
			return a.runPluginUpdate(cmd, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.All, "all", false, "update every plugin of the scope")
	f.BoolVarP(&o.Global, "global", "g", false, "update plugins installed in your home")
	f.BoolVar(&o.DryRun, "dry-run", false, "show what would change, change nothing")
	f.BoolVar(&o.Force, "force", false, "discard local edits to the plugin folders")
	f.StringVar(&o.Ref, "ref", "", "move one plugin to this branch, tag or commit")
	f.BoolVar(&o.JSON, "json", false, "print JSON")
	f.BoolVar(&o.AllowHiddenUnicode, "allow-hidden-unicode", false, "install new versions whose files hide tag, bidi or variation-selector characters")
	a.jobsFlag(cmd)
	return cmd
}

func (a *App) runPluginUpdate(cmd *cobra.Command, o pluginUpdateOptions) error {
	if err := plugins.CheckUpdate(len(o.Names), o.All, o.Ref); err != nil {
		return err
	}
	names, e, err := a.namedIn(o.Names...)
	if err != nil {
		return err
	}
	res, err := e.Changes(o.Global).Update(cmd.Context(), names, plugins.UpdateOptions{Ref: o.Ref, Force: o.Force, DryRun: o.DryRun, Resolve: e.Marketplaces(o.Global).Resolve, HiddenUnicode: scan.ModeFor(o.AllowHiddenUnicode)})
	if err != nil {
		return plugins.ExplainScope(err, "update")
	}
	if len(res) == 1 && res[0].Err != nil && !o.JSON {
		return res[0].Err
	}
	out, failed := plugins.UpdateLines(res)
	if len(res) == 0 && !o.JSON {
		a.Warnf("%s", plugins.NoPlugins(e.Installer(o.Global).Scope.LockPath()))
	}
	if o.JSON {
		if err := a.JSON(out); err != nil {
			return err
		}
	} else {
		for _, r := range res {
			a.Say(r.Describe(), r.Err)
		}
	}
	if failed {
		return errReported
	}
	return nil
}
