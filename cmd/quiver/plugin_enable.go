package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/spf13/cobra"
)

// ---- plugin enable / disable ----

func (a *App) newPluginEnableCmd(disable bool) *cobra.Command {
	verb, short := "enable", "Let a disabled plugin contribute its hooks, skills and recipes again"
	if disable {
		verb, short = "disable", "Stop a plugin from contributing any hook, skill or recipe"
	}
	var global bool
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
			return a.runPluginEnable(cmd.Context(), args, global, verb)
		},
	}
	cmd.Flags().BoolVarP(&global, "global", "g", false, "act on your home's plugins")
	return cmd
}

func (a *App) runPluginEnable(ctx context.Context, args []string, global bool, verb string) error {
	names, err := plugins.ParseNames(args)
	if err != nil {
		return err
	}
	layout, err := a.layout()
	if err != nil {
		return err
	}
	return plugins.ExplainScope(a.changes(layout, global).SetDisabled(ctx, names, verb == "disable"), verb)
}
