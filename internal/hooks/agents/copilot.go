package agents

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/tailscale/hujson"

	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/lazy"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// Copilot is GitHub Copilot CLI (@github/copilot): a hook file of its own
// in .github/hooks/ (user: ~/.copilot/hooks/), version 1, camelCase event
// names, handlers {type: "command", bash, timeoutSec}, camelCase input
// (sessionId, toolName, toolArgs) and Claude-like output
// (permissionDecision, modifiedArgs, decision: "block"). Measured with
// Copilot CLI 1.0.102 (docs/agents.md).
var Copilot = &Agent{
	Name:         "copilot",
	Title:        "GitHub Copilot CLI",
	Programs:     []string{"copilot"},
	Home:         ".copilot",
	ConfigLocal:  ".github/hooks/quiver.json",
	ConfigGlobal: ".copilot/hooks/quiver.json",
	events: []Event{
		{"sessionStart", sessionStart},
		{"preToolUse", beforeToolCall},
		{"postToolUse", afterToolCall},
		{"userPromptSubmitted", userMessageSend},
		{"agentStop", agentStop},
		{"subagentStop", agentStop},
	},
	RootEnv:     []string{"COPILOT_PROJECT_DIR", "CLAUDE_PROJECT_DIR"},
	RootInput:   []string{"cwd"},
	TimeoutUnit: time.Second,
	// Copilot reads .github/skills, .agents/skills and .claude/skills in
	// a project, ~/.copilot/skills and ~/.agents/skills at home, and lists
	// a skill of one name once; .agents/skills is the folder it shares
	// with Codex and OpenCode.
	SkillsDir: ".agents/skills",
	SkillsToo: []string{".claude/skills"},
	// It has no command folder of its own: it reads a project's
	// .claude/commands, as skills (docs/agents.md).
	AgentsDir:   ".github/agents",
	AgentSuffix: ".agent.md",
	User:        &Dirs{Skills: ".agents/skills", Agents: ".copilot/agents"},
	subagent:    copilotSubagent,
	Settings:    []Setting{{Keys: []string{"version"}, Value: json.RawMessage("1")}},
	shell:       true, // bash -c (measured)
	blocking:    []string{beforeToolCall, userMessageSend},
	keys:        hooksArray,
	entry:       copilotHandler,
	decode:      copilotDecode,
	encode:      copilotEncode,
	parts:       copilotParts,
	partFiles:   copilotPartFiles,
	gate:        copilotGate,
	silenced:    copilotSilenced,
}

func copilotHandler(a *Agent, ev Event, command string, timeout time.Duration) json.RawMessage {
	return marshal(struct {
		Type    string `json:"type"`
		Bash    string `json:"bash"`
		Timeout int64  `json:"timeoutSec"`
	}{"command", command, a.timeoutIn(timeout)})
}

// copilotDecode reads Copilot's camelCase input (and the snake_case one
// it sends hooks configured under Claude's event names).
func copilotDecode(ev Event, in map[string]json.RawMessage) hooks.Payload {
	for _, r := range [][2]string{
		{"sessionId", "conv_id"}, {"session_id", "conv_id"},
		{"toolName", "tool_name"}, {"toolArgs", "tool_input"},
		{"toolResult", "tool_output"}, {"tool_result", "tool_output"},
		{"prompt", "message"},
	} {
		rename(in, r[0], r[1])
	}
	// Older Copilot versions sent toolArgs as a JSON string.
	var s string
	if json.Unmarshal(in["tool_input"], &s) == nil && json.Valid([]byte(s)) {
		in["tool_input"] = json.RawMessage(s)
	}
	if ev.Quiver == agentStop {
		// agentStop and subagentStop both run agent_stop; only a
		// subagent's stop names the agent.
		by := "main"
		if _, ok := in["agentName"]; ok || ev.Native == "subagentStop" {
			by = "subagent"
		}
		setString(in, "invoked_by", by)
	}
	return hooks.Payload(in)
}

