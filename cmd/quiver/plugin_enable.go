package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/spf13/cobra"
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
		ValidArgsFunction: a.completePlugins(),
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
