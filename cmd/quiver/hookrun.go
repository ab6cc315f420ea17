package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/hooks/agents"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/safefs"
	"github.com/quiver-cli/quiver/internal/timeouts"
)

// exitBlocked is the exit code of `hook run --exit-code` when blocked.
const exitBlocked = 3

// exitCodeError asks run() for a specific exit code without a message.
type exitCodeError int

func (e exitCodeError) Error() string { return fmt.Sprintf("exit %d", int(e)) }

type hookRunOptions struct {
	Event       string
	PayloadFile string
	Timeout     string
	FailClosed  bool
	ExitCode    bool
	// Format names the agent whose native input and output are used;
	// AllowRewrites lets a rewritten input run without asking.
	Format        string
	AllowRewrites bool
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
		Args: exactArgs(1),
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
	return cmd
}

// hookTimeout resolves --timeout, then QUIVER_HOOK_TIMEOUT, then 30 s,
// each bounded by timeouts.Parse: a bad flag is a usage error, a bad
// variable an error that names it, and neither is ever "no timeout".
func (a *App) hookTimeout(cmd *cobra.Command, flag string) (time.Duration, error) {
	if flag != "" {
		d, err := timeouts.Parse(flag)
		if err != nil {
			return 0, usageErrorf(cmd, "--timeout %v; write it like 5s, 500ms or 1m", err)
		}
		return d, nil
	}
	env := a.Getenv("QUIVER_HOOK_TIMEOUT")
	if env == "" {
		return hooks.DefaultTimeout, nil
	}
	d, err := timeouts.Parse(env)
	if err != nil {
		return 0, fmt.Errorf("QUIVER_HOOK_TIMEOUT %v; write it like 5s, 500ms or 1m, or unset it for 30s", err)
	}
	return d, nil
}

// maxPayload bounds an event payload, from stdin or --payload.
const maxPayload = 256 << 20

// readPayload reads --payload FILE (a regular file or a pipe such as
// <(...), never a device), else stdin unless it is a terminal (then there
// is no payload rather than a hang). More than maxPayload is an error, not
// a truncated payload.
func (a *App) readPayload(file string) ([]byte, error) {
	if file != "" {
		fi, err := os.Stat(file)
		if err != nil {
			return nil, fmt.Errorf("read payload: %w", err)
		}
		if !fi.Mode().IsRegular() && fi.Mode()&fs.ModeNamedPipe == 0 {
			return nil, fmt.Errorf("read payload: %s is %s; give a file or a pipe", file, safefs.Kind(fi.Mode()))
		}
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("read payload: %w", err)
		}
		defer f.Close()
		data, err := safefs.ReadAll(f, file, maxPayload)
		if err != nil {
			return nil, fmt.Errorf("read payload: %w", err)
		}
		return data, nil
	}
	if f, ok := a.Stdin.(*os.File); ok && isTerminal(f) {
		return nil, nil
	}
	data, err := safefs.ReadAll(a.Stdin, "stdin", maxPayload)
	if err != nil {
		return nil, fmt.Errorf("read payload: %w", err)
	}
	return data, nil
}

// parseEventPayload checks the event and reads and parses the payload.
func (a *App) parseEventPayload(cmd *cobra.Command, event, file, projectDir string) (hooks.Payload, error) {
	if err := hooks.CheckEvent(event); err != nil {
		return nil, &usageError{err: err, cmd: cmd}
	}
	data, err := a.readPayload(file)
	if err != nil {
		return nil, err
	}
	p, err := hooks.ParsePayload(event, data, projectDir)
	if errors.Is(err, hooks.ErrEventMismatch) {
		return nil, &usageError{err: err, cmd: cmd}
	}
	return p, err
}

func (a *App) executor(layout plugins.Layout, timeout time.Duration) *hooks.Executor {
	return &hooks.Executor{ProjectDir: layout.ProjectDir, Timeout: timeout}
}

// eventInput is what hook run and hook test start from.
type eventInput struct {
	timeout time.Duration
	layout  plugins.Layout
	payload hooks.Payload
}

// readEventInput resolves the timeout, the scopes, and the event's payload.
func (a *App) readEventInput(cmd *cobra.Command, event, payloadFile, timeoutFlag string) (eventInput, error) {
	var in eventInput
	var err error
	if in.timeout, err = a.hookTimeout(cmd, timeoutFlag); err != nil {
		return in, err
	}
	if in.layout, err = a.layout(); err != nil {
		return in, err
	}
	in.payload, err = a.parseEventPayload(cmd, event, payloadFile, in.layout.ProjectDir)
	return in, err
}

