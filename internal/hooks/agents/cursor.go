package agents

import (
	"encoding/json"
	"time"

	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/plugins/format"
)

// Cursor is Cursor's agent: .cursor/hooks.json with a format version and
// flat handler lists, camelCase event names, conversation_id for the
// session and snake_case outputs (permission, followup_message).
var Cursor = &Agent{
	Name:         "cursor",
	Title:        "Cursor",
	Programs:     []string{"cursor-agent", "cursor"},
	Home:         ".cursor",
	ConfigLocal:  ".cursor/hooks.json",
	ConfigGlobal: ".cursor/hooks.json",
	events: []Event{
		{"sessionStart", sessionStart},
		{"preToolUse", beforeToolCall},
		{"postToolUse", afterToolCall},
		{"beforeSubmitPrompt", userMessageSend},
		{"stop", agentStop},
		{"subagentStop", agentStop},
	},
	RootInput: []string{"workspace_roots", "cwd"},
	// Cursor expands it in a server's arguments, and starts servers in
	// no folder one can count on (often the home folder).
	ProjectVar:  "${workspaceFolder}",
	NoLSP:       "Cursor's agent starts no LSP servers of a plugin's (its editor's language servers are extensions)",
	TimeoutUnit: time.Second,
	SkillsDir:   ".cursor/skills",
	SkillsToo:   []string{".agents/skills"},
	CommandsDir: ".cursor/commands",
	syntax:      cursorSyntax,
	AgentsDir:   ".cursor/agents",
	AgentSuffix: ".md",
	subagent:    cursorSubagent,
	blocking:    []string{beforeToolCall, userMessageSend},
	Settings:    []Setting{{Keys: []string{"version"}, Value: json.RawMessage("1")}},
	keys:        hooksArray,
	entry:       cursorHandler,
	decode:      cursorDecode,
	encode:      cursorEncode,
	mcp:         &cursorMCP,
}

// cursorSubagent keeps what Cursor's subagents take of Claude's
// frontmatter: name, description, model when it is "inherit", and tools
// as readonly when none of them changes anything (Cursor has no tool
// list: other tools lists are dropped, and named).
func cursorSubagent(fm map[string]any, body, name string) ([]byte, []string, error) {
	type agent struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description,omitempty"`
		Model       string `yaml:"model,omitempty"`
		Readonly    bool   `yaml:"readonly,omitempty"`
	}
	out := agent{Name: name, Description: format.StringField(fm, "description")}
	var dropped []string
	for k, v := range fm {
		switch {
		case k == "name" || k == "description":
		case k == "tools" && readOnly(v):
			out.Readonly = true
		case k == "model" && v == "inherit":
			out.Model = "inherit"
		default:
			dropped = append(dropped, k)
		}
	}
	return withFrontmatter(out, body, dropped)
}

// cursorHandler is one handler of Cursor's; an event that can block gets
// failClosed, with which Cursor blocks when the command fails (quiver not
// found included) rather than letting the action through: a guard that
// cannot run blocks (docs/agents.md).
func cursorHandler(a *Agent, ev Event, command string, timeout time.Duration) json.RawMessage {
	return marshal(struct {
		Command    string `json:"command"`
		Timeout    int64  `json:"timeout"`
		FailClosed bool   `json:"failClosed,omitempty"`
	}{command, a.timeoutIn(timeout), a.guards(ev)})
}

func cursorDecode(ev Event, in map[string]json.RawMessage) hooks.Payload {
	rename(in, "conversation_id", "conv_id")
	rename(in, "session_id", "conv_id")
	rename(in, "tool_use_id", "tool_user_id")
	rename(in, "prompt", "message")
	if _, ok := in["cwd"]; !ok {
		var roots []string
		if json.Unmarshal(in["workspace_roots"], &roots) == nil && len(roots) > 0 {
			setString(in, "cwd", roots[0])
		}
	}
	if ev.Quiver == agentStop {
		by := "main"
		if ev.Native == "subagentStop" {
			by = "subagent"
		}
		setString(in, "invoked_by", by)
	}
	return hooks.Payload(in)
}

type cursorOutput struct {
	Permission   string `json:"permission,omitempty"`
	UserMessage  string `json:"user_message,omitempty"`
	AgentMessage string `json:"agent_message,omitempty"`
	// Decision and Reason are what older Cursor versions read on
	// preToolUse; newer ones read permission.
	Decision          string          `json:"decision,omitempty"`
	Reason            string          `json:"reason,omitempty"`
	UpdatedInput      json.RawMessage `json:"updated_input,omitempty"`
	UpdatedMCPOutput  json.RawMessage `json:"updated_mcp_tool_output,omitempty"`
	AdditionalContext string          `json:"additional_context,omitempty"`
	Continue          *bool           `json:"continue,omitempty"`
	FollowUp          string          `json:"followup_message,omitempty"`
}

func cursorEncode(c Call, r *hooks.Result, o Options) Answer {
	var out cursorOutput
	out.UserMessage = texts(r.Notices)
	context := texts(r.Context)
	deny := func(reason string) {
		out.Permission, out.Decision = "deny", "deny"
		out.Reason, out.AgentMessage = reason, reason
		out.UserMessage = joinNonEmpty(reason, out.UserMessage)
	}
	switch c.Event {
	case sessionStart:
		out.AdditionalContext = context
	case beforeToolCall:
		switch {
		case r.Blocked:
			deny(r.Reason)
		case r.Asks():
			// Cursor accepts "ask" on preToolUse but does not enforce
			// it: a guard that wants approval is not overruled.
			deny("this needs the user's approval, which Cursor does not ask for from a hook: " + r.Reason)
		case r.Input != nil:
			out.UpdatedInput = r.Input
			if o.AllowRewrites {
				out.Permission, out.Decision = "allow", "allow"
			}
		}
	case afterToolCall:
		out.AdditionalContext = context
		out.UpdatedMCPOutput = r.Output
	case userMessageSend:
		if r.Blocked {
			f := false
			out.Continue = &f
			out.UserMessage = joinNonEmpty(r.Reason, out.UserMessage)
		}
	case agentStop:
		out.FollowUp = keepGoing(r, context)
	}
	return Answer{Stdout: marshal(out)}
}

// cursorMCP: Cursor's .cursor/mcp.json, with ${env:VAR} references.
var cursorMCP = mcpFormat{
	Local: ".cursor/mcp.json", Global: ".cursor/mcp.json",
	Keys: []string{"mcpServers"},
	// Cursor leaves out a tool whose server and tool names together pass
	// 60 characters (reported by its users; docs/agents.md).
	NameBudget: 24, ToolLimit: 60, Overhead: 0, Tools: "SERVER and TOOL",
	Ref:   func(name string) string { return "${env:" + name + "}" },
	Stdio: standardStdio,
	Remote: func(_, url string, headers map[string]string) (map[string]any, string) {
		return standardRemote(url, headers), ""
	},
}
