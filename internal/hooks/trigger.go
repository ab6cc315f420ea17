package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins/format"
	"github.com/quiver-cli/quiver/internal/safefs"

	"github.com/quiver-cli/quiver/internal/discovery"
)

// Result is the combined answer of an event (SPEC §8 "hook run output").
type Result struct {
	Event string `json:"event"`
	// Decision is allow, ask or block for before_tool_call, allow or
	// block for user_message_send, absent for other events; Blocked
	// stays for v1 callers and is true exactly when it is block.
	Decision  string `json:"decision,omitempty"`
	Blocked   bool   `json:"blocked"`
	Reason    string `json:"reason,omitempty"`
	BlockedBy string `json:"blocked_by,omitempty"`
	AskedBy   string `json:"asked_by,omitempty"`
	// Input and Output appear only when a hook changed them.
	Input  json.RawMessage `json:"input,omitempty"`
	Output json.RawMessage `json:"output,omitempty"`
	// FollowUpMessages is always a list for agent_stop, absent otherwise.
	FollowUpMessages *[]json.RawMessage `json:"follow_up_messages,omitempty"`
	// Context and Notices are always lists, except for turn_end, whose
	// results are ignored.
	Context *[]Text `json:"context,omitempty"`
	Notices *[]Text `json:"notices,omitempty"`
	// Rewake, only when the asyncRewake handlers ran (RewakeOnly), holds
	// what each that exited 2 says to wake the model with.
	Rewake []Text `json:"rewake,omitempty"`
	// AgentOutput holds the event's own outputs under Claude's key names
	// (sessionTitle, watchPaths, worktreePath, continue and stopReason,
	// ...: SPEC §15): the first hook in precedence order that sets a key
	// decides it; lists are joined.
	AgentOutput map[string]json.RawMessage `json:"agent_output,omitempty"`
	Hooks       []HookReport               `json:"hooks"`
}

// Text is a piece of context or a notice, with the hook that wrote it.
type Text struct {
	Hook string `json:"hook"`
	Text string `json:"text"`
}

// Decisions of blocking events.
const (
	Allow = "allow"
	Ask   = "ask"
	Defer = "defer"
	Block = "block"
)

// Asks reports a before_tool_call the agent should not run without the
// user: asked, or deferred (an agent without Claude's defer asks).
func (r *Result) Asks() bool { return r.Decision == Ask || r.Decision == Defer }

// HookReport is one hook's line in the result.
type HookReport struct {
	Name       string  `json:"name"`
	Status     Status  `json:"status"`
	DurationMS float64 `json:"duration_ms"`
	Error      string  `json:"error,omitempty"`
	// Note says what quiver did to the hook's answer: text cut to the
	// limit, fields with no effect here.
	Note string `json:"note,omitempty"`
}

// FailClosed turns r into a block by quiver itself (fail-closed after a
// failure or an interruption): decision block, no hook to blame, reason
// why. It returns r.
func (r *Result) FailClosed(reason string) *Result {
	r.Decision, r.Blocked, r.Reason = Block, true, reason
	r.BlockedBy, r.AskedBy = "", ""
	return r
}

// EmptyResult is the answer when no hook runs.
func EmptyResult(event string) *Result {
	r := &Result{Event: event, Hooks: []HookReport{}}
	if blocking(event) {
		r.Decision = Allow
	}
	if event == format.AgentStop {
		r.FollowUpMessages = &[]json.RawMessage{}
	}
	if event != format.TurnEnd {
		r.Context, r.Notices = &[]Text{}, &[]Text{}
	}
	return r
}

// RunFunc runs one hook; Executor.Run is the real one.
type RunFunc func(ctx context.Context, h discovery.Hook, event string, payload []byte, dir string) Outcome

// AsyncMode says what a run does with an event's background handlers
// (async and asyncRewake, SPEC §15).
type AsyncMode int

