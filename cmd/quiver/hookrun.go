package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/hooks/agents"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/proc"
	"github.com/quiver-cli/quiver/internal/term"
)

// exitBlocked is the exit code of `hook run --exit-code` when blocked.
const exitBlocked = 3

// exitCodeError asks run() for a specific exit code without a message.
type exitCodeError int

func (e exitCodeError) Error() string { return fmt.Sprintf("exit %d", int(e)) }

type hookRunOptions struct {
	hooks.Input
	FailClosed bool
	ExitCode   bool
	// Format names the agent whose native input and output are used;
	// AllowRewrites lets a rewritten input run without asking.
	Format        string
	AllowRewrites bool
	// AsyncElsewhere, AsyncOnly and AsyncRewake say who runs the event's
	// background handlers (hooks.AsyncMode): the agent's own asynchronous
	// entries, which run quiver with --async-only or --async-rewake.
	AsyncElsewhere, AsyncOnly, AsyncRewake bool
}

// asyncMode is the hooks.AsyncMode the flags ask for.
func (o hookRunOptions) asyncMode() hooks.AsyncMode {
	return hooks.AsyncModeOf(o.AsyncElsewhere, o.AsyncOnly, o.AsyncRewake)
}

func (a *App) newHookRunCmd() *cobra.Command {
	var o hookRunOptions
	cmd := &cobra.Command{
		Use:   "run EVENT",
		Short: "Trigger an event: run its hooks and print the combined decision",
		Long: `Run every active hook for EVENT (session_start, before_tool_call,
after_tool_call, user_message_send, agent_stop, turn_end) in precedence
order, feeding each
the payload JSON read from stdin (or --payload FILE), and print one combined
result as JSON on stdout. This is what an agent calls at every event.

The first block wins and later hooks are skipped; a rewritten tool input or
output is passed on to later hooks and is the final one; agent_stop
follow-ups are concatenated. A failing hook is reported and skipped, unless
--fail-closed (or QUIVER_FAIL_CLOSED=1) makes it block a blocking event.
The exit code is 0 whatever the hooks decided (3 with --exit-code when
blocked), 1 when the payload is not a JSON object, 2 for an unknown event.
QUIVER_NO_HOOKS=1 turns every hook off.`,
		Example: `  echo '{"tool_name":"bash","tool_input":{"command":"ls"}}' | quiver hook run before_tool_call
  quiver hook run agent_stop --payload payload.json --timeout 5s
  quiver hook run user_message_send --fail-closed --exit-code < msg.json`,
		Args:              exactArgs(1),
		ValidArgsFunction: completeEvents,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Event = args[0]
			return a.runHookRun(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.PayloadFile, "payload", "", "read the payload JSON from `FILE` instead of stdin")
	f.StringVar(&o.Timeout, "timeout", "", "time limit per hook, a Go `duration` like 5s or 500ms, 1ms to 1h (default $QUIVER_HOOK_TIMEOUT or 30s)")
	f.BoolVar(&o.FailClosed, "fail-closed", false, "a failing blocking hook blocks the event")
	f.BoolVar(&o.ExitCode, "exit-code", false, "exit 3 when the event was blocked")
	f.StringVar(&o.Format, "format", "", "read and answer in `AGENT`'s own hook format ("+strings.Join(agents.Names(), ", ")+"); EVENT may be the agent's name for it")
	f.BoolVar(&o.AllowRewrites, "allow-rewrites", false, "with --format: a rewritten tool input runs without asking the user")
	f.BoolVar(&o.AsyncElsewhere, "async-elsewhere", false, "with --format: skip async and asyncRewake handlers (the agent's own asynchronous entry runs them)")
	f.BoolVar(&o.AsyncOnly, "async-only", false, "with --format: run only the event's async handlers, together, and wait for them")
	f.BoolVar(&o.AsyncRewake, "async-rewake", false, "with --format: run only the event's asyncRewake handlers; exit 2 with what those that exited 2 said")
	cmd.MarkFlagsMutuallyExclusive("async-elsewhere", "async-only", "async-rewake")
	return cmd
}

// hooksEnv is the process's environment as every hook door reads it.
func (a *App) hooksEnv() hooks.Env {
	return hooks.Env{Getenv: a.Getenv, Warn: func(msg string) { a.Warnf("%s", msg) }, Owner: a.owner}
}

// usageIf makes err a usage error of cmd when it is one of mistakes.
func usageIf(cmd *cobra.Command, err error, mistakes ...error) error {
	for _, m := range mistakes {
		if errors.Is(err, m) {
			return &usageError{err: err, cmd: cmd}
		}
	}
	return err
}

// stdin is the payload's stdin: none when it is a terminal (then there
// is no payload rather than a hang).
func (a *App) stdin() io.Reader {
	if f, ok := a.Stdin.(*os.File); ok && term.IsTerminal(f) {
		return nil
	}
	return a.Stdin
}

// readEvent is what hook test starts from (hooks.Env.Read),
// a mistake in the input a usage error.
func (a *App) readEvent(cmd *cobra.Command, in hooks.Input) (hooks.Request, error) {
	in.Stdin = a.stdin()
	r, err := a.hooksEnv().Read(in, a.layout)
	return r, usageIf(cmd, err, hooks.ErrTimeoutFlag, hooks.ErrUnknownEvent, hooks.ErrEventMismatch)
}

func (a *App) runHookRun(cmd *cobra.Command, o hookRunOptions) error {
	if o.Format != "" {
		return a.runHookRunAs(cmd, o)
	}
	if o.asyncMode() != hooks.AsyncDetach {
		return usageErrorf(cmd, "--async-elsewhere, --async-only and --async-rewake are for an agent's entries, with --format")
	}
	door := &hooks.Door{Input: o.Input, Env: a.hooksEnv(), FailClosed: o.FailClosed, Layout: a.layout,
		Options: func(l plugins.Layout) discovery.Options { return a.envAt(l).Options() }}
	door.Stdin = a.stdin()
	print := func(res *hooks.Result) answer {
		ans := answer{print: func() {
			if err := a.JSONLine(res); err != nil {
				a.Error(err)
			}
		}}
		if o.ExitCode && res.Blocked {
			ans.exit = exitBlocked
		}
		return ans
	}
	// A read that blocks for good (a payload pipe held open, a
	// repository's lock file linked to /proc/kmsg) cannot be cancelled;
	// when a signal then ends the process by force, it still fails
	// closed.
	return a.answerOnce(door.FailsClosed(), func(why string) answer { return print(door.Deny(why)) }, func() (answer, error) {
		res, err := door.Answer(cmd.Context())
		if err != nil {
			return answer{}, usageIf(cmd, err, hooks.ErrTimeoutFlag, hooks.ErrUnknownEvent, hooks.ErrEventMismatch)
		}
		return print(res), nil
	})
}

// answer is what a one-shot door prints, and the exit code it asks for.
type answer struct {
	print func()
	exit  int
}

// answerOnce runs a one-shot door (hook run, with or without --format):
// run's answer is printed once. When the door fails closed, a signal
// that ends the process by force before run answered prints deny's
// answer instead (lastWords), and run's is then never printed; one that
// comes after exits as the printed answer asks, so a printed deny stays
// one.
func (a *App) answerOnce(failsClosed bool, deny func(why string) answer, run func() (answer, error)) error {
	if failsClosed {
		a.lastWords = func(ie proc.Interrupted) int {
			a.printOnce(deny(hooks.Unfinished(ie)))
			return a.answered.exit
		}
	}
	ans, err := run()
	if err != nil {
		return err
	}
	if !a.printOnce(ans) {
		select {} // lastWords printed its answer and ends the process
	}
	if ans.exit != 0 {
		return exitCodeError(ans.exit)
	}
	return nil
}

// printOnce prints the door's one answer unless one was printed already
// (a.answered); it reports whether it printed.
func (a *App) printOnce(ans answer) bool {
	a.result.Lock()
	defer a.result.Unlock()
	if a.answered != nil {
		return false
	}
	a.answered = &ans
	ans.print()
	return true
}

// ---- hook run --format AGENT ----

// formatFlagGiven reports whether the arguments are hook run's with
// --format: then the caller is an agent, to which exit 2 means "block"
// (on a stop event: "keep going, as stderr says"), so quiver's own usage
// errors and failures must exit 1. Decided before flag parsing, since a
// bad flag is one of those errors. Other commands' --format (audit
// --format sarif, plugin init --format claude) is a person's or a CI
// job's, for whom a usage error exits 2 as everywhere.
func formatFlagGiven(args []string) bool {
	hook := slices.Index(args, "hook")
	return hook >= 0 && slices.Contains(args[hook:], "run") &&
		slices.ContainsFunc(args, func(arg string) bool { return arg == "--format" || strings.HasPrefix(arg, "--format=") })
}

// runHookRunAs answers an agent in its own format (agents.Door).
func (a *App) runHookRunAs(cmd *cobra.Command, o hookRunOptions) error {
	ag, err := agents.Lookup(o.Format)
	if err != nil {
		return &usageError{err: err, cmd: cmd}
	}
	ev, err := ag.Resolve(o.Event)
	if err != nil {
		return &usageError{err: err, cmd: cmd}
	}
	door := &agents.Door{Agent: ag, Input: o.Input, Env: a.hooksEnv(), FailClosed: o.FailClosed,
		Options: agents.Options{AllowRewrites: o.AllowRewrites}, Layout: a.layoutAt, Async: o.asyncMode()}
	door.Stdin = a.stdin()
	call := agents.Call{Event: ev.Quiver, Native: ev.Native}
	return a.answerOnce(door.FailsClosed(call), func(why string) answer { return a.printAnswer(door.Deny(call, why)) }, func() (answer, error) {
		ans, err := door.Answer(cmd.Context(), &call)
		return a.printAnswer(ans), usageIf(cmd, err, hooks.ErrTimeoutFlag)
	})
}

// printAnswer prints an agent's answer: its stdout, then its stderr line
// by line (a rewake message of several lines reaches the model as lines),
// each made visible.
func (a *App) printAnswer(ans agents.Answer) answer {
	return answer{exit: ans.Exit, print: func() {
		if len(ans.Stdout) > 0 {
			a.Stdout.Write(append(ans.Stdout, '\n'))
		}
		if ans.Stderr != "" {
			for _, line := range strings.Split(ans.Stderr, "\n") {
				fmt.Fprintln(a.Stderr, term.Visible(line))
			}
		}
	}}
}
