package main

import (
	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/term"
)

func (a *App) newHookCmd() *cobra.Command {
	return group("hook", "List and run hooks", "", a.newHookListCmd(), a.newHookRunCmd(), a.newHookServeCmd(), a.newHookTestCmd(), a.newHookCollectCmd())
}

type hookListOptions struct {
	All, JSON bool
}

func (a *App) newHookListCmd() *cobra.Command {
	var o hookListOptions
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the merged hook set",
		Long: `List the hooks in effect, in the order they run: the project's standalone
hooks, the project's plugins, your own standalone hooks, your plugins. --all
adds shadowed, disabled, untrusted and invalid hooks with the reason.

Each hook's event is learned by running "HOOK hook" once and caching the
answer; unchanged hooks are never asked again, and untrusted project hooks
are never run at all.`,
		Example: "  quiver hook list\n  quiver hook list --all --json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runHookList(cmd, o)
		},
	}
	cmd.Flags().BoolVar(&o.All, "all", false, "include shadowed, disabled, untrusted and invalid hooks")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	return cmd
}

func (a *App) runHookList(cmd *cobra.Command, o hookListOptions) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	hs, err := discovery.Hooks(cmd.Context(), e.Options())
	if err != nil {
		return err
	}
	skipped, none := hs.ListNotices(o.All)
	if skipped != "" {
		a.Warnf("%s", skipped)
	}
	return term.List(&a.Printer, o.JSON, discovery.HookEntries(hs, o.All), none, discovery.HookHeader(o.All), func(h discovery.HookEntry) []string { return h.Row(o.All) })
}