const (
	// AsyncDetach hands them to a background owner (the Executor's
	// Background, which the Runner sets where it can), whose results come
	// with the session's next event; without one they start at their
	// place and are waited for, their results ignored. For an agent that
	// has no asynchronous hooks of its own.
	AsyncDetach AsyncMode = iota
	// AsyncElsewhere runs none of them: the agent runs them through an
	// asynchronous entry of its own (Claude's "async": true), which calls
	// quiver with AsyncOnly or RewakeOnly.
	AsyncElsewhere
	// AsyncOnly runs only the event's async handlers, together, and waits
	// for them: their context and notices combine in precedence order;
	// they decide and change nothing.
	AsyncOnly
	// RewakeOnly runs only the asyncRewake handlers, together; what each
	// that exits 2 says (after its rewakeMessage) is in Result.Rewake.
	RewakeOnly
)

// Only reports the modes that run nothing but background handlers, which
// decide nothing: fail-closed does not apply to them.
func (m AsyncMode) Only() bool { return m == AsyncOnly || m == RewakeOnly }

// Trigger runs the hook set of one event and combines the results.
type Trigger struct {
	Run RunFunc
	// ProjectDir is where hooks run when the payload's cwd is missing.
	ProjectDir string
	// FailClosed makes a failing before_tool_call or user_message_send
	// hook block instead of being skipped.
	FailClosed bool
	// Home resolves "~/" in Claude conditions (the user's home if "").
	Home string
	// OnOutcome, if set, hears about each hook that ran (the audit log).
	OnOutcome func(event string, o Outcome, changed bool)
	// Async says what to do with background handlers.
	Async AsyncMode
}

