package agents

import (
	"encoding/json"
	"time"

	"github.com/quiver-cli/quiver/internal/hooks"
)

// Gemini is Google's Gemini CLI: Claude's configuration shape in
// .gemini/settings.json (which may hold comments), timeouts in
// milliseconds, its own event names and a flat "decision" output.
var Gemini = &Agent{
	Name:         "gemini",
	Title:        "Gemini CLI",
	ConfigLocal:  ".gemini/settings.json",
	ConfigGlobal: ".gemini/settings.json",
	Comments:     true,
	Events: events(
		"SessionStart", sessionStart,
		"BeforeTool", beforeToolCall,
		"AfterTool", afterToolCall,
		"BeforeAgent", userMessageSend,
		"AfterAgent", agentStop,
	),
	RootEnv:     []string{"GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"},
	TimeoutUnit: time.Millisecond,
	SkillsDir:   ".gemini/skills",
	keys:        hooksArray,
	entry:       geminiGroup,
	decode:      geminiDecode,
	encode:      geminiEncode,
}

// geminiMCP: Gemini keeps servers beside its hooks, in settings.json,
// and expands $VAR and ${VAR} there (not ${VAR:-default}).
var geminiMCP = &mcpFormat{
	Local: ".gemini/settings.json", Global: ".gemini/settings.json",
	Keys: []string{"mcpServers"}, Comments: true,
	Ref:   func(name string) string { return "${" + name + "}" },
	Stdio: standardStdio,
	Remote: func(kind, url string, headers map[string]string) (map[string]any, string) {
		return withType(kind, standardRemote(url, headers)), ""
	},
}

func init() { withMCP(Gemini, geminiMCP) }

// geminiGroup is Claude's group shape with a handler name, which Gemini
// shows in /hooks and uses to enable or disable a hook.
func geminiGroup(a *Agent, ev Event, command string, timeout time.Duration) json.RawMessage {
	type handler struct {
		Name    string `json:"name"`
		Type    string `json:"type"`
		Command string `json:"command"`
		Timeout int64  `json:"timeout"`
	}
	type group struct {
		Matcher string    `json:"matcher,omitempty"`
		Hooks   []handler `json:"hooks"`
	}
	g := group{Hooks: []handler{{Name: "quiver", Type: "command", Command: command, Timeout: a.timeoutIn(timeout)}}}
	if ev.Quiver == beforeToolCall || ev.Quiver == afterToolCall {
		g.Matcher = "*"
	}
	return marshal(g)
}

func geminiDecode(ev Event, in map[string]json.RawMessage) hooks.Payload {
	rename(in, "session_id", "conv_id")
	rename(in, "tool_response", "tool_output")
	if ev.Quiver == userMessageSend {
		rename(in, "prompt", "message")
	}
	if ev.Quiver == agentStop {
		rename(in, "prompt_response", "response")
		setString(in, "invoked_by", "main")
	}
	return hooks.Payload(in)
}

type geminiSpecific struct {
	HookEventName     string          `json:"hookEventName,omitempty"`
	AdditionalContext string          `json:"additionalContext,omitempty"`
	ToolInput         json.RawMessage `json:"tool_input,omitempty"`
}

type geminiOutput struct {
	Decision      string          `json:"decision,omitempty"`
	Reason        string          `json:"reason,omitempty"`
	SystemMessage string          `json:"systemMessage,omitempty"`
	Specific      *geminiSpecific `json:"hookSpecificOutput,omitempty"`
}

// geminiEncode answers in JSON with exit 0: Gemini reads JSON output
// whatever the exit code, so the decision is always in the JSON.
func geminiEncode(c Call, r *hooks.Result, o Options) Answer {
	var out geminiOutput
	out.SystemMessage = texts(r.Notices)
	context := texts(r.Context)
	spec := &geminiSpecific{HookEventName: c.Native, AdditionalContext: context}
	switch c.Event {
	case beforeToolCall:
		switch {
		case r.Blocked:
			out.Decision, out.Reason = "deny", r.Reason
		case r.Decision == hooks.Ask:
			out.Decision, out.Reason = "ask", r.Reason
		case r.Input != nil && !o.AllowRewrites:
			out.Decision, out.Reason = "ask", rewriteReason
		}
		if !r.Blocked {
			spec.ToolInput = r.Input
		}
	case userMessageSend:
		if r.Blocked {
			out.Decision, out.Reason = "deny", r.Reason
		}
	case agentStop:
		// AfterAgent "deny" rejects the answer and sends the reason as a
		// new prompt: the agent keeps going.
		spec = nil
		if msg := keepGoing(r, context); msg != "" {
			out.Decision, out.Reason = "deny", msg
		}
	}
	if spec != nil && (spec.AdditionalContext != "" || spec.ToolInput != nil) {
		out.Specific = spec
	}
	return Answer{Stdout: marshal(out)}
}