func (a *App) runHookRun(cmd *cobra.Command, o hookRunOptions) error {
	if o.Format != "" {
		return a.runHookRunAs(cmd, o)
	}
	failClosed := a.failClosed(o.FailClosed)
	if failClosed && hooks.Blocking(o.Event) {
		// A read that blocks for good (a payload pipe held open, a
		// repository's lock file linked to /proc/kmsg) cannot be
		// cancelled; when a signal then ends the process by force, it
		// still fails closed.
		a.lastWords = func(ie interruptedError) int {
			block := hooks.EmptyResult(o.Event).FailClosed(fmt.Sprintf("quiver was %s before every hook had run; failing closed", ie))
			if !a.printResult(block) {
				return ie.exitCode()
			}
			if o.ExitCode {
				return exitBlocked
			}
			return 0
		}
	}
	in, err := a.readEventInput(cmd, o.Event, o.PayloadFile, o.Timeout)
	if err != nil {
		return err
	}
	res, err := a.runner(in.layout).Run(cmd.Context(), o.Event, in.payload, failClosed, in.timeout)
	if err != nil {
		return err
	}
	if !a.printResult(res) {
		select {} // lastWords printed the block and ends the process
	}
	if o.ExitCode && res.Blocked {
		return exitCodeError(exitBlocked)
	}
	return nil
}

// printResult prints hook run's result line unless it was printed
// already (by lastWords); it reports whether it printed.
func (a *App) printResult(res *hooks.Result) bool {
	a.result.Lock()
	defer a.result.Unlock()
	if a.printed {
		return false
	}
	a.printed = true
	if err := writeJSONLine(a.Stdout, res); err != nil {
		a.printError(err)
	}
	return true
}

// runner is hook run's runtime (SPEC §8), the same one every door uses:
// discovery from the files at each run, the environment's switches.
func (a *App) runner(layout plugins.Layout) *hooks.Runner {
	return &hooks.Runner{
		Hooks:    hooks.FromFiles(a.discoveryOptions(layout)),
		Executor: hooks.Executor{ProjectDir: layout.ProjectDir},
		NoHooks:  a.Getenv("QUIVER_NO_HOOKS") == "1",
		AuditLog: a.Getenv("QUIVER_AUDIT_LOG"),
		Warn:     func(msg string) { a.warnf("%s", msg) },
	}
}

// failClosed is --fail-closed or QUIVER_FAIL_CLOSED=1: the one place the
// variable is read.
func (a *App) failClosed(flag bool) bool { return flag || a.Getenv("QUIVER_FAIL_CLOSED") == "1" }

// ---- hook test ----

type hookTestOptions struct {
	Target      string
	Event       string
	PayloadFile string
	Timeout     string
	JSON        bool
}

// hookTestJSON is the report of `hook test --json`.
type hookTestJSON struct {
	Name          string          `json:"name"`
	Path          string          `json:"path"`
	Event         string          `json:"event"`
	DeclaredEvent string          `json:"declared_event"`
	Persistent    bool            `json:"persistent,omitempty"`
	Format        string          `json:"format"`
	DeclareError  string          `json:"declare_error,omitempty"`
	Status        hooks.Status    `json:"status"`
	Reason        string          `json:"reason,omitempty"`
	Error         string          `json:"error,omitempty"`
	ExitCode      int             `json:"exit_code"`
	DurationMS    float64         `json:"duration_ms"`
	Stdout        string          `json:"stdout"`
	Stderr        string          `json:"stderr"`
	Response      *hooks.Response `json:"response,omitempty"`
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
		Args: exactArgs(1),
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
	return cmd
}

