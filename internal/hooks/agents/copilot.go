package agents

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/plugins"
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
	ConfigLocal:  ".github/hooks/quiver.json",
	ConfigGlobal: ".copilot/hooks/quiver.json",
	Events: events(
		"sessionStart", sessionStart,
		"preToolUse", beforeToolCall,
		"postToolUse", afterToolCall,
		"userPromptSubmitted", userMessageSend,
		"agentStop", agentStop,
		"subagentStop", agentStop,
	),
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
	keys:        hooksArray,
	entry:       copilotHandler,
	decode:      copilotDecode,
	encode:      copilotEncode,
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
		case r.Decision == hooks.Ask:
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
var copilotTools = map[string]string{
	"Bash": "execute", "Read": "read", "NotebookRead": "read",
	"Edit": "edit", "MultiEdit": "edit", "Write": "edit", "NotebookEdit": "edit",
	"Grep": "search", "Glob": "search", "Task": "agent",
	"WebSearch": "web", "WebFetch": "web", "TodoWrite": "todo",
}

// copilotSubagent writes a subagent as a Copilot custom agent: name,
// description (required) and tools in Copilot's aliases; the rest of
// Claude's frontmatter (model names Copilot does not know, color, ...) is
// dropped, since Copilot only warns about keys it ignores.
func copilotSubagent(fm map[string]any, body, name string) ([]byte, []string, error) {
	return toolsSubagent("Copilot", name, copilotTools, fm, body)
}

// copilotMCP: .github/mcp.json (Copilot's .mcp.json is Claude's too) and
// ~/.copilot/mcp-config.json, with Claude's ${VAR} and ${VAR:-default}.
var copilotMCP = &mcpFormat{
	Local: ".github/mcp.json", Global: ".copilot/mcp-config.json",
	Keys:     []string{"mcpServers"},
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

// Copilot's LSP servers: .github/lsp.json and ~/.copilot/lsp-config.json,
// {"lspServers": {name: {command, args, fileExtensions, env}}}. Both are
// strict JSON, and one entry Copilot cannot read makes it drop the whole
// file, so quiver writes only entries it fully understands.
const (
	copilotLSPLocal  = ".github/lsp.json"
	copilotLSPGlobal = ".copilot/lsp-config.json"
)

func init() {
	Copilot.parts = func(w *Wirer, site Site, d Docs, quiver string) (Plan, error) {
		plan := mcpParts(w, site, d, copilotMCP, quiver)
		lsp := copilotLSP(site, d, quiver)
		plan.Files = append(plan.Files, lsp.Files...)
		plan.Missed = append(plan.Missed, lsp.Missed...)
		return plan, nil
	}
	Copilot.partFiles = func(w *Wirer, site Site) []FileMembers {
		return []FileMembers{{Path: copilotMCP.file(site)}, {Path: copilotLSPFile(site)}}
	}
}

func copilotLSPFile(site Site) string {
	rel := copilotLSPGlobal
	if site.Scope.Location == plugins.Local {
		rel = copilotLSPLocal
	}
	return filepath.Join(site.Base, filepath.FromSlash(rel))
}

// lspDef is an LSP server in Claude Code's schema, as far as Copilot can
// take it.
type lspDef struct {
	Command               string            `json:"command"`
	Args                  []string          `json:"args,omitempty"`
	Env                   map[string]string `json:"env,omitempty"`
	ExtensionToLanguage   map[string]string `json:"extensionToLanguage"`
	Transport             string            `json:"transport,omitempty"`
	InitializationOptions json.RawMessage   `json:"initializationOptions,omitempty"`
}

// copilotLSP plans the LSP entries of the site's plugins. A project
// plugin's server starts through quiver lsp exec, which checks trust
// again, as its MCP servers do.
func copilotLSP(site Site, d Docs, quiver string) Plan {
	var plan Plan
	var members []wiring.Member
	for _, p := range scopePlugins(site, d) {
		for _, s := range p.Parts().LSP {
			entry, missed := copilotLSPEntry(site, p, s, quiver)
			if missed != "" {
				plan.Missed = append(plan.Missed, fmt.Sprintf("LSP server %s of %s: %s", s.Name, p.Name, missed))
			}
			if entry == nil {
				continue
			}
			v, err := json.Marshal(entry)
			if err != nil {
				continue
			}
			members = append(members, wiring.Member{Keys: []string{"lspServers", ServerName(p.Name, s.Name)}, Value: v})
		}
	}
	sort.Slice(members, func(i, j int) bool { return members[i].Keys[1] < members[j].Keys[1] })
	plan.add(copilotLSPFile(site), members...)
	return plan
}

func copilotLSPEntry(site Site, p plugins.Plugin, s plugins.Server, quiver string) (map[string]any, string) {
	var def lspDef
	if err := json.Unmarshal(s.Config, &def); err != nil {
		return nil, "its definition is not Claude Code's: " + err.Error()
	}
	switch {
	case def.Command == "":
		return nil, "it names no command"
	case def.Transport != "" && def.Transport != "stdio":
		return nil, fmt.Sprintf("Copilot takes no %q transport", def.Transport)
	case len(def.ExtensionToLanguage) == 0:
		return nil, "it maps no file extensions, which Copilot requires"
	}
	vals := pluginVars(site, p.Scope, p.Name)
	var dropped []string
	expand := func(v string) string {
		return plugins.MapVars(v, func(r plugins.Var) string {
			if x, ok := vals[r.Name]; ok {
				return x
			}
			if strings.Contains(r.Name, ".") {
				dropped = append(dropped, "${"+r.Name+"} (set it with quiver plugin config)")
				return ""
			}
			if r.HasDefault {
				return "${" + r.Name + ":-" + r.Default + "}"
			}
			return "${" + r.Name + "}"
		})
	}
	m := map[string]any{"fileExtensions": def.ExtensionToLanguage}
	if site.Scope.Location == plugins.Local || needsVars(plugins.ServerDef{Command: def.Command, Args: def.Args}) {
		argv := lspExec(quiver, site, p.Name, s.Name)
		m["command"], m["args"] = argv[0], argv[1:]
	} else {
		m["command"] = expand(def.Command)
		var args []string
		for _, a := range def.Args {
			args = append(args, expand(a))
		}
		if len(args) > 0 {
			m["args"] = args
		}
		if len(def.Env) > 0 {
			env := map[string]string{}
			for k, v := range def.Env {
				env[k] = expand(v)
			}
			m["env"] = env
		}
	}
	if len(def.InitializationOptions) > 0 {
		m["initializationOptions"] = def.InitializationOptions
	}
	if len(dropped) > 0 {
		return m, "dropped " + strings.Join(dropped, ", ")
	}
	return m, ""
}

// lspExec is the command line that starts a plugin's LSP server through
// quiver, as mcpExec is for MCP servers.
func lspExec(quiver string, site Site, p plugins.Name, server string) []string {
	argv := mcpExec(quiver, site, p, server)
	argv[1] = "lsp"
	return argv
}
