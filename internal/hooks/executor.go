package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/async"
	"github.com/quiver-cli/quiver/internal/hooks/claude"
	"github.com/quiver-cli/quiver/internal/proc"
	"github.com/quiver-cli/quiver/internal/safefs"
	"github.com/quiver-cli/quiver/internal/timeouts"
)

// Status is what one hook did (SPEC §8).
type Status string

// Hook statuses in a hook run report.
const (
	OK       Status = "ok"
	NoAction Status = "no_action"
	Blocked  Status = "blocked"
	// Asked: a before_tool_call hook asked for the user's approval.
	Asked Status = "asked"
	// Deferred: a before_tool_call hook deferred the decision (Claude's
	// permissionDecision "defer"): stricter than ask, weaker than a block.
	Deferred Status = "deferred"
	Failed   Status = "failed"
	TimedOut Status = "timeout"
	Skipped  Status = "skipped"
	// Invalid: the hook could not say which event it handles (or may not
	// run at all, such as a symlink leaving its folder); it did not run.
	Invalid Status = "invalid"
	// Async: the handler runs on in the background (SPEC §15), owned by
	// a process of its own; what it says comes with the session's next
	// event.
	Async Status = "async"
)

// Limits of what quiver keeps from a hook (SPEC §8).
const (
	MaxStdout      = 1 << 20
	MaxStderr      = 64 << 10
	MaxReason      = 1 << 10
	DefaultTimeout = timeouts.Default
)

// Outcome is what happened when one hook ran.
type Outcome struct {
	Hook   discovery.Hook
	Status Status
	// Response is the parsed stdout, nil when there was none or it was
	// not usable.
	Response *Response
	// Reason says why a hook blocked; Error why it failed.
	Reason, Error string
	// ExitCode is -1 when the hook did not exit by itself.
	ExitCode       int
	Stdout, Stderr []byte
	Duration       time.Duration
}

// failed reports a failure, a timeout, or a hook that could not run at
// all: each blocks a blocking event under --fail-closed.
func (o Outcome) failed() bool {
	return o.Status == Failed || o.Status == TimedOut || o.Status == Invalid
}

// Executor runs one hook process.
type Executor struct {
	// ProjectDir is the working directory when the payload's cwd does not
	// exist, and QUIVER_PROJECT_DIR.
	ProjectDir string
	// Env holds variables added to the environment every hook gets
	// (proc.Environ); quiver's own QUIVER_* variables come after them.
	Env []string
	// Timeout per hook, bounded by timeouts.OrDefault: DefaultTimeout
	// when zero (or anything else that is no limit), at most an hour.
	Timeout time.Duration
	// Pool, when set (hook serve), runs persistent hooks as long-lived
	// `<hook> serve` processes; without it they run one-shot like any
	// other.
	Pool *Pool
	// Background, when set, takes the Claude handlers that run in the
	// background instead of waiting for them: async and asyncRewake ones
	// are not started here but added to it, and one whose first line of
	// stdout is {"async": true} is added to it still running. Run
	// reports them Async.
	Background *async.Batch
}

// Blocking reports the events whose hooks can block.
func Blocking(event string) bool { return blocking(event) }

func blocking(event string) bool { return format.BlockingEvent(event) }

// Run runs `<hook> run` with payload on stdin in dir and classifies the
// result. It returns within the timeout plus proc.WaitDelay, whatever the
// hook and its children do.
// errFileChanged is a hook's failure when its file changed between
// discovery and the start: what would run is not what was reviewed.
var errFileChanged = errors.New("its file changed since quiver read it; not run (it may no longer be trusted)")

