package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/proc"
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
	a.Say(skipped, nil)
	return term.ListSeq(&a.Printer, o.JSON, discovery.HookEntrySeq(hs, o.All), none, discovery.HookHeader(o.All), func(h *discovery.HookEntry) []string { return h.Row(o.All) })
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
	e := a.envAt(in.Layout)
	h, err := hooks.FindHook(cmd.Context(), e.Options(), o.Target)
	if err != nil {
		return err
	}
	ex := &hooks.Executor{ProjectDir: in.Layout.ProjectDir, Timeout: in.Timeout}
	rep := hooks.TestHook(cmd.Context(), ex, h, o.Event, in.Payload, e.QueryTimeout())
	if err := a.Report(o.JSON, rep); err != nil {
		return err
	}
	if rep.Status == hooks.Failed || rep.Status == hooks.TimedOut {
		return fmt.Errorf("hook %s %s: %s", h.Name, rep.Status, rep.Error)
	}
	return nil
}

type hookServeOptions struct {
	Timeout    string
	FailClosed bool
}

func (a *App) newHookServeCmd() *cobra.Command {
	var o hookServeOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Answer events over JSON-RPC on stdin/stdout, for agents that stay running",
		Long: `Serve hook run as a long-lived process: JSON-RPC 2.0, one message per line,
requests on stdin and responses on stdout (nothing else is written there;
warnings go to stderr). An agent pays one process start instead of one per
event.

Methods: run {"event", "payload", "timeout"?, "fail_closed"?} answers
exactly what hook run prints; list {"kind": "hooks"|"skills"|"recipes",
"all"?} answers the --json list; shutdown stops the server once the
requests already read are answered. Requests may be pipelined, and
responses come back as they finish, with the request's id. Every request
sees the current state: installs, removals, edits, trust and enable or
disable made meanwhile take effect at once.

Hooks that answer "EVENT persistent" to "hook" are started once as
"HOOK serve" and kept running: one JSON line in per event, one out (see
docs/hooks.md). They are restarted after a timeout, a crash, a malformed
line or a change to their file. EOF on stdin, shutdown, or SIGTERM ends
the server and every hook process it started.`,
		Example: `  quiver hook serve
  echo '{"jsonrpc":"2.0","id":1,"method":"run","params":{"event":"before_tool_call","payload":{"tool_name":"bash","tool_input":{"command":"ls"}}}}' | quiver hook serve`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runHookServe(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Timeout, "timeout", "", "time limit per hook for requests that give none, a Go `duration`, 1ms to 1h (default $QUIVER_HOOK_TIMEOUT or 30s)")
	f.BoolVar(&o.FailClosed, "fail-closed", false, "a failing blocking hook blocks the event, for requests that do not say (also QUIVER_FAIL_CLOSED=1)")
	return cmd
}

func (a *App) runHookServe(cmd *cobra.Command, o hookServeOptions) error {
	timeout, err := a.hooksEnv().Timeout(o.Timeout)
	if err != nil {
		return usageIf(cmd, err, hooks.ErrTimeoutFlag)
	}
	e, err := a.env()
	if err != nil {
		return err
	}
	// The Runner every door uses, fed by a discovery session and a pool
	// of persistent hooks.
	opts := e.Options()
	s := hooks.NewServer(opts, a.hooksEnv().Runner(opts), timeout, a.hooksEnv().FailClosed(o.FailClosed))
	defer s.Close()
	// A client that goes away makes writing a response fail with EPIPE
	// rather than kill quiver by SIGPIPE before it stops its hooks.
	// Notify, not Ignore: an ignored signal stays ignored in every hook
	// started, and `yes | head -1` in a hook would then never end.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	// When a signal ends the server by force (a request stuck writing to
	// a client that stopped reading), its hooks go first.
	a.lastWords = func(ie proc.Interrupted) int {
		s.Kill()
		return ie.ExitCode()
	}
	if err := s.Serve(cmd.Context(), a.Stdin, a.Stdout); err != nil {
		return fmt.Errorf("hook serve: writing a response: %w", err)
	}
	// SIGTERM, SIGINT, EOF and shutdown all end a server cleanly: the
	// requests in flight were answered and the pool stops every hook.
	return nil
}
