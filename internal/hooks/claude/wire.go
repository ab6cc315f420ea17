package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// quiver's event names (the hooks package owns them; repeated here so this
// package depends on nothing of quiver's).
const (
	sessionStart    = "session_start"
	beforeToolCall  = "before_tool_call"
	afterToolCall   = "after_tool_call"
	userMessageSend = "user_message_send"
	agentStop       = "agent_stop"
)

// QuiverEvent maps a Claude event to quiver's (SPEC §11); ok is false for
// events quiver has no equivalent of (Notification, PreCompact, ...).
func QuiverEvent(claudeEvent string) (string, bool) {
	switch claudeEvent {
	case "SessionStart":
		return sessionStart, true
	case "PreToolUse":
		return beforeToolCall, true
	case "PostToolUse":
		return afterToolCall, true
	case "UserPromptSubmit":
		return userMessageSend, true
	case "Stop", "SubagentStop":
		return agentStop, true
	}
	return "", false
}

// ToolEvent reports the Claude events about one tool call, whose matcher
// is tested against tool_name and which may carry an `if` condition.
func ToolEvent(claudeEvent string) bool {
	return claudeEvent == "PreToolUse" || claudeEvent == "PostToolUse"
}

// Selects reports whether a handler for claudeEvent takes part in a quiver
// event whose payload says invoked_by: Stop handlers answer the main
// agent's stop, SubagentStop handlers a subagent's.
func Selects(claudeEvent, invokedBy string) bool {
	switch claudeEvent {
	case "Stop":
		return invokedBy != "subagent"
	case "SubagentStop":
		return invokedBy == "subagent"
	}
	return true
}

// MatchField is the payload field a matcher of claudeEvent is tested
// against ("" when the event has no matcher: every handler runs).
func MatchField(claudeEvent string) string {
	switch claudeEvent {
	case "PreToolUse", "PostToolUse":
		return "tool_name"
	case "SessionStart":
		return "source"
	}
	return ""
}

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
	// Ignored names the fields that have no quiver equivalent and were
	// set (continue: false, suppressOutput, ...), for the hook's report.
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
	case exitCode != 0:
		msg := fmt.Sprintf("exit status %d", exitCode)
		if errText != "" {
			msg += ": " + errText
		}
		return Result{Action: Fail, Error: msg}
	}
	out := bytes.TrimSpace(stdout)
	if len(out) == 0 {
		return Result{}
	}
	var obj map[string]json.RawMessage
	if out[0] != '{' || json.Unmarshal(out, &obj) != nil {
		// Plain text: context where Claude adds it to the model's
		// context, ignored elsewhere (Claude only logs it).
		if event == userMessageSend || event == sessionStart {
			return Result{Context: string(out)}
		}
		return Result{}
	}
	return fromJSON(event, claudeEvent, obj, errText)
}

// exitTwo is Claude's "blocking error": stderr goes to the model, and for
// the events that can stop something, it stops it.
func exitTwo(event, stderr string) Result {
	switch event {
	case beforeToolCall, userMessageSend:
		return Result{Action: Block, Reason: stderr}
	case agentStop:
		if stderr == "" {
			return Result{Action: Fail, Error: "exit status 2 without a message on stderr"}
		}
		return Result{FollowUp: stderr}
	case afterToolCall:
		return Result{Context: stderr}
	}
	// SessionStart: Claude shows stderr to the user only.
	return Result{Notice: stderr}
}

// fields of the common and event-specific output that quiver reads.
type jsonOutput struct {
	Continue       *bool           `json:"continue"`
	SuppressOutput *bool           `json:"suppressOutput"`
	StopReason     *string         `json:"stopReason"`
	SystemMessage  *string         `json:"systemMessage"`
	Decision       *string         `json:"decision"`
	Reason         *string         `json:"reason"`
	Specific       *specificOutput `json:"hookSpecificOutput"`
}

