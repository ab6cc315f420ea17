package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/term"
)

// ---- plugin config ----

type pluginConfigOptions struct {
	Name         string
	Set          []string
	Global, JSON bool
}

func (a *App) newPluginConfigCmd() *cobra.Command {
	var o pluginConfigOptions
	cmd := &cobra.Command{
		Use:   "config NAME [KEY=VALUE...]",
		Short: "List or set a plugin's settings (its userConfig)",
		Long: `List the settings plugin NAME asks for (its userConfig), or set them.

A plugin's MCP servers read them as ${user_config.KEY}. Plain values of a
project plugin are kept in .quiver/config.yaml, shared with the team and
covered by trust like the lock; values the plugin marks sensitive are kept
only in your home ($QUIVER_HOME/secrets, readable by you alone), never
printed, never locked and never written into an agent's file: quiver mcp
exec hands them to the server it starts. KEY= unsets a value.`,
		Example:  "  quiver plugin config acme/search\n  quiver plugin config acme/search region=eu api_token=...\n  quiver plugin config -g acme/search region=",
		Args:     minArgs(1),
		PostRunE: a.resyncAgents,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name, o.Set = args[0], args[1:]
			return a.runPluginConfig(o)
		},
	}
	cmd.Flags().BoolVarP(&o.Global, "global", "g", false, "act on your home's plugins")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	return cmd
}

func (a *App) runPluginConfig(o pluginConfigOptions) error {
	name, err := plugins.ParseName(o.Name)
	if err != nil {
		return err
	}
	set, err := plugins.ParseSettings(o.Set)
	if err != nil {
		return err
	}
	e, err := a.env()
	if err != nil {
		return err
	}
	p, err := plugins.ReadPlugin(e.Layout.Scope(o.Global), name)
	if err != nil {
		return err
	}
	if len(set) == 0 {
		return a.listConfig(p, o.JSON)
	}
	return e.Settings(o.Global).SetConfig(p, set)
}

func (a *App) listConfig(p plugins.Plugin, asJSON bool) error {
	c, err := plugins.ReadUserConfig(p)
	if err != nil {
		return err
	}
	return term.List(&a.Printer, asJSON, c.Rows(), fmt.Sprintf("%s asks for no settings", p.Name), plugins.ConfigHeader, plugins.ConfigRow.Row)
}
