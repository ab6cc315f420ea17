package format

import "strings"

// quiver's lifecycle events a hook can handle (SPEC §8), and how Claude
// Code's events map to them (SPEC §11).
const (
	SessionStart    = "session_start"
	BeforeToolCall  = "before_tool_call"
	AfterToolCall   = "after_tool_call"
	UserMessageSend = "user_message_send"
	AgentStop       = "agent_stop"
	TurnEnd         = "turn_end"
)

// Events lists the events in the order the docs present them.
var Events = []string{SessionStart, BeforeToolCall, AfterToolCall, UserMessageSend, AgentStop, TurnEnd}

// EventsStarting lists the events whose names start with prefix, for
// shell completion.
func EventsStarting(prefix string) []string {
	var out []string
	for _, e := range Events {
		if strings.HasPrefix(e, prefix) {
			out = append(out, e)
		}
	}
	return out
}

// ValidEvent reports whether s is one of the events.
func ValidEvent(s string) bool {
	for _, e := range Events {
		if s == e {
			return true
		}
	}
	return false
}

// QuiverEvent maps a Claude event to quiver's (SPEC §11); ok is false for
// events quiver has no equivalent of (Notification, PreCompact, ...).
func QuiverEvent(claudeEvent string) (string, bool) {
	switch claudeEvent {
	case "SessionStart":
		return SessionStart, true
	case "PreToolUse":
		return BeforeToolCall, true
	case "PostToolUse":
		return AfterToolCall, true
	case "UserPromptSubmit":
		return UserMessageSend, true
	case "Stop", "SubagentStop":
		return AgentStop, true
	}
	return "", false
}

// ToolEvent reports the events about one tool call, named as Claude
// (PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest,
// PermissionDenied) or as quiver (before_tool_call, after_tool_call,
// post_tool_use_failure, permission_request, permission_denied): their
// matcher is tested against tool_name, and they alone evaluate an `if`
// condition. Claude skips a handler with an `if` on any other event.
func ToolEvent(event string) bool {
	switch event {
	case "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied",
		BeforeToolCall, AfterToolCall, "post_tool_use_failure", "permission_request", "permission_denied":
		return true
	}
	return false
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
	if ToolEvent(claudeEvent) {
		return "tool_name"
	}
	if claudeEvent == "SessionStart" {
		return "source"
	}
	return ""
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
