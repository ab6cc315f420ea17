package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks"
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

// ---- hook test ----

type hookTestOptions struct {
	Target string
	hooks.Input
	JSON bool
}

func (a *App) newHookTestCmd() *cobra.Command {
	var o hookTestOptions
	cmd := &cobra.Command{
		Use:   "test PATH|NAME --event EVENT",
		Short: "Run one hook alone and explain what it returned",
		Long: `Run a single hook, given by its name in hook list or by a path written as
./x, ../x or /x, with a payload (stdin, --payload FILE, or a minimal one for
the event), and show what it declares for "hook", its exit code, stdout,
stderr, duration, and what quiver makes of it. For hook authors; nothing
else runs. A bare name is always looked up, never taken for a file in the
current folder. Untrusted project hooks are refused by name: pass the path
to run one deliberately.`,
		Example: `  quiver hook test ./hooks/validate-command --event before_tool_call --payload payload.json
  echo '{"message":"hi"}' | quiver hook test acme/guard/check-message --event user_message_send`,
		Args:              exactArgs(1),
		ValidArgsFunction: a.fromScopes(cobra.ShellCompDirectiveDefault, discovery.CompleteHooks),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Target = args[0]
			return a.runHookTest(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Event, "event", "", "the event to send (required)")
	f.StringVar(&o.PayloadFile, "payload", "", "read the payload JSON from `FILE`")
	f.StringVar(&o.Timeout, "timeout", "", "time limit, a Go `duration`, 1ms to 1h (default $QUIVER_HOOK_TIMEOUT or 30s)")
	f.BoolVar(&o.JSON, "json", false, "print the report as JSON")
	cmd.MarkFlagRequired("event")
	cmd.RegisterFlagCompletionFunc("event", completeEvents)
	return cmd
}

func (a *App) runHookTest(cmd *cobra.Command, o hookTestOptions) error {
	in, err := a.readEvent(cmd, o.Input)
	if err != nil {
		return err
	}
	h, err := hooks.FindHook(cmd.Context(), a.envAt(in.Layout).Options(), o.Target)
	if err != nil {
		return err
	}
	ex := &hooks.Executor{ProjectDir: in.Layout.ProjectDir, Timeout: in.Timeout}
	rep := hooks.TestHook(cmd.Context(), ex, h, o.Event, in.Payload, a.envAt(in.Layout).QueryTimeout())
	if err := a.Report(o.JSON, rep); err != nil {
		return err
	}
	if rep.Status == hooks.Failed || rep.Status == hooks.TimedOut {
		return fmt.Errorf("hook %s %s: %s", h.Name, rep.Status, rep.Error)
	}
	return nil
}