func (e *Executor) Run(ctx context.Context, h discovery.Hook, event string, payload []byte, dir string) Outcome {
	timeout := timeouts.OrDefault(e.Timeout)
	env := append(e.Env[:len(e.Env):len(e.Env)],
		"QUIVER_EVENT="+event, "QUIVER_HOOK_NAME="+h.Name, "QUIVER_PROJECT_DIR="+e.ProjectDir,
		// A hook runs inside an agent's session: quiver trust and trust
		// renewal refuse there (SPEC §9: a person grants trust).
		"QUIVER_IN_AGENT=1")
	if h.DataDir != "" {
		if err := checkDataDir(h.DataDir); err != nil {
			return Outcome{Hook: h, Status: Failed, Error: err.Error(), ExitCode: -1}
		}
	}
	if !h.Plugin.IsZero() {
		env = append(env, "QUIVER_PLUGIN_NAME="+h.Plugin.String(), "QUIVER_PLUGIN_ROOT="+h.PluginRoot, "QUIVER_PLUGIN_DATA="+h.DataDir)
		os.MkdirAll(h.DataDir, 0o755) // created on demand; a failure shows up in the hook
	}
	if h.Handler != nil {
		return e.runClaude(ctx, h, event, payload, dir, env, timeout)
	}
	// What starts is what discovery saw (and trust fingerprinted): a file
	// replaced or edited since is not run, whatever it now holds.
	if !h.Ident.IsZero() && !(h.Persistent && e.Pool != nil) { // the pool checks its own
		if id, err := safefs.Identify(h.Path); err != nil || id != h.Ident {
			return Outcome{Hook: h, Status: Failed, Error: errFileChanged.Error(), ExitCode: -1}
		}
	}
	var r proc.Result
	if h.Persistent && e.Pool != nil {
		var err error
		// A long-lived process cannot follow each payload's cwd: it runs
		// in the project directory, and the payload's cwd says where the
		// agent is.
		if r, err = e.Pool.exchange(ctx, h, env, e.ProjectDir, payload, timeout); err != nil {
			return Outcome{Hook: h, Status: Failed, Error: err.Error(), ExitCode: -1, Stderr: r.Stderr, Duration: r.Duration}
		}
	} else {
		r = proc.Run(ctx, proc.Spec{
			Path: h.Path, Args: []string{"run"}, Dir: dir, Env: env, Stdin: payload,
			Timeout: timeout, MaxStdout: MaxStdout, MaxStderr: MaxStderr,
		})
	}
	return nativeOutcome(h, event, r, timeout)
}

// nativeOutcome classifies what a native hook did, one-shot or persistent:
// its exit, then the result it printed.
func nativeOutcome(h discovery.Hook, event string, r proc.Result, timeout time.Duration) Outcome {
	o, done := outcomeOf(h, event, r, timeout)
	if done {
		return o
	}
	resp, err := DecodeResponse(r.Stdout)
	if err == nil && resp != nil && resp.AgentOutput != nil {
		var notes []string
		resp.AgentOutput, notes, err = claude.CheckAgentOutput(event, resp.AgentOutput)
		resp.notes = append(resp.notes, notes...)
	}
	switch {
	case err != nil:
		o.Status, o.Error = Failed, err.Error()
	case resp == nil:
		o.Status = NoAction
	case resp.Blocked && blocking(event):
		o.Status, o.Response, o.Reason = Blocked, resp, safefs.Cut(resp.Reason, MaxReason)
		if o.Reason == "" {
			o.Reason = "blocked by " + h.Name
		}
	case resp.Ask && event == format.BeforeToolCall:
		o.Status, o.Response, o.Reason = Asked, resp, safefs.Cut(resp.Reason, MaxReason)
	default:
		o.Status, o.Response = OK, resp
	}
	return o
}