// Fire runs hooks (already resolved and ordered by discovery) for event.
//
// before_tool_call and user_message_send: hooks run in order; the first
// block wins and later hooks are skipped. An "input" replaces tool_input
// for every later hook and is the final input; after_tool_call does the
// same with "output". A hook that returns nothing never undoes an earlier
// rewrite. An ask (before_tool_call) is kept, the first one's reason,
// while later hooks still run; a later block overrides it. agent_stop:
// every hook runs, follow-ups are concatenated in order. Context and
// notices are collected in order from every event but turn_end, whose
// hooks all run concurrently with their results ignored.
//
// A Claude handler runs only when its matcher and condition select the
// payload as it stands when its turn comes; one that does not is neither
// started nor reported. An async handler is handed to the background
// (AsyncDetach) or, where nothing takes it, starts at its place and Fire
// waits for it, its result ignored.
func (t *Trigger) Fire(ctx context.Context, event string, p Payload, hooks []discovery.Hook) *Result {
	res := EmptyResult(event)
	dir := t.ProjectDir
	if cwd := p.String(fieldCwd); cwd != "" {
		if fi, err := os.Stat(cwd); err == nil && fi.IsDir() {
			dir = cwd
		}
	}
	// A plugin's identical handlers run once (SPEC §15); the others are
	// reported after the hooks that ran.
	hooks, dups := discovery.Dedupe(hooks, func(h discovery.Hook) bool { return t.selects(h, p) })
	defer func() {
		for _, d := range dups {
			res.Hooks = append(res.Hooks, HookReport{Name: d.Hook.Name, Status: Skipped, Note: "the same handler as " + d.Of + ", which runs in its place"})
		}
	}()
	if event == format.TurnEnd {
		t.fireAll(ctx, event, p, hooks, dir, res)
		return res
	}
	if t.Async.Only() {
		t.fireBackground(ctx, event, p, hooks, dir, res)
		return res
	}
	if together(event) {
		t.fireTogether(ctx, event, p, hooks, dir, res)
		return res
	}
	cur := p.clone()
	var async []chan Outcome
	defer func() {
		for _, ch := range async {
			o := <-ch
			t.report(res, event, o, false, backgroundNote)
		}
	}()
	for i, h := range hooks {
		if ctx.Err() != nil {
			break // interrupted: the caller says so, nothing else runs
		}
		if !t.selects(h, cur) {
			continue
		}
		background := h.Background()
		if background && t.Async == AsyncElsewhere {
			continue
		}
		var o Outcome
		if h.Status == discovery.Invalid && (background || h.ClaudeOnly()) {
			// A background handler decides nothing, so one that cannot
			// run blocks nothing either, fail-closed or not; nor does one
			// only Claude Code can run, which no run of quiver's could.
			note := "asynchronous: blocks nothing"
			if !background {
				note = "run by Claude Code only: blocks nothing"
			}
			t.report(res, event, invalidOutcome(h), false, note)
			continue
		}
		if h.Status == discovery.Invalid {
			o = invalidOutcome(h)
		} else {
			data, err := json.Marshal(cur) // once per invocation: earlier hooks may have changed it
			if err != nil {
				data = []byte("{}")
			}
			if background {
				ch := make(chan Outcome, 1)
				async = append(async, ch)
				go func() { ch <- t.Run(ctx, h, event, data, dir) }()
				continue
			}
			o = t.Run(ctx, h, event, data, dir)
		}
		changed, note := t.apply(event, o, cur, res)
		t.report(res, event, o, changed, note)
		// deny > defer > ask > allow: the first defer or ask keeps its
		// reason; a defer outranks an ask.
		if (o.Status == Asked && res.AskedBy == "") || (o.Status == Deferred && res.Decision != Defer) {
			res.Decision, res.Reason, res.AskedBy = Ask, o.Reason, h.Name
			if o.Status == Deferred {
				res.Decision = Defer
			}
		}
		// onFailure: block makes a failure block, whatever fail-closed says.
		if o.Status == Blocked || (o.failed() && (t.FailClosed || h.Handler != nil && h.Handler.BlocksOnFailure()) && blocking(event)) {
			res.Decision, res.Blocked, res.BlockedBy, res.AskedBy = Block, true, h.Name, ""
			res.Reason = o.Reason
			switch o.Status {
			case Blocked:
			case Invalid:
				res.Reason = "hook " + h.Name + " is invalid: " + o.Error
			default:
				res.Reason = "hook " + h.Name + " failed: " + o.Error
			}
			for _, rest := range hooks[i+1:] {
				if t.selects(rest, cur) {
					res.Hooks = append(res.Hooks, HookReport{Name: rest.Name, Status: Skipped})
				}
			}
			break
		}
	}
	return res
}

// selects reports whether h takes part in this call: native hooks always
// do, a Claude handler when its matcher and condition say so.
func (t *Trigger) selects(h discovery.Hook, cur Payload) bool {
	if h.Selector == nil {
		return true
	}
	return h.Selector.Selects(cur, t.ProjectDir, t.home())
}

