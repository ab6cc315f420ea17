package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/hooks/agents"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
	"github.com/spf13/cobra"
)

// ---- hook run --format AGENT ----

// formatFlagGiven reports whether --format appears among the arguments:
// then the caller is an agent, to which exit 2 means "block" (on a stop
// event: "keep going, as stderr says"), so quiver's own usage errors and
// failures must exit 1. Decided before flag parsing, since a bad flag is
// one of those errors.
func formatFlagGiven(args []string) bool {
	for _, arg := range args {
		if arg == "--format" || strings.HasPrefix(arg, "--format=") {
			return true
		}
	}
	return false
}

// runHookRunAs answers an agent in its own format (SPEC §13): its native
// input in, the same trigger as hook run, its native output and exit code
// out.
func (a *App) runHookRunAs(cmd *cobra.Command, o hookRunOptions) error {
	ag, err := agents.Lookup(o.Format)
	if err != nil {
		return &usageError{err: err, cmd: cmd}
	}
	ev, err := ag.Resolve(o.Event)
	if err != nil {
		return &usageError{err: err, cmd: cmd}
	}
	call := agents.Call{Event: ev.Quiver, Native: ev.Native}
	failClosed := a.hooksEnv().FailClosed(o.FailClosed) && hooks.Blocking(call.Event) && !o.asyncMode().Only()
	opts := agents.Options{AllowRewrites: o.AllowRewrites}
	failedClosed := func(why string) *hooks.Result { return hooks.EmptyResult(call.Event).FailClosed(why) }
	if failClosed {
		a.lastWords = func(ie interruptedError) int {
			ans := ag.Encode(call, failedClosed(fmt.Sprintf("quiver was %s before every hook had run; failing closed", ie)), opts)
			if !a.printAnswer(ans) {
				return ie.exitCode()
			}
			return ans.Exit
		}
	}
	res, err := a.answerAs(cmd, o, ag, &call)
	if err != nil {
		if !failClosed {
			return err
		}
		// Fail closed means quiver's own failure (a bad input, no home,
		// an unreadable scope) is a deny too, never "proceed".
		a.warnf("quiver: %v", err)
		res = failedClosed(fmt.Sprintf("quiver failed (%v); failing closed", plugins.Redact(err.Error())))
	}
	ans := ag.Encode(call, res, opts)
	if call.Event == format.SessionStart {
		discovery.MarkAgentShell(a.Getenv)
	}
	if !a.printAnswer(ans) {
		select {} // lastWords answered and ends the process
	}
	if ans.Exit != 0 {
		return exitCodeError(ans.Exit)
	}
	return nil
}

// answerAs reads the agent's input into call and runs the hook set.
func (a *App) answerAs(cmd *cobra.Command, o hookRunOptions, ag *agents.Agent, call *agents.Call) (*hooks.Result, error) {
	timeout, err := a.hookTimeout(cmd, o.Timeout)
	if err != nil {
		return nil, err
	}
	raw, err := hooks.ReadPayload(o.PayloadFile, a.stdin())
	if err != nil {
		return nil, err
	}
	layout, err := a.layoutAt(ag.SessionRoot(a.Getenv, raw))
	if err != nil {
		return nil, err
	}
	decoded, err := ag.Decode(o.Event, raw)
	if errors.Is(err, hooks.ErrPayload) {
		return nil, fmt.Errorf("%s's input is not a JSON object", ag.Title)
	} else if err != nil {
		return nil, err
	}
	*call = decoded // a later failure answers the event the input named
	res, err := a.hooksEnv().RunDecoded(cmd.Context(), a.discoveryOptions(layout), call.Event, call.Payload, o.FailClosed, timeout, o.asyncMode())
	if err != nil {
		return nil, err
	}
	if ie, ok := interruption(cmd.Context()); ok {
		return nil, ie
	}
	return res, nil
}

// printAnswer prints an agent's answer once (see printResult).
func (a *App) printAnswer(ans agents.Answer) bool {
	a.result.Lock()
	defer a.result.Unlock()
	if a.printed {
		return false
	}
	a.printed = true
	if len(ans.Stdout) > 0 {
		a.Stdout.Write(append(ans.Stdout, '\n'))
	}
	if ans.Stderr != "" {
		// Line by line: a rewake message of several lines reaches the
		// model as lines, each made visible.
		for _, line := range strings.Split(ans.Stderr, "\n") {
			fmt.Fprintln(a.Stderr, visible(line))
		}
	}
	return true
}
