package main

import (
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/spf13/cobra"
)

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
		ValidArgsFunction: a.completePlugins(),
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