func (a *App) runHookTest(cmd *cobra.Command, o hookTestOptions) error {
	in, err := a.readEventInput(cmd, o.Event, o.PayloadFile, o.Timeout)
	if err != nil {
		return err
	}
	timeout, layout, payload := in.timeout, in.layout, in.payload
	h, err := a.findHook(cmd.Context(), layout, o.Target)
	if err != nil {
		return err
	}
	ex := a.executor(layout, timeout)
	rep := hookTestJSON{Name: h.Name, Path: h.Path, Event: o.Event}
	if h.Handler != nil {
		// A Claude handler declares its event in hooks.json; its scripts
		// are never asked `hook` (that would run them for real).
		rep.DeclaredEvent, rep.Format = h.Event, discovery.FormatClaude
		if h.Event == "" {
			rep.DeclareError = h.Reason
		}
	} else {
		declared, derr := discovery.AskType(cmd.Context(), h.Path, layout.ProjectDir, ex.Env, a.queryTimeout())
		rep.DeclaredEvent, rep.Persistent, rep.Format = declared.Event, declared.Persistent, discovery.FormatNative
		if derr != nil {
			rep.DeclareError = derr.Error()
		}
	}
	t := &hooks.Trigger{Run: ex.Run, ProjectDir: layout.ProjectDir}
	if home, _ := os.UserHomeDir(); h.Selector != nil && !h.Selector.Selects(payload, layout.ProjectDir, home) {
		rep.Status = hooks.Skipped
		rep.Reason = fmt.Sprintf("not started: its matcher %q or condition %q does not select this payload", h.Handler.Matcher, h.Handler.If)
		if o.JSON {
			return writeJSON(a.Stdout, rep)
		}
		a.printHookTest(rep)
		return nil
	}
	var out hooks.Outcome
	t.OnOutcome = func(_ string, oc hooks.Outcome, _ bool) { out = oc }
	t.Fire(cmd.Context(), o.Event, payload, []discovery.Hook{h})
	rep.Status, rep.Reason, rep.Error, rep.ExitCode = out.Status, out.Reason, out.Error, out.ExitCode
	rep.DurationMS = float64(out.Duration.Microseconds()) / 1000
	rep.Stdout, rep.Stderr, rep.Response = string(out.Stdout), string(out.Stderr), out.Response
	if o.JSON {
		if err := writeJSON(a.Stdout, rep); err != nil {
			return err
		}
	} else {
		a.printHookTest(rep)
	}
	if out.Status == hooks.Failed || out.Status == hooks.TimedOut {
		return fmt.Errorf("hook %s %s: %s", h.Name, out.Status, out.Error)
	}
	return nil
}

