package hooks

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/quiver-cli/quiver/internal/discovery"
)

// Result is the combined answer of an event (SPEC §8 "hook run output").
type Result struct {
	Event     string `json:"event"`
	Blocked   bool   `json:"blocked"`
	Reason    string `json:"reason,omitempty"`
	BlockedBy string `json:"blocked_by,omitempty"`
	// Input and Output appear only when a hook changed them.
	Input  json.RawMessage `json:"input,omitempty"`
	Output json.RawMessage `json:"output,omitempty"`
	// FollowUpMessages is always a list for agent_stop, absent otherwise.
	FollowUpMessages *[]json.RawMessage `json:"follow_up_messages,omitempty"`
	Hooks            []HookReport       `json:"hooks"`
}

// HookReport is one hook's line in the result.
type HookReport struct {
	Name       string  `json:"name"`
	Status     Status  `json:"status"`
	DurationMS float64 `json:"duration_ms"`
	Error      string  `json:"error,omitempty"`
}

// EmptyResult is the answer when no hook runs.
func EmptyResult(event string) *Result {
	r := &Result{Event: event, Hooks: []HookReport{}}
	if event == discovery.AgentStop {
		r.FollowUpMessages = &[]json.RawMessage{}
	}
	return r
}

// RunFunc runs one hook; Executor.Run is the real one.
type RunFunc func(ctx context.Context, h discovery.Hook, event string, payload []byte, dir string) Outcome

// Trigger runs the hook set of one event and combines the results.
type Trigger struct {
	Run RunFunc
	// ProjectDir is where hooks run when the payload's cwd is missing.
	ProjectDir string
	// FailClosed makes a failing before_tool_call or user_message_send
	// hook block instead of being skipped.
	FailClosed bool
	// OnOutcome, if set, hears about each hook that ran (the audit log).
	OnOutcome func(event string, o Outcome, changed bool)
}

// Fire runs hooks (already resolved and ordered by discovery) for event.
//
// before_tool_call and user_message_send: hooks run in order; the first
// block wins and later hooks are skipped. An "input" replaces tool_input
// for every later hook and is the final input; after_tool_call does the
// same with "output". A hook that returns nothing never undoes an earlier
// rewrite. agent_stop: every hook runs, follow-ups are concatenated in
// order. turn_end: every hook runs, concurrently; results are ignored.
func (t *Trigger) Fire(ctx context.Context, event string, p Payload, hooks []discovery.Hook) *Result {
	res := EmptyResult(event)
	dir := t.ProjectDir
	if cwd := p.String(fieldCwd); cwd != "" {
		if fi, err := os.Stat(cwd); err == nil && fi.IsDir() {
			dir = cwd
		}
	}
	if event == discovery.TurnEnd {
		t.fireAll(ctx, event, p, hooks, dir, res)
		return res
	}
	cur := p.clone()
	for i, h := range hooks {
		if ctx.Err() != nil {
			break // interrupted: the caller says so, nothing else runs
		}
		var o Outcome
		if h.Status == discovery.Invalid {
			o = invalidOutcome(h)
		} else {
			data, err := json.Marshal(cur) // once per invocation: earlier hooks may have changed it
			if err != nil {
				data = []byte("{}")
			}
			o = t.Run(ctx, h, event, data, dir)
		}
		changed := false
		if o.Status == OK && o.Response != nil {
			changed = t.apply(event, o.Response, cur, res)
		}
		t.report(res, event, o, changed)
		if o.Status == Blocked || (o.failed() && t.FailClosed && blocking(event)) {
			res.Blocked, res.BlockedBy = true, h.Name
			res.Reason = o.Reason
			switch o.Status {
			case Blocked:
			case Invalid:
				res.Reason = "hook " + h.Name + " is invalid: " + o.Error
			default:
				res.Reason = "hook " + h.Name + " failed: " + o.Error
			}
			for _, rest := range hooks[i+1:] {
				res.Hooks = append(res.Hooks, HookReport{Name: rest.Name, Status: Skipped})
			}
			break
		}
	}
	return res
}

// invalidOutcome reports a hook that discovery found invalid; it is not run.
func invalidOutcome(h discovery.Hook) Outcome {
	return Outcome{Hook: h, Status: Invalid, Error: h.Reason, ExitCode: -1}
}

// apply chains one hook's response into the payload for later hooks and
// into the result; it reports whether anything changed.
func (t *Trigger) apply(event string, r *Response, cur Payload, res *Result) bool {
	switch event {
	case discovery.BeforeToolCall:
		if r.Input != nil {
			cur[fieldToolInput], res.Input = r.Input, r.Input
			return true
		}
	case discovery.AfterToolCall:
		if r.Output != nil {
			cur[fieldToolOutput], res.Output = r.Output, r.Output
			return true
		}
	case discovery.AgentStop:
		if len(r.FollowUpMessages) > 0 {
			*res.FollowUpMessages = append(*res.FollowUpMessages, r.FollowUpMessages...)
			return true
		}
	}
	return false
}

// fireAll runs every hook at once (bounded), reporting in hook order.
func (t *Trigger) fireAll(ctx context.Context, event string, p Payload, hooks []discovery.Hook, dir string, res *Result) {
	data, err := json.Marshal(p)
	if err != nil {
		data = []byte("{}")
	}
	outcomes := make([]Outcome, len(hooks))
	sem := make(chan struct{}, max(4, runtime.NumCPU()))
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
	for _, o := range outcomes {
		t.report(res, event, o, false)
	}
}

func (t *Trigger) report(res *Result, event string, o Outcome, changed bool) {
	rep := HookReport{Name: o.Hook.Name, Status: o.Status, DurationMS: ms(o.Duration), Error: o.Error}
	if o.Status == Blocked && o.Reason != "" {
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
