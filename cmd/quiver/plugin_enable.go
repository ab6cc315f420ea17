package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/term"
)

// ---- plugin enable / disable ----

type pluginEnableOptions struct {
	Names           []string
	Global, Disable bool
}

func (a *App) newPluginEnableCmd(disable bool) *cobra.Command {
	verb, short := "enable", "Let a disabled plugin contribute its hooks, skills and recipes again"
	if disable {
		verb, short = "disable", "Stop a plugin from contributing any hook, skill or recipe"
	}
	o := pluginEnableOptions{Disable: disable}
	cmd := &cobra.Command{
		Use:   verb + " NAME...",
		Short: short,
		Long: fmt.Sprintf(`%s plugins: recorded as "disabled" in the lock file, so it is shared with
the team. A disabled plugin stays installed but contributes no hook, skill
or recipe, so none of its hooks can run.`, strings.ToUpper(verb[:1])+verb[1:]),
		Example:           fmt.Sprintf("  quiver plugin %s acme/guard\n  quiver plugin %s -g acme/guard", verb, verb),
		Args:              minArgs(1),
		ValidArgsFunction: a.fromScopes(noFiles, plugins.CompletePlugins),
		PostRunE:          a.resyncAgents,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Names = args
			return a.runPluginEnable(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVarP(&o.Global, "global", "g", false, "act on your home's plugins")
	return cmd
}

func (a *App) runPluginEnable(ctx context.Context, o pluginEnableOptions) error {
	names, e, err := a.namedIn(o.Names...)
	if err != nil {
		return err
	}
	verb := "enable"
	if o.Disable {
		verb = "disable"
	}
	return plugins.ExplainScope(e.Changes(o.Global).SetDisabled(ctx, names, o.Disable), verb)
}

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
