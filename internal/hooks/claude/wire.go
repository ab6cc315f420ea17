package claude

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/quiver-cli/quiver/internal/hooks/exact"
	"github.com/quiver-cli/quiver/internal/plugins/format"
)

// Input builds the JSON a Claude handler reads on stdin from quiver's
// payload: Claude's names for the fields it knows (session_id, prompt,
// tool_response, tool_use_id, stop_hook_active), hook_event_name set to
// claudeEvent since real handlers branch on it, and every field of the
// payload passed along as well.
func Input(claudeEvent string, payload map[string]json.RawMessage) []byte {
	in := make(map[string]json.RawMessage, len(payload)+4)
	for k, v := range payload {
		in[k] = v
	}
	rename := func(from, to string) {
		if v, ok := payload[from]; ok {
			if _, has := payload[to]; !has {
				in[to] = v
			}
		}
	}
	rename("conv_id", "session_id")
	in["hook_event_name"], _ = json.Marshal(claudeEvent)
	switch claudeEvent {
	case "PreToolUse", "PostToolUse":
		rename("tool_user_id", "tool_use_id")
		if claudeEvent == "PostToolUse" {
			rename("tool_output", "tool_response")
		}
	case "UserPromptSubmit":
		rename("message", "prompt")
	case "Stop", "SubagentStop":
		if _, ok := in["stop_hook_active"]; !ok {
			in["stop_hook_active"] = json.RawMessage("false")
		}
	}
	data, err := json.Marshal(in)
	if err != nil { // a raw value that is not JSON: the payload was checked, so this is a bug
		return []byte("{}")
	}
	return data
}

// Action is what a handler's output asks for.
type Action int

// Actions, from "nothing" to the failure of the handler itself.
const (
	None  Action = iota
	Block        // a blocking event is blocked (Reason)
	Ask          // before_tool_call asks the user (Reason)
	Defer        // before_tool_call defers the decision (Reason)
	Fail         // the handler failed (Error)
)

// Result is a handler's output in quiver's terms.
type Result struct {
	Action Action
	// Reason is why it blocked or asks; "" leaves it to the caller
	// ("blocked by NAME").
	Reason string
	// Error says why it failed.
	Error string
	// Input replaces tool_input (before_tool_call); Output replaces
	// tool_output (after_tool_call).
	Input, Output json.RawMessage
	// Context is for the model, Notice for the user, FollowUp keeps an
	// agent going (agent_stop).
	Context, Notice, FollowUp string
	// AgentOutput holds the event's own outputs under Claude's key names
	// (sessionTitle, watchPaths, continue and stopReason, ...: SPEC §15),
	// for the agent that asked.
	AgentOutput map[string]json.RawMessage
	// Ignored names the fields set to no effect on this event, for the
	// hook's report.
	Ignored []string
}

// Output maps a handler's exit code, stdout and stderr for the quiver
// event (and Claude's event name, claudeEvent) to a Result, as Claude Code
// reads them (SPEC §11 "Output").
func Output(event, claudeEvent string, exitCode int, stdout, stderr []byte) Result {
	errText := strings.TrimSpace(string(stderr))
	switch {
	case exitCode == 2:
		return exitTwo(event, errText)
	case exitCode != 0 && event == format.WorktreeCreate:
		// Claude fails the worktree on any non-zero exit.
		return Result{Action: Block, Reason: cmp.Or(errText, fmt.Sprintf("exit status %d", exitCode))}
	case exitCode != 0:
		msg := fmt.Sprintf("exit status %d", exitCode)
		if errText != "" {
			msg += ": " + errText
		}
		return Result{Action: Fail, Error: msg}
	}
	// Claude trims with JavaScript's trim(), which also drops a byte
	// order mark (PowerShell writes one): a deny after one is a deny.
	out := bytes.TrimSpace(stdout)
	for bytes.HasPrefix(out, []byte("\ufeff")) {
		out = bytes.TrimSpace(out[len("\ufeff"):])
	}
	if len(out) == 0 {
		return Result{}
	}
	if out[0] == '{' {
		if obj, err := exact.Parse(out); err == nil {
			return fromJSON(event, claudeEvent, obj, errText)
		}
	}
	// Plain text: context where Claude adds it to the model's context,
	// the compaction's instructions or the worktree's path where Claude
	// reads it so, ignored elsewhere (Claude only logs it).
	switch {
	case format.PlainContextEvent(event):
		return Result{Context: string(out)}
	case event == format.PreCompact:
		return Result{AgentOutput: map[string]json.RawMessage{CompactInstructions: jsonString(string(out))}}
	case event == format.WorktreeCreate:
		return Result{AgentOutput: map[string]json.RawMessage{"worktreePath": jsonString(string(out))}}
	}
	return Result{}
}

