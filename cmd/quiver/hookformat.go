package main

import (
	"fmt"
	"strings"

	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/hooks/agents"
	"github.com/quiver-cli/quiver/internal/term"
	"github.com/spf13/cobra"
)

// ---- hook run --format AGENT ----

// formatFlagGiven reports whether the arguments are hook run's with
// --format: then the caller is an agent, to which exit 2 means "block"
// (on a stop event: "keep going, as stderr says"), so quiver's own usage
// errors and failures must exit 1. Decided before flag parsing, since a
// bad flag is one of those errors. Other commands' --format (audit
// --format sarif, plugin new --format claude) is a person's or a CI
// job's, for whom a usage error exits 2 as everywhere.
func formatFlagGiven(args []string) bool {
	format, hook, run := false, false, false
	for _, arg := range args {
		switch {
		case arg == "--format" || strings.HasPrefix(arg, "--format="):
			format = true
		case arg == "hook":
			hook = true
		case arg == "run" && hook:
			run = true
		}
	}
	return format && run
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
