package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/proc"
)

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
