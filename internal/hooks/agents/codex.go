package agents

import (
	"time"

	"github.com/quiver-cli/quiver/internal/hooks"
)

// Codex is OpenAI's Codex CLI: Claude's configuration shape in
// .codex/hooks.json, Claude's input fields, and a narrower output (no
// "ask", a rewrite only together with "allow", JSON required on Stop).
var Codex = &Agent{
	Name:         "codex",
	Title:        "Codex",
	ConfigLocal:  ".codex/hooks.json",
	ConfigGlobal: ".codex/hooks.json",
	Events: events(
		"SessionStart", sessionStart,
		"PreToolUse", beforeToolCall,
		"PostToolUse", afterToolCall,
		"UserPromptSubmit", userMessageSend,
		"Stop", agentStop,
		"SubagentStop", agentStop,
	),
	RootInput:   []string{"cwd"},
	TimeoutUnit: time.Second,
	SkillsDir:   ".agents/skills",
	keys:        hooksArray,
	entry:       matcherGroup,
	decode:      claudeDecode,
	encode:      codexEncode,
}

func codexEncode(c Call, r *hooks.Result, o Options) Answer {
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
			// Codex cannot ask from a hook (SPEC §13, docs/agents.md): a
			// guard that wants the user's approval is not overruled.
			spec.PermissionDecision = "deny"
			spec.PermissionDecisionReason = "this needs the user's approval, which Codex cannot ask from a hook: " + r.Reason
		case r.Input != nil:
			// Codex takes a rewrite only with "allow", which approves
			// nothing: its own approval rules still apply.
			spec.PermissionDecision, spec.UpdatedInput = "allow", r.Input
		}
	case userMessageSend:
		if r.Blocked {
			out.Decision, out.Reason = "block", r.Reason
		}
	case agentStop:
		spec = nil
		if msg := keepGoing(r, context); msg != "" {
			out.Decision, out.Reason = "block", msg
		}
	}
	if spec != nil && (spec.PermissionDecision != "" || spec.AdditionalContext != "") {
		out.Specific = spec
	}
	// Stop wants JSON on exit 0: "{}" at least, which marshal gives.
	return Answer{Stdout: marshal(out)}
}