// CompactInstructions is the agent_output key of pre_compact's plain
// stdout, which Claude reads as instructions for the compaction (it has
// no key of Claude's own).
const CompactInstructions = "compactInstructions"

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// exitTwo is Claude's "blocking error": stderr goes to the model, and for
// the events that can stop something, it stops it.
func exitTwo(event, stderr string) Result {
	switch {
	case format.BlockingEvent(event):
		return Result{Action: Block, Reason: stderr}
	case event == format.AgentStop:
		if stderr == "" {
			return Result{Action: Fail, Error: "exit status 2 without a message on stderr"}
		}
		return Result{FollowUp: stderr}
	case event == format.AfterToolCall || event == format.PostToolUseFailure:
		return Result{Context: stderr}
	}
	// Elsewhere Claude shows stderr to the user only.
	return Result{Notice: stderr}
}

// fields of the common and event-specific output that quiver reads, each
// decoded from the copy of its key that counts (read). The type names
// appear in the errors of values of the wrong type.
type jsonOutput struct {
	Continue, SuppressOutput                    *bool
	StopReason, SystemMessage, Decision, Reason *string
	Specific                                    *specificOutput
}

type specificOutput struct {
	HookEventName, PermissionDecision, PermissionDecisionReason, AdditionalContext *string
	UpdatedInput, UpdatedMCPToolOutput                                             json.RawMessage
}

// output is what read made of a handler's JSON.
type output struct {
	jsonOutput
	// specific is hookSpecificOutput's copies read as one (nil for none).
	specific exact.Object
	// The copies that were picked, for the errors about their values.
	decision, permission, eventName, updatedInput exact.Copy
	// f and sf hold the errors of the top-level keys and of
	// hookSpecificOutput's.
	f, sf exact.Fields
}

// read picks, for each key Claude's output has, the copy that counts,
// matching keys exactly, as Claude Code does: "PermissionDecision" is
// another key, and ignored. Where a decision is given more than once
// (continue, decision, permissionDecision) the strictest copy wins,
// wherever it stands, and its reason is the one given with it
// (exact.Paired); other keys are their last copy, as in Claude. The copies
// of hookSpecificOutput are read as one object, so that a second copy's
// allow meets the first one's deny. Claude lets the last copy of every key
// win; a guard's deny must not be undone by a second spelling.
func read(obj exact.Object) *output {
	o := &output{f: exact.Fields{Struct: "jsonOutput"}}
	f := &o.f
	cont := obj.Strictest("continue", rankContinue)
	o.decision = obj.Strictest("decision", rankDecision)
	f.Decode("continue", cont, &o.Continue)
	f.Decode("stopReason", obj.Paired("stopReason", cont), &o.StopReason)
	f.Decode("suppressOutput", obj.Last("suppressOutput"), &o.SuppressOutput)
	f.Decode("systemMessage", obj.Last("systemMessage"), &o.SystemMessage)
	f.Decode("decision", o.decision, &o.Decision)
	f.Decode("reason", obj.Paired("reason", o.decision), &o.Reason)

	specific, copies, bad := obj.Objects("hookSpecificOutput")
	if bad != nil {
		f.Decode("hookSpecificOutput", exact.Copy{Value: bad, Of: copies}, &specificOutput{})
	}
	if specific == nil {
		return o
	}
	o.specific = specific
	o.sf = exact.Fields{Struct: "specificOutput", Prefix: "hookSpecificOutput.", Repeated: copies > 1}
	sf, s := &o.sf, &specificOutput{}
	o.Specific = s
	o.eventName = specific.Last("hookEventName")
	o.permission = specific.Strictest("permissionDecision", rankPermission)
	o.updatedInput = specific.Last("updatedInput")
	sf.Decode("hookEventName", o.eventName, &s.HookEventName)
	sf.Decode("permissionDecision", o.permission, &s.PermissionDecision)
	sf.Decode("permissionDecisionReason", specific.Paired("permissionDecisionReason", o.permission), &s.PermissionDecisionReason)
	sf.Decode("additionalContext", specific.Last("additionalContext"), &s.AdditionalContext)
	s.UpdatedInput = o.updatedInput.Value
	s.UpdatedMCPToolOutput = specific.Last("updatedMCPToolOutput").Value
	return o
}