// outcomeOf classifies what every hook process can do the same way:
// not start, time out, flood stdout, block with exit 2, die or fail. done
// is false for an exit 0 (and, for Claude handlers, exit 2), whose output
// the caller reads in its format.
func outcomeOf(h discovery.Hook, event string, r proc.Result, timeout time.Duration) (o Outcome, done bool) {
	o = Outcome{Hook: h, ExitCode: r.ExitCode, Stdout: r.Stdout, Stderr: r.Stderr, Duration: r.Duration}
	stderr := string(bytes.TrimSpace(r.Stderr))
	withStderr := func(msg string) string {
		if stderr != "" {
			return msg + ": " + stderr
		}
		return msg
	}
	switch {
	case r.StartErr != nil:
		o.Status, o.Error = Failed, fmt.Sprintf("cannot run it: %v", unwrap(r.StartErr))
	case r.TimedOut:
		o.Status, o.Error = TimedOut, withStderr(fmt.Sprintf("timed out after %s", timeout))
	// Exit 2 blocks by the exit status alone, whatever the output was
	// (a flood of it, or a child still holding it): a guard's deny must
	// never turn into a failure, which fail-open would run as an allow.
	case r.ExitCode == 2 && h.Handler != nil:
		return o, false // Claude's exit 2 means more than a block
	case r.ExitCode == 2 && blocking(event):
		o.Status, o.Reason = Blocked, safefs.Cut(stderr, MaxReason)
		if o.Reason == "" {
			o.Reason = "blocked by " + h.Name
		}
	case r.OutputIncomplete:
		// Never read a cut answer as "no action": a guard's block might
		// be in the part that was not read.
		o.Status, o.Error = Failed, "its output did not end when it exited: a process it started outside its group still holds stdout or stderr"
	case r.StdoutOverflow:
		o.Status, o.Error = Failed, fmt.Sprintf("stdout exceeded %d bytes", MaxStdout)
	case r.ExitCode < 0:
		o.Status, o.Error = Failed, withStderr("killed by a signal")
	case r.ExitCode != 0 && h.Handler != nil:
		return o, false
	case r.ExitCode != 0:
		o.Status, o.Error = Failed, withStderr(fmt.Sprintf("exit status %d", r.ExitCode))
	default:
		return o, false
	}
	return o, true
}

// runClaude runs a Claude handler (SPEC §11, §15): its command with
// bash -c, or in exec form with no shell, or its http request; Claude's
// input on stdin (or as the body), the CLAUDE_* variables set (and
// substituted where that is safe), the plugin's options as
// CLAUDE_PLUGIN_OPTION_<KEY>, its own timeout in seconds, its output
// read as Claude reads it.
func (e *Executor) runClaude(ctx context.Context, h discovery.Hook, event string, payload []byte, dir string, env []string, timeout time.Duration) Outcome {
	start := time.Now()
	hd := h.Handler
	// Its own timeout, bounded when hooks.json was read and again here
	// (a handler may come from a cache another version wrote); absent
	// or no limit, the executor's applies, never none.
	if own, err := timeouts.Bound(hd.Timeout); err == nil {
		timeout = own
	}
	if hd.Type == "http" && claude.HTTPSkipped(hd.Event) {
		return Outcome{Hook: h, Status: Skipped, Error: "http handlers are not sent on " + hd.Event + ", as in Claude Code", ExitCode: -1}
	}
	vars := map[string]string{"CLAUDE_PLUGIN_ROOT": h.PluginRoot, "CLAUDE_PLUGIN_DATA": h.DataDir, "CLAUDE_PROJECT_DIR": e.ProjectDir}
	for _, name := range claude.Vars {
		env = append(env, name+"="+vars[name])
	}
	// The plugin's options, secrets too: Claude Code hands a plugin's
	// hooks every value the user set for it (SPEC §15). They reach the
	// process only, never a report.
	uc, err := h.UserConfig()
	if err != nil {
		return Outcome{Hook: h, Status: Failed, Error: "read the plugin's settings: " + err.Error(), ExitCode: -1}
	}
	options := map[string]string{}
	for _, k := range uc.Keys {
		if v, ok := uc.Value(k.Name); ok {
			options[k.Name] = v
			env = append(env, claude.OptionVar(k.Name)+"="+v)
		}
	}
	// An agent gives quiver CLAUDE_ENV_FILE for the events it gives it
	// to handlers on; on others, a handler does not see it.
	var unset []string
	if !claude.EnvFileEvent(hd.Event) {
		unset = []string{"CLAUDE_ENV_FILE"}
	}
	if h.Plugin.IsZero() && h.DataDir != "" {
		os.MkdirAll(h.DataDir, 0o755) // a standalone hooks.json's data folder, on demand
	}
	var p map[string]json.RawMessage
	json.Unmarshal(payload, &p)
	input := claude.Input(hd.Event, p)
	if hd.Type == "http" {
		return e.runHTTP(ctx, h, event, input, env, timeout)
	}
	spec := proc.Spec{
		Path: "bash", Args: []string{"-c", claude.Command(hd.Command, vars)}, Dir: dir, Env: env, Unset: unset,
		Stdin: input, Timeout: timeout, MaxStdout: MaxStdout, MaxStderr: MaxStderr,
	}
	if hd.Exec() {
		argv, err := claude.ExecArgv(hd.Command, hd.Args, vars, options)
		if err != nil {
			msg := err.Error()
			if !h.Plugin.IsZero() {
				msg += " (set it with quiver plugin config " + h.Plugin.String() + " KEY=VALUE)"
			}
			return Outcome{Hook: h, Status: Failed, Error: msg, ExitCode: -1}
		}
		spec.Path, spec.Args = argv[0], argv[1:]
	}
	var asyncTimeout time.Duration
	if e.Background != nil {
		if h.Background() {
			e.Background.Add(backgroundJob(h, event, spec))
			return Outcome{Hook: h, Status: Async, ExitCode: -1}
		}
		spec.FirstLine = func(line []byte) (ok bool) {
			asyncTimeout, ok = async.ParseFirstLine(line)
			return ok
		}
	}
	r := proc.Run(ctx, spec)
	if r.Running != nil {
		e.Background.Add(async.Adopt(backgroundJob(h, event, spec), r.Running, asyncTimeout))
		return Outcome{Hook: h, Status: Async, ExitCode: -1, Duration: time.Since(start)}
	}
	o, done := outcomeOf(h, event, r, timeout)
	if done {
		return o
	}
	return claudeOutcome(o, event, r.ExitCode, r.Stdout, r.Stderr)
}