func (t *Trigger) home() string {
	if t.Home != "" {
		return t.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

// invalidOutcome reports a hook that discovery found invalid; it is not run.
func invalidOutcome(h discovery.Hook) Outcome {
	return Outcome{Hook: h, Status: Invalid, Error: h.Reason, ExitCode: -1}
}

// MaxText bounds each hook's context and notice (SPEC §8).
const MaxText = 10 << 10

// apply chains one hook's response into the payload for later hooks and
// into the result; it reports whether anything changed and a note for the
// hook's report. A blocking hook's text (why it blocked, for the model or
// the user) is kept; its rewrites are not, since nothing runs after it.
func (t *Trigger) apply(event string, o Outcome, cur Payload, res *Result) (changed bool, note string) {
	r := o.Response
	if r == nil || (o.Status != OK && o.Status != Asked && o.Status != Deferred && o.Status != Blocked) {
		return false, ""
	}
	notes := t.addTexts(o, res)
	if r.Ask && event != format.BeforeToolCall {
		notes = append(notes, "ask applies to before_tool_call only")
	}
	if len(r.AgentOutput) > 0 && addAgentOutput(res, r.AgentOutput) {
		changed = true
	}
	notes = append(notes, r.notes...)
	if o.Status != Blocked {
		switch event {
		case format.BeforeToolCall:
			if r.Input != nil {
				cur[fieldToolInput], res.Input, changed = r.Input, r.Input, true
			}
		case format.AfterToolCall:
			if r.Output != nil {
				cur[fieldToolOutput], res.Output, changed = r.Output, r.Output, true
			}
		case format.AgentStop:
			if len(r.FollowUpMessages) > 0 {
				*res.FollowUpMessages = append(*res.FollowUpMessages, r.FollowUpMessages...)
				changed = true
			}
		}
	}
	return changed, strings.Join(notes, "; ")
}

// addTexts adds a hook's context and notice to the result, each cut to
// MaxText, and returns notes saying what was cut.
func (t *Trigger) addTexts(o Outcome, res *Result) []string {
	var notes []string
	addText := func(list *[]Text, what, text string) {
		if text == "" {
			return
		}
		if len(text) > MaxText {
			text = safefs.Cut(text, MaxText)
			notes = append(notes, fmt.Sprintf("%s cut to %d bytes", what, MaxText))
		}
		*list = append(*list, Text{Hook: o.Hook.Name, Text: text})
	}
	if res.Context != nil {
		addText(res.Context, "context", o.Response.Context)
		addText(res.Notices, "notice", o.Response.Notice)
	}
	return notes
}

// fireBackground runs the background handlers the mode asks for (async,
// or asyncRewake), all at once, and combines what they say in hook
// order: context and notices; for asyncRewake, the rewake text of each
// that exited 2. They decide and change nothing.
func (t *Trigger) fireBackground(ctx context.Context, event string, p Payload, hooks []discovery.Hook, dir string, res *Result) {
	var run []discovery.Hook
	for _, h := range hooks {
		if h.Handler == nil || !t.selects(h, p) {
			continue
		}
		if (t.Async == RewakeOnly && h.Handler.AsyncRewake) || (t.Async == AsyncOnly && h.Handler.Async && !h.Handler.AsyncRewake) {
			run = append(run, h)
		}
	}
	for _, o := range t.runAll(ctx, event, p, run, dir) {
		var notes []string
		if o.Response != nil && (o.Status == OK || o.Status == Asked || o.Status == Blocked) {
			notes = t.addTexts(o, res)
		}
		if t.Async == RewakeOnly && o.ExitCode == 2 {
			// As Claude reads an asyncRewake handler: exit 2 wakes the
			// model with its stderr (else stdout) after its message.
			said := strings.TrimSpace(string(o.Stderr))
			if said == "" {
				said = strings.TrimSpace(string(o.Stdout))
			}
			msg := strings.TrimSpace(o.Hook.Handler.RewakeMessage + " " + said)
			res.Rewake = append(res.Rewake, Text{Hook: o.Hook.Name, Text: safefs.Cut(msg, MaxText)})
		} else if o.Status == Blocked || o.Status == Asked || o.Status == Deferred {
			notes = append(notes, "asynchronous: its decision does not apply")
		}
		t.report(res, event, o, false, strings.Join(notes, "; "))
	}
}

// together reports the events whose hooks cannot change what a later
// one sees or stop it from running: their hooks start together and their
// results combine in precedence order, so such an event takes as long as
// its slowest hook, not the sum (SPEC §15).
func together(event string) bool {
	return !format.ChainedEvent(event) && event != format.TurnEnd
}

// addAgentOutput adds a hook's agent outputs to the result: a key an
// earlier hook set keeps its value, except lists, which are joined. It
// reports whether anything was added.
func addAgentOutput(res *Result, out map[string]json.RawMessage) (added bool) {
	if res.AgentOutput == nil {
		res.AgentOutput = map[string]json.RawMessage{}
	}
	for _, k := range slices.Sorted(maps.Keys(out)) {
		v := out[k]
		have, ok := res.AgentOutput[k]
		if !ok {
			res.AgentOutput[k], added = v, true
			continue
		}
		var a, b []json.RawMessage
		if json.Unmarshal(have, &a) == nil && json.Unmarshal(v, &b) == nil && a != nil && len(b) > 0 {
			res.AgentOutput[k], _ = json.Marshal(append(a, b...))
			added = true
		}
	}
	if len(res.AgentOutput) == 0 {
		res.AgentOutput = nil
	}
	return added
}

// fireTogether runs an event's selected hooks at once and combines their
// results in hook order, as Fire would have in sequence: every hook's
// context, notices and follow-ups, in precedence order, whatever order
// they finish in. Background handlers run beside them, their results
// ignored (AsyncDetach), or not at all (AsyncElsewhere).
func (t *Trigger) fireTogether(ctx context.Context, event string, p Payload, hooks []discovery.Hook, dir string, res *Result) {
	var run []discovery.Hook
	for _, h := range hooks {
		if !t.selects(h, p) {
			continue
		}
		if h.Background() && t.Async == AsyncElsewhere {
			continue
		}
		run = append(run, h)
	}
	cur := p.clone()
	var background []Outcome
	for _, o := range t.runAll(ctx, event, p, run, dir) {
		if o.Hook.Background() {
			background = append(background, o)
			continue
		}
		changed, note := t.apply(event, o, cur, res)
		t.report(res, event, o, changed, note)
	}
	for _, o := range background {
		t.report(res, event, o, false, backgroundNote)
	}
}

// fireAll runs every hook at once (bounded), reporting in hook order.
func (t *Trigger) fireAll(ctx context.Context, event string, p Payload, hooks []discovery.Hook, dir string, res *Result) {
	for _, o := range t.runAll(ctx, event, p, hooks, dir) {
		t.report(res, event, o, false, "")
	}
}

// maxTogether bounds the hooks that run at once: most wait on something
// (a network, a disk), so more than the processors, as Claude starts all.
const maxTogether = 16

// runAll runs hooks at once (bounded), returning their outcomes in hook
// order.
func (t *Trigger) runAll(ctx context.Context, event string, p Payload, hooks []discovery.Hook, dir string) []Outcome {
	data, err := json.Marshal(p)
	if err != nil {
		data = []byte("{}")
	}
	outcomes := make([]Outcome, len(hooks))
	sem := make(chan struct{}, maxTogether)
	var wg sync.WaitGroup
	for i, h := range hooks {
		if h.Status == discovery.Invalid {
			outcomes[i] = invalidOutcome(h)
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			outcomes[i] = t.Run(ctx, h, event, data, dir)
		}()
	}
	wg.Wait()
	return outcomes
}

// backgroundNote is the note of a background handler that was waited
// for, where nothing could take it to the background.
const backgroundNote = "async: result ignored"

// AsyncNote is the note of a handler reported Async.
const AsyncNote = "runs in the background; what it says comes with this session's next event"

func (t *Trigger) report(res *Result, event string, o Outcome, changed bool, note string) {
	if o.Status == Async {
		note = AsyncNote
	}
	rep := HookReport{Name: o.Hook.Name, Status: o.Status, DurationMS: ms(o.Duration), Error: o.Error, Note: note}
	if (o.Status == Blocked || o.Status == Asked || o.Status == Deferred) && o.Reason != "" {
		rep.Error = ""
	}
	res.Hooks = append(res.Hooks, rep)
	if t.OnOutcome != nil {
		t.OnOutcome(event, o, changed)
	}
}

// ms rounds a duration to milliseconds with 0.1 ms precision.
func ms(d time.Duration) float64 {
	return float64(d.Round(100*time.Microsecond).Microseconds()) / 1000
}