// outputKeys and specificKeys are the keys of Claude's output that quiver
// reads, at the top and in hookSpecificOutput.
var (
	outputKeys = []string{"continue", "suppressOutput", "stopReason", "systemMessage", "decision", "reason", "hookSpecificOutput"}
	// specificKeys: quiver's own, then passThrough's (from
	// passThroughFrom on), in one list the compiler lays out.
	specificKeys = []string{
		"hookEventName", "permissionDecision", "permissionDecisionReason", "updatedInput", "updatedMCPToolOutput", "additionalContext",
		"decision", "updatedToolOutput", "retry", "sessionTitle", "suppressOriginalPrompt", "initialUserMessage", "watchPaths", "reloadSkills", "action", "content", "worktreePath", "displayContent",
	}
)

const passThroughFrom = 6

// passThrough are the keys of hookSpecificOutput quiver passes to the
// agent as they are (Result.AgentOutput), and outputOn the events on
// which Claude honours each (../shared/notes/claude-hooks.md §A): set on
// another event, a key has no effect, and the hook's report says so.
func passThrough() []string { return specificKeys[passThroughFrom:] }

// contextEvents are the events whose hookSpecificOutput.additionalContext
// Claude gives the model.
var contextEvents = []string{format.BeforeToolCall, format.AfterToolCall, format.PostToolUseFailure, format.PostToolBatch,
	format.Notification, format.UserMessageSend, format.UserPromptExpansion, format.SessionStart, format.SubagentStart,
	format.Setup, format.PostModelSwitch}

// outputOn reports whether Claude honours the passed-through key on
// quiver's event (a switch: no table is built at start-up).
func outputOn(event, key string) bool {
	switch event {
	case format.PermissionRequest:
		return key == "decision"
	case format.AfterToolCall:
		return key == "updatedToolOutput"
	case format.PermissionDenied:
		return key == "retry"
	case format.UserMessageSend:
		return key == "sessionTitle" || key == "suppressOriginalPrompt"
	case format.UserPromptExpansion:
		return key == "suppressOriginalPrompt"
	case format.SessionStart:
		return key == "initialUserMessage" || key == "sessionTitle" || key == "watchPaths" || key == "reloadSkills"
	case format.CwdChanged, format.FileChanged:
		return key == "watchPaths"
	case format.Elicitation, format.ElicitationResult:
		return key == "action" || key == "content"
	case format.WorktreeCreate:
		return key == "worktreePath"
	case format.MessageDisplay:
		return key == "displayContent"
	}
	return false
}

// Honoured reports whether Claude reads hookSpecificOutput's key on
// quiver's event: additionalContext, or one of the keys passed through.
func Honoured(event, key string) bool {
	if key == "additionalContext" {
		return slices.Contains(contextEvents, event)
	}
	return outputOn(event, key)
}