// claudeOutcome reads what a Claude handler answered (a command's exit
// code and output, an http handler's body as exit 0) into o.
func claudeOutcome(o Outcome, event string, exitCode int, stdout, stderr []byte) Outcome {
	h := o.Hook
	cr := claude.Output(event, h.Handler.Event, exitCode, stdout, stderr)
	resp := &Response{Input: cr.Input, Output: cr.Output, Context: cr.Context, Notice: cr.Notice, AgentOutput: cr.AgentOutput, notes: cr.Ignored}
	if cr.FollowUp != "" {
		msg, _ := json.Marshal(cr.FollowUp)
		resp.FollowUpMessages = []json.RawMessage{msg}
	}
	switch cr.Action {
	case claude.Fail:
		o.Status, o.Error = Failed, cr.Error
		return o
	case claude.Block:
		o.Status, o.Reason = Blocked, safefs.Cut(cr.Reason, MaxReason)
		if o.Reason == "" {
			o.Reason = "blocked by " + h.Name
		}
	case claude.Ask:
		o.Status, o.Reason = Asked, safefs.Cut(cr.Reason, MaxReason)
		resp.Ask = true
	case claude.Defer:
		o.Status, o.Reason = Deferred, safefs.Cut(cr.Reason, MaxReason)
	default:
		o.Status = OK
		if resp.empty() {
			o.Status = NoAction
		}
	}
	o.Response = resp
	return o
}

// backgroundJob is a Claude handler as its background owner starts it:
// spec, bound by the handler's own timeout, else async.DeclaredTimeout.
func backgroundJob(h discovery.Hook, event string, spec proc.Spec) async.Job {
	hd := h.Handler
	timeout := async.DeclaredTimeout
	if own, err := timeouts.Bound(hd.Timeout); err == nil {
		timeout = own
	}
	return async.Job{Hook: h.Name, Event: event, ClaudeEvent: hd.Event, Rewake: hd.AsyncRewake, RewakeMessage: hd.RewakeMessage,
		Path: spec.Path, Args: spec.Args, Dir: spec.Dir, Env: spec.Env, Unset: spec.Unset, Stdin: spec.Stdin, Timeout: timeout}
}

// checkDataDir refuses a plugin's data folder that is a symlink, or lies
// in a data/ folder that is one: a repository could commit
// .quiver/data/org@repo -> /somewhere, and a hook that cleans its data
// folder would then delete files outside the project.
func checkDataDir(dir string) error {
	for _, p := range []string{filepath.Dir(dir), dir} {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			return fmt.Errorf("data folder %s is a symlink to %s; quiver hands hooks only real folders (remove the link)", p, target)
		}
	}
	return nil
}

func unwrap(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
