package agents

import (
	"encoding/json"
	"time"

	"github.com/quiver-cli/quiver/internal/hooks"
)

// Claude is Claude Code: hooks in .claude/settings.json, Claude's hook
// input on stdin, JSON output with hookSpecificOutput (SPEC §11, §13).
var Claude = &Agent{
	Name:         "claude",
	Title:        "Claude Code",
	ConfigLocal:  ".claude/settings.json",
	ConfigGlobal: ".claude/settings.json",
	Events: events(
		"SessionStart", sessionStart,
		"PreToolUse", beforeToolCall,
		"PostToolUse", afterToolCall,
		"UserPromptSubmit", userMessageSend,
		"Stop", agentStop,
		"SubagentStop", agentStop,
	),
	RootEnv:     []string{"CLAUDE_PROJECT_DIR"},
	TimeoutUnit: time.Second,
	SkillsDir:   ".claude/skills",
	CommandsDir: ".claude/commands",
	keys:        hooksArray,
	entry:       matcherGroup,
	decode:      claudeDecode,
	encode:      claudeEncode,
}

// hooksArray is where Claude-shaped configurations (Claude, Codex,
// Gemini) keep an event's entries: hooks.<Event>.
func hooksArray(ev Event) []string { return []string{"hooks", ev.Native} }

// matcherGroup builds Claude's shape of entry: one matcher group with one
// command handler. Events with a matcher get "*" (every tool, every
// source); the others take none.
func matcherGroup(a *Agent, ev Event, command string, timeout time.Duration) json.RawMessage {
	{
		type handler struct {
			Type    string `json:"type"`
			Command string `json:"command"`
			Timeout int64  `json:"timeout"`
		}
		type group struct {
			Matcher string    `json:"matcher,omitempty"`
			Hooks   []handler `json:"hooks"`
		}
		g := group{Hooks: []handler{{Type: "command", Command: command, Timeout: a.timeoutIn(timeout)}}}
		if a.matches(ev) {
			g.Matcher = "*"
		}
		return marshal(g)
	}
}

// matches reports events whose entries take a matcher.
func (a *Agent) matches(ev Event) bool {
	switch ev.Quiver {
	case beforeToolCall, afterToolCall, sessionStart:
		return true
	}
	return false
}

// claudeDecode is the inverse of claude.Input (SPEC §11): Claude's names
// become quiver's, and every field stays as well.
func claudeDecode(ev Event, in map[string]json.RawMessage) hooks.Payload {
	p := hooks.Payload(in)
	rename(in, "session_id", "conv_id")
	rename(in, "tool_use_id", "tool_user_id")
	rename(in, "tool_response", "tool_output")
	rename(in, "prompt", "message")
	if ev.Quiver == agentStop {
		by := "main"
		if ev.Native == "SubagentStop" {
			by = "subagent"
		}
		setString(in, "invoked_by", by)
	}
	return p
}

// claudeSpecific is Claude's hookSpecificOutput. Every one carries the
// input's hookEventName, or Claude discards it.
type claudeSpecific struct {
	HookEventName            string          `json:"hookEventName"`
	PermissionDecision       string          `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string          `json:"permissionDecisionReason,omitempty"`
	UpdatedInput             json.RawMessage `json:"updatedInput,omitempty"`
	UpdatedMCPToolOutput     json.RawMessage `json:"updatedMCPToolOutput,omitempty"`
	AdditionalContext        string          `json:"additionalContext,omitempty"`
}

type claudeOutput struct {
	Decision      string          `json:"decision,omitempty"`
	Reason        string          `json:"reason,omitempty"`
	SystemMessage string          `json:"systemMessage,omitempty"`
	Specific      *claudeSpecific `json:"hookSpecificOutput,omitempty"`
}

func claudeEncode(c Call, r *hooks.Result, o Options) Answer {
	var out claudeOutput
	out.SystemMessage = texts(r.Notices)
	context := texts(r.Context)
	spec := &claudeSpecific{HookEventName: c.Native, AdditionalContext: context}
	switch c.Event {
	case beforeToolCall:
		switch {
		case r.Blocked:
			spec.PermissionDecision, spec.PermissionDecisionReason = "deny", r.Reason
		case r.Decision == hooks.Ask:
			spec.PermissionDecision, spec.PermissionDecisionReason = "ask", r.Reason
		case r.Input != nil && o.AllowRewrites:
			spec.PermissionDecision = "allow"
		case r.Input != nil:
			spec.PermissionDecision, spec.PermissionDecisionReason = "ask", rewriteReason
		}
		if !r.Blocked {
			spec.UpdatedInput = r.Input
		}
	case afterToolCall:
		spec.UpdatedMCPToolOutput = r.Output
	case userMessageSend:
		if r.Blocked {
			out.Decision, out.Reason = "block", r.Reason
		}
	case agentStop:
		// Stop and SubagentStop take no hookSpecificOutput: context
		// travels inside the reason, and only when the agent is kept
		// going.
		spec = nil
		if msg := keepGoing(r, context); msg != "" {
			out.Decision, out.Reason = "block", msg
		}
	}
	if spec != nil && (spec.PermissionDecision != "" || spec.UpdatedInput != nil ||
		spec.UpdatedMCPToolOutput != nil || spec.AdditionalContext != "") {
		out.Specific = spec
	}
	return Answer{Stdout: marshal(out)}
}