// CheckAgentOutput keeps of a native hook's agent_output what Claude
// reads on quiver's event, each value checked as a Claude handler's
// would be: the keys Honoured for it, continue (false only) with
// stopReason, suppressOutput, and pre_compact's instructions. The rest
// is dropped, each named in notes; a bad value is an error.
func CheckAgentOutput(event string, out map[string]json.RawMessage) (kept map[string]json.RawMessage, notes []string, err error) {
	for _, k := range slices.Sorted(maps.Keys(out)) {
		v := out[k]
		ok := Honoured(event, k) && k != "additionalContext"
		switch k {
		case "continue":
			ok = string(v) == "false"
		case "stopReason":
			_, isText := exact.Text(v)
			ok = isText
		case "suppressOutput":
			ok = string(v) == "true"
		case CompactInstructions:
			_, isText := exact.Text(v)
			ok = isText && event == format.PreCompact
		case "decision":
			if ok {
				if err := permissionRequest(v); err != nil {
					return nil, nil, fmt.Errorf("agent_output: %w", err)
				}
			}
		}
		if !ok {
			notes = append(notes, "agent_output."+k+" has no effect on "+event)
			continue
		}
		if kept == nil {
			kept = map[string]json.RawMessage{}
		}
		kept[k] = compact(v)
	}
	return kept, notes, nil
}