type specificOutput struct {
	HookEventName            *string         `json:"hookEventName"`
	PermissionDecision       *string         `json:"permissionDecision"`
	PermissionDecisionReason *string         `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	UpdatedMCPToolOutput     json.RawMessage `json:"updatedMCPToolOutput"`
	AdditionalContext        *string         `json:"additionalContext"`
}

func fromJSON(event, claudeEvent string, obj map[string]json.RawMessage, stderr string) Result {
	var o jsonOutput
	raw, _ := json.Marshal(obj)
	if err := json.Unmarshal(raw, &o); err != nil {
		return Result{Action: Fail, Error: "output does not follow Claude's hook output: " + err.Error()}
	}
	var r Result
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	r.Notice = str(o.SystemMessage)
	if o.Continue != nil && !*o.Continue {
		r.Ignored = append(r.Ignored, "continue: false")
	}
	if o.SuppressOutput != nil && *o.SuppressOutput {
		r.Ignored = append(r.Ignored, "suppressOutput")
	}
	reason := str(o.Reason)
	switch str(o.Decision) {
	case "", "approve", "allow":
	case "block", "deny":
		switch event {
		case beforeToolCall, userMessageSend:
			r.Action, r.Reason = Block, reason
		case agentStop:
			if reason == "" {
				return Result{Action: Fail, Error: `"decision": "block" without a "reason" to continue with`}
			}
			r.FollowUp = reason
		case afterToolCall:
			r.Context = reason
		default:
			r.Ignored = append(r.Ignored, `decision: "block" on `+claudeEvent)
		}
	default:
		return Result{Action: Fail, Error: fmt.Sprintf(`unknown "decision" %q`, *o.Decision)}
	}
	if s := o.Specific; s != nil {
		if name := str(s.HookEventName); name != "" && name != claudeEvent {
			return Result{Action: Fail, Error: fmt.Sprintf("hookSpecificOutput is for %s, not %s", name, claudeEvent)}
		}
		if c := str(s.AdditionalContext); c != "" {
			r.Context = joinText(r.Context, c)
		}
		if event == beforeToolCall {
			if err := permission(&r, s, stderr); err != "" {
				return Result{Action: Fail, Error: err}
			}
			if len(s.UpdatedInput) > 0 && string(s.UpdatedInput) != "null" && r.Action != Block {
				if s.UpdatedInput[0] != '{' {
					return Result{Action: Fail, Error: "updatedInput is not a JSON object"}
				}
				r.Input = s.UpdatedInput
			}
		}
		if event == afterToolCall && len(s.UpdatedMCPToolOutput) > 0 && string(s.UpdatedMCPToolOutput) != "null" {
			r.Output = s.UpdatedMCPToolOutput
		}
	}
	if r.Action == Block && r.Reason == "" {
		r.Reason = firstNonEmpty(r.Notice, stderr)
	}
	return r
}

// permission applies permissionDecision; it returns an error text for a
// decision it does not know.
func permission(r *Result, s *specificOutput, stderr string) string {
	reason := ""
	if s.PermissionDecisionReason != nil {
		reason = *s.PermissionDecisionReason
	}
	if s.PermissionDecision == nil {
		return ""
	}
	switch *s.PermissionDecision {
	case "deny":
		r.Action, r.Reason = Block, firstNonEmpty(reason, r.Notice, stderr)
	case "ask":
		if r.Action != Block {
			r.Action, r.Reason = Ask, reason
		}
	case "allow":
	case "defer":
		r.Ignored = append(r.Ignored, `permissionDecision: "defer"`)
	default:
		return fmt.Sprintf("unknown permissionDecision %q", *s.PermissionDecision)
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

// KnownEvent reports the events Claude Code's hooks reference names, with
// or without a quiver equivalent; anything else in a hooks.json is
// probably a typo.
func KnownEvent(name string) bool {
	switch name {
	case "SessionStart", "SessionEnd", "Setup", "UserPromptSubmit", "PreToolUse", "PostToolUse",
		"PostToolUseFailure", "PermissionRequest", "PermissionDenied", "Notification", "Stop", "StopFailure",
		"SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "TeammateIdle", "TaskCreated",
		"TaskCompleted", "ConfigChange", "CwdChanged", "FileChanged", "WorktreeCreate", "WorktreeRemove",
		"InstructionsLoaded", "Elicitation", "ElicitationResult":
		return true
	}
	return false
}