// isPath reports whether a hook test target is written as a path: /x, or
// with a segment that starts with "." (./x, ../x, .quiver/hooks/x), which
// no hook name can have since hidden files are never items. Anything else
// is a hook name, even where a file of that name exists in the current
// folder: a repository could put one there to catch "hook test
// acme/guard/check".
func isPath(target string) bool {
	if filepath.IsAbs(target) {
		return true
	}
	for _, seg := range strings.Split(filepath.ToSlash(target), "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

// findHook resolves PATH|NAME: a path (see isPath) is run as given; a name
// is looked up in discovery, refusing untrusted project hooks.
func (a *App) findHook(ctx context.Context, layout plugins.Layout, target string) (discovery.Hook, error) {
	if isPath(target) {
		fi, err := os.Stat(target)
		if err != nil {
			return discovery.Hook{}, err
		}
		if !fi.Mode().IsRegular() {
			return discovery.Hook{}, fmt.Errorf("%s is %s, not a hook file", target, safefs.Kind(fi.Mode()))
		}
		abs, err := filepath.Abs(target)
		if err != nil {
			return discovery.Hook{}, err
		}
		return discovery.Hook{Name: filepath.Base(abs), Path: abs, Location: plugins.Local}, nil
	}
	hs, err := discovery.Hooks(ctx, a.discoveryOptions(layout))
	if err != nil {
		return discovery.Hook{}, err
	}
	var found *discovery.Hook
	for i := range hs.Hooks {
		h := &hs.Hooks[i]
		if h.Name == target && (found == nil || h.Status == discovery.Active) {
			found = h
		}
	}
	switch {
	case found == nil:
		if fi, err := os.Stat(target); err == nil && fi.Mode().IsRegular() {
			return discovery.Hook{}, fmt.Errorf("no hook named %s; to run the file of that name, write it as a path: ./%s", target, target)
		}
		return discovery.Hook{}, fmt.Errorf("no hook named %s; see quiver hook list --all (write a file as ./path)", target)
	case found.Status == discovery.Untrusted:
		return discovery.Hook{}, fmt.Errorf("hook %s is an untrusted project hook; review it and run quiver trust, or pass its path to run it deliberately", target)
	case found.Status == discovery.Invalid:
		return discovery.Hook{}, fmt.Errorf("hook %s is invalid: %s; pass its path (%s) to run it deliberately", target, found.Reason, found.Path)
	}
	return *found, nil
}

func (a *App) printHookTest(r hookTestJSON) {
	w := a.Stdout
	fmt.Fprintf(w, "hook:      %s (%s)\n", visible(r.Name), visible(r.Path))
	switch {
	case r.DeclareError != "":
		fmt.Fprintf(w, "declares:  nothing valid: %s\n", r.DeclareError)
	case r.DeclaredEvent != r.Event:
		fmt.Fprintf(w, "declares:  %s (but was sent %s: quiver would never run it for that event)\n", r.DeclaredEvent, r.Event)
	case r.Persistent:
		fmt.Fprintf(w, "declares:  %s persistent (hook serve keeps '<hook> serve' running; tested here one-shot)\n", r.DeclaredEvent)
	default:
		fmt.Fprintf(w, "declares:  %s\n", r.DeclaredEvent)
	}
	fmt.Fprintf(w, "exit code: %d\nduration:  %.1f ms\n", r.ExitCode, r.DurationMS)
	block := func(label, s string) {
		s = strings.TrimRight(s, "\n")
		if s == "" {
			fmt.Fprintf(w, "%s (empty)\n", label)
			return
		}
		fmt.Fprintf(w, "%s\n", label)
		for _, line := range strings.Split(s, "\n") {
			fmt.Fprintf(w, "  %s\n", visible(line))
		}
	}
	block("stdout:", r.Stdout)
	block("stderr:", r.Stderr)
	verdict := string(r.Status)
	switch r.Status {
	case hooks.Blocked, hooks.Asked, hooks.Skipped:
		verdict += ": " + r.Reason
	case hooks.Failed, hooks.TimedOut:
		verdict += ": " + r.Error
	case hooks.NoAction:
		verdict += " (empty stdout, exit 0)"
	case hooks.OK:
		if r.Response != nil && r.Response.Input != nil {
			verdict += "; replaces tool_input with " + string(r.Response.Input)
		}
		if r.Response != nil && r.Response.Output != nil {
			verdict += "; replaces tool_output with " + string(r.Response.Output)
		}
		if r.Response != nil && len(r.Response.FollowUpMessages) > 0 {
			verdict += fmt.Sprintf("; adds %d follow-up message(s)", len(r.Response.FollowUpMessages))
		}
	}
	if r.Response != nil && r.Response.Context != "" {
		verdict += "; context for the model: " + r.Response.Context
	}
	if r.Response != nil && r.Response.Notice != "" {
		verdict += "; notice for the user: " + r.Response.Notice
	}
	fmt.Fprintf(w, "verdict:   %s\n", visible(verdict))
}

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
	failClosed := a.failClosed(o.FailClosed) && hooks.Blocking(call.Event)
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
		a.markAgentShell()
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
	raw, err := a.readPayload(o.PayloadFile)
	if err != nil {
		return nil, err
	}
	layout, err := a.layoutAt(ag.SessionRoot(a.Getenv, raw))
	if err != nil {
		return nil, err
	}
	decoded, err := ag.Decode(o.Event, raw)
	if err != nil {
		if errors.Is(err, hooks.ErrPayload) {
			return nil, fmt.Errorf("%s's input is not a JSON object", ag.Title)
		}
		return nil, err
	}
	*call = decoded
	data, _ := json.Marshal(call.Payload)
	payload, err := hooks.ParsePayload(call.Event, data, layout.ProjectDir)
	if err != nil {
		return nil, err
	}
	res, err := a.runner(layout).Run(cmd.Context(), call.Event, payload, a.failClosed(o.FailClosed), timeout)
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
		fmt.Fprintln(a.Stderr, visible(ans.Stderr))
	}
	return true
}

// markAgentShell exports QUIVER_IN_AGENT=1 into the agent's own shell
// where the agent offers a way (Claude's CLAUDE_ENV_FILE, a file of
// exports it sources before each Bash call it starts, given to SessionStart
// hooks), so that a quiver trust an agent runs from its Bash tool is
// refused even where the agent's own marker is missing (SPEC §9). The file
// is appended to only when it is a regular file or does not exist yet.
func (a *App) markAgentShell() {
	path := a.Getenv("CLAUDE_ENV_FILE")
	if path == "" || !filepath.IsAbs(path) {
		return
	}
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		f.WriteString("export QUIVER_IN_AGENT=1\n")
	}
}