type copilotOutput struct {
	PermissionDecision       string          `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string          `json:"permissionDecisionReason,omitempty"`
	ModifiedArgs             json.RawMessage `json:"modifiedArgs,omitempty"`
	AdditionalContext        string          `json:"additionalContext,omitempty"`
	Decision                 string          `json:"decision,omitempty"`
	Reason                   string          `json:"reason,omitempty"`
}

// copilotEncode answers in JSON with exit 0. Copilot shows its user
// nothing a hook prints (systemMessage is ignored), so notices cannot be
// said; an output rewrite cannot either (only its SDK hooks replace a
// tool's result).
func copilotEncode(c Call, r *hooks.Result, o Options) Answer {
	var out copilotOutput
	context := texts(r.Context)
	switch c.Event {
	case beforeToolCall:
		out.AdditionalContext = context
		switch {
		case r.Blocked:
			out.PermissionDecision, out.PermissionDecisionReason = "deny", r.Reason
		case r.Asks():
			out.PermissionDecision, out.PermissionDecisionReason = "ask", r.Reason
		case r.Input != nil && !o.AllowRewrites:
			// Copilot's own permission rules still apply to modified
			// arguments; without --allow-rewrites the user is asked too
			// (in -p, where no one can be asked, Copilot denies).
			out.PermissionDecision, out.PermissionDecisionReason = "ask", rewriteReason
		}
		if !r.Blocked {
			out.ModifiedArgs = r.Input
		}
	case sessionStart, afterToolCall:
		out.AdditionalContext = context
	case userMessageSend:
		out.AdditionalContext = context
		if r.Blocked {
			out.Decision, out.Reason = "block", r.Reason
		}
	case agentStop:
		if msg := keepGoing(r, context); msg != "" {
			out.Decision, out.Reason = "block", msg
		}
	}
	return Answer{Stdout: marshal(out)}
}

// copilotTools maps Claude Code's tool names to the aliases Copilot's
// custom agents take (GitHub's custom-agents-configuration reference).
var copilotTools = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"Bash": "execute", "Read": "read", "NotebookRead": "read",
		"Edit": "edit", "MultiEdit": "edit", "Write": "edit", "NotebookEdit": "edit",
		"Grep": "search", "Glob": "search", "Task": "agent",
		"WebSearch": "web", "WebFetch": "web", "TodoWrite": "todo",
	}
}}

// copilotSubagent writes a subagent as a Copilot custom agent: name,
// description (required) and tools in Copilot's aliases; the rest of
// Claude's frontmatter (model names Copilot does not know, color, ...) is
// dropped, since Copilot only warns about keys it ignores.
func copilotSubagent(fm map[string]any, body, name string) ([]byte, []string, error) {
	return toolsSubagent("Copilot", name, copilotTools.Get(), fm, body)
}

// copilotMCP: .github/mcp.json (Copilot's .mcp.json is Claude's too) and
// ~/.copilot/mcp-config.json, with Claude's ${VAR} and ${VAR:-default}.
var copilotMCP = &mcpFormat{
	Local: ".github/mcp.json", Global: ".copilot/mcp-config.json",
	Keys: []string{"mcpServers"},
	// Copilot CLI 1.0.102 names tools SERVER-TOOL cut to 64 characters
	// (measured): long server names collide.
	NameBudget: 24, ToolLimit: 64, Overhead: len("-"), Tools: "SERVER-TOOL",
	Ref:      func(name string) string { return "${" + name + "}" },
	Defaults: true,
	Stdio: func(argv []string, env map[string]string) map[string]any {
		m := withType("local", standardStdio(argv, env))
		m["tools"] = []string{"*"}
		return m
	},
	Remote: func(kind, url string, headers map[string]string) (map[string]any, string) {
		m := withType(kind, standardRemote(url, headers))
		m["tools"] = []string{"*"}
		return m, ""
	},
}

// copilotLSP: .github/lsp.json and ~/.copilot/lsp-config.json,
// {"lspServers": {name: {command, args, fileExtensions, env}}}. Both are
// strict JSON, and one entry Copilot cannot read makes it drop the whole
// file, so quiver writes only entries it fully understands.
var copilotLSP = &lspFormat{
	Local: ".github/lsp.json", Global: ".copilot/lsp-config.json",
	Keys:     []string{"lspServers"},
	Ref:      func(name string) string { return "${" + name + "}" },
	Defaults: true,
	Entry: func(argv []string, env map[string]string, exts []string, def lspDef) map[string]any {
		m := standardStdio(argv, env)
		m["fileExtensions"] = def.ExtensionToLanguage
		if len(def.InitializationOptions) > 0 {
			m["initializationOptions"] = def.InitializationOptions
		}
		return m
	},
}

// copilotParts: its MCP servers, then its LSP servers.
func copilotParts(w *Wirer, site Site, d Docs, quiver string) (Plan, error) {
	plan := mcpParts(w, site, d, copilotMCP, quiver)
	lsp := copilotLSP.parts(site, d, quiver)
	plan.Files = append(plan.Files, lsp.Files...)
	plan.Missed = append(plan.Missed, lsp.Missed...)
	return plan, nil
}

func copilotPartFiles(w *Wirer, site Site) []FileMembers {
	return []FileMembers{{Path: copilotMCP.file(site)}, {Path: copilotLSP.file(site)}}
}

// copilotGate says when Copilot CLI will not read what quiver wrote in a
// project: it loads a project's hooks, MCP and LSP servers only in a
// folder the user trusts (measured with 1.0.102: `copilot -p` in an
// untrusted project ran neither the hooks nor the servers, and said
// nothing). Trust is the folder, or one above it, in trusted_folders of
// Copilot's config.json; quiver never writes it (SPEC §16).
func copilotGate(w *Wirer, site Site, entry *wiring.AgentRecord) string {
	if site.Scope.Location != plugins.Local || entry == nil {
		return ""
	}
	config := filepath.Join(w.Home, ".copilot", "config.json")
	if copilotTrusts(config, site.Base) {
		return ""
	}
	return fmt.Sprintf("GitHub Copilot CLI loads a project's hooks and servers only in a folder you trust: start copilot in %s and trust it for future sessions (or add it to trusted_folders in %s; --trust-folder trusts it for one run)", site.Base, config)
}

// copilotTrusts reports whether Copilot's config.json at path trusts dir:
// one of its trusted_folders is dir or a folder above it.
func copilotTrusts(path, dir string) bool {
	data, err := safefs.ReadFile(path, safefs.MaxMeta)
	if err != nil {
		return false
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		return false
	}
	var c struct {
		TrustedFolders []string `json:"trusted_folders"`
	}
	if json.Unmarshal(std, &c) != nil {
		return false
	}
	candidates := []string{dir}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		candidates = append(candidates, real)
	}
	for _, folder := range c.TrustedFolders {
		if !filepath.IsAbs(folder) {
			continue
		}
		for _, d := range candidates {
			if plugins.InsideRoot(d, folder) {
				return true
			}
		}
	}
	return false
}