// permissionRequest checks a PermissionRequest handler's decision: an
// object whose behavior is allow or deny.
func permissionRequest(v json.RawMessage) error {
	var d struct {
		Behavior string `json:"behavior"`
	}
	if err := json.Unmarshal(v, &d); err != nil {
		return errors.New("hookSpecificOutput.decision is not an object")
	}
	if d.Behavior != "allow" && d.Behavior != "deny" {
		return fmt.Errorf("hookSpecificOutput.decision.behavior %q is neither allow nor deny", d.Behavior)
	}
	return nil
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// misspelled is the note for a key that differs from one quiver reads only
// in letter case: Claude ignores it too, but its author probably meant the
// other.
func misspelled(key string) string {
	return fmt.Sprintf("%q ignored: keys are case-sensitive", key)
}

// rankContinue, rankDecision and rankPermission order the values of the
// decision keys from the most permissive up (exact.Strictest). A value
// quiver does not know ranks just below the ones that stop: it fails the
// handler, unless another copy stops.
func rankContinue(v json.RawMessage) int {
	switch string(v) {
	case "false":
		return 2
	case "true", "null":
		return 0
	}
	return 1
}

// rankDecision: see rankContinue.
func rankDecision(v json.RawMessage) int {
	s, ok := exact.Text(v)
	switch {
	case string(v) == "null":
		return 0
	case !ok:
		return 2
	case s == "block" || s == "deny":
		return 3
	case s == "" || s == "approve" || s == "allow":
		return 1
	}
	return 2
}

// rankPermission: see rankContinue. Claude's order: deny > defer > ask >
// allow.
func rankPermission(v json.RawMessage) int {
	s, ok := exact.Text(v)
	switch {
	case string(v) == "null":
		return 0
	case !ok:
		return 4
	}
	switch s {
	case "deny":
		return 5
	case "defer":
		return 3
	case "ask":
		return 2
	case "allow":
		return 1
	}
	return 4
}

func fromJSON(event, claudeEvent string, obj exact.Object, stderr string) Result {
	o := read(obj)
	specific := o.specific
	var r Result
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	r.Notice = str(o.SystemMessage)
	out := func(key string, v json.RawMessage) {
		if r.AgentOutput == nil {
			r.AgentOutput = map[string]json.RawMessage{}
		}
		r.AgentOutput[key] = v
	}
	if o.Continue != nil && !*o.Continue {
		out("continue", json.RawMessage("false"))
		if o.StopReason != nil {
			out("stopReason", jsonString(*o.StopReason))
		}
	}
	if o.SuppressOutput != nil && *o.SuppressOutput {
		out("suppressOutput", json.RawMessage("true"))
	}
	reason := str(o.Reason)
	switch str(o.Decision) {
	case "", "approve", "allow":
	case "block", "deny":
		switch {
		case format.BlockingEvent(event):
			r.Action, r.Reason = Block, reason
		case event == format.AgentStop:
			if reason == "" {
				o.f.Fail(exact.Copy{}, errors.New(`"decision": "block" without a "reason" to continue with`))
			}
			r.FollowUp = reason
		case event == format.AfterToolCall || event == format.PostToolUseFailure:
			r.Context = reason
		default:
			r.Ignored = append(r.Ignored, `decision: "block" on `+claudeEvent)
		}
	default:
		o.f.Fail(o.decision, fmt.Errorf(`unknown "decision" %q`, *o.Decision))
	}
	if s := o.Specific; s != nil {
		if name := str(s.HookEventName); name != "" && name != claudeEvent {
			o.sf.Fail(o.eventName, fmt.Errorf("hookSpecificOutput is for %s, not %s", name, claudeEvent))
		}
		if c := str(s.AdditionalContext); c != "" {
			r.Context = joinText(r.Context, c)
		}
		if event == format.PreModelSwitch {
			// A model switch is allowed or denied: an ask or a defer
			// has no effect on it.
			if err := permission(&r, s.PermissionDecision, str(s.PermissionDecisionReason), stderr); err != nil {
				o.sf.Fail(o.permission, err)
			}
			if r.Action == Ask || r.Action == Defer {
				r.Ignored = append(r.Ignored, "permissionDecision: "+strings.ToLower(*s.PermissionDecision)+" on "+claudeEvent)
				r.Action, r.Reason = None, ""
			}
		}
		for _, k := range passThrough() {
			v := specific.Last(k).Value
			if v == nil || isNull(v) {
				continue
			}
			switch {
			case !outputOn(event, k):
				r.Ignored = append(r.Ignored, "hookSpecificOutput."+k+" on "+claudeEvent)
			case k == "decision":
				if err := permissionRequest(v); err != nil {
					o.sf.Fail(specific.Last(k), err)
				}
				out(k, compact(v))
			default:
				out(k, compact(v))
			}
		}
		if event == format.BeforeToolCall {
			if err := permission(&r, s.PermissionDecision, str(s.PermissionDecisionReason), stderr); err != nil {
				o.sf.Fail(o.permission, err)
			}
			if len(s.UpdatedInput) > 0 && string(s.UpdatedInput) != "null" && r.Action != Block {
				if s.UpdatedInput[0] != '{' {
					o.sf.Fail(o.updatedInput, errors.New("updatedInput is not a JSON object"))
				} else {
					r.Input = compact(s.UpdatedInput)
				}
			}
		}
		if event == format.AfterToolCall && len(s.UpdatedMCPToolOutput) > 0 && string(s.UpdatedMCPToolOutput) != "null" {
			r.Output = compact(s.UpdatedMCPToolOutput)
		}
	}
	for _, k := range obj.Misspelled(outputKeys) {
		r.Ignored = append(r.Ignored, misspelled(k))
	}
	for _, k := range o.specific.Misspelled(specificKeys) {
		r.Ignored = append(r.Ignored, misspelled("hookSpecificOutput."+k))
	}
	o.f.Add(&o.sf)
	if err := o.f.Err(r.Action == Block); err != nil {
		msg := err.Error()
		if _, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			msg = "output does not follow Claude's hook output: " + msg
		}
		return Result{Action: Fail, Error: msg}
	}
	if r.Action == Block && r.Reason == "" {
		r.Reason = cmp.Or(r.Notice, stderr)
	}
	return r
}

// compact drops the white space of a handler's tool data, as quiver always
// has (Claude handlers print it indented, often); every key and value
// stays as written, "Path" and "path" alike.
func compact(v json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil { // valid: checked by exact.Parse
		return v
	}
	return b.Bytes()
}

// permission applies permissionDecision (nil when absent); it returns an
// error for a decision it does not know.
func permission(r *Result, decision *string, reason, stderr string) error {
	if decision == nil {
		return nil
	}
	switch *decision {
	case "deny":
		r.Action, r.Reason = Block, cmp.Or(reason, r.Notice, stderr)
	case "ask":
		if r.Action != Block {
			r.Action, r.Reason = Ask, reason
		}
	case "allow":
	case "defer":
		if r.Action != Block {
			r.Action, r.Reason = Defer, reason
		}
	default:
		return fmt.Errorf("unknown permissionDecision %q", *decision)
	}
	return nil
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}
