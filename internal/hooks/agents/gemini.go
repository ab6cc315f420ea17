package agents

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/tailscale/hujson"

	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// Gemini is Google's Gemini CLI: Claude's configuration shape in
// .gemini/settings.json (which may hold comments), timeouts in
// milliseconds, its own event names and a flat "decision" output.
var Gemini = &Agent{
	Name:         "gemini",
	Title:        "Gemini CLI",
	Programs:     []string{"gemini"},
	Home:         ".gemini",
	ConfigLocal:  ".gemini/settings.json",
	ConfigGlobal: ".gemini/settings.json",
	Syntax:       wiring.JSONComments,
	events: []Event{
		{"SessionStart", sessionStart},
		{"BeforeTool", beforeToolCall},
		{"AfterTool", afterToolCall},
		{"BeforeAgent", userMessageSend},
		{"AfterAgent", agentStop},
		// Wired only while a hook handles them (0.61 has these too;
		// PreCompress is advisory: Gemini cannot be stopped compressing).
		{"SessionEnd", format.SessionEnd},
		{"PreCompress", format.PreCompact},
		{"Notification", format.Notification},
	},
	RootEnv:       []string{"GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"},
	TimeoutUnit:   time.Millisecond,
	SkillsDir:     ".gemini/skills",
	NoLSP:         "Gemini CLI starts no LSP servers",
	SkillsToo:     []string{".agents/skills"}, // read too, and it wins (0.61)
	CommandsDir:   ".gemini/commands",
	CommandSuffix: ".toml",
	AgentsDir:     ".gemini/agents",
	AgentSuffix:   ".md",
	command:       geminiCommand,
	syntax:        geminiSyntax,
	subagent:      geminiSubagent,
	shell:         true, // bash -c (0.61, measured)
	blocking:      []string{beforeToolCall, userMessageSend},
	keys:          hooksArray,
	entry:         geminiGroup,
	decode:        geminiDecode,
	encode:        geminiEncode,
	mcp:           &geminiMCP,
	gate:          geminiGate,
	caveat:        geminiCaveat,
	silenced:      geminiSilenced,
}

// geminiMCP: Gemini keeps servers beside its hooks, in settings.json,
// and expands $VAR and ${VAR} there (not ${VAR:-default}).
var geminiMCP = mcpFormat{
	Local: ".gemini/settings.json", Global: ".gemini/settings.json",
	Keys: []string{"mcpServers"}, Syntax: wiring.JSONComments,
	// 0.61 takes from a server's environment every variable whose name
	// looks secret unless its entry's env names it; it names tools
	// mcp_SERVER_TOOL, cut past 63 characters: a server name of at most
	// 24 leaves 34 for the tool's (docs/agents.md).
	Redacts: true, NameBudget: 24, ToolLimit: 63, Overhead: len("mcp__"), Tools: "mcp_SERVER_TOOL",
	Ref:   func(name string) string { return "${" + name + "}" },
	Stdio: standardStdio,
	Remote: func(kind, url string, headers map[string]string) (map[string]any, string) {
		return withType(kind, standardRemote(url, headers)), ""
	},
}

// geminiCaveat: headless, gemini -p (0.61, measured, with --yolo or
// without) waits forever on the confirmation it forces for a BeforeTool
// "ask", which quiver answers for a hook's ask and, without
// --allow-rewrites, for a rewrite: no one can answer it there.
func geminiCaveat(site Site, o InstallOptions) string {
	what := "a hook asks for approval, or rewrites a tool call (quiver then asks: install with --allow-rewrites to let rewrites run)"
	if o.AllowRewrites {
		what = "a hook asks for approval"
	}
	return fmt.Sprintf("Gemini CLI run headless (gemini -p, as in scripts and CI) waits forever when %s: no one can answer its confirmation there. Use hooks that block rather than ask where Gemini runs unattended", what)
}

// geminiHookName is the name of quiver's handlers in Gemini CLI, which it
// shows in /hooks and matches in hooksConfig.disabled.
const geminiHookName = "quiver"

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
	g := group{Hooks: []handler{{Name: geminiHookName, Type: "command", Command: command, Timeout: a.timeoutIn(timeout)}}}
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
		// Gemini CLI (0.61) reads additionalContext on AfterTool,
		// BeforeAgent and SessionStart, never on BeforeTool; what reaches
		// its model from BeforeTool is a deny's reason, as the tool's
		// error. So a block carries the context in its reason. Its
		// confirmation shows systemMessage, not reason: an ask's reason
		// goes there too, for the person asked.
		switch {
		case r.Blocked:
			out.Decision, out.Reason = "deny", joinNonEmpty(r.Reason, context)
			spec.AdditionalContext = ""
		case r.Asks():
			out.Decision, out.Reason = "ask", r.Reason
			out.SystemMessage = joinNonEmpty(r.Reason, out.SystemMessage)
		case r.Input != nil && !o.AllowRewrites:
			out.Decision, out.Reason = "ask", rewriteReason
			out.SystemMessage = joinNonEmpty(rewriteReason, out.SystemMessage)
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

// geminiGate says what Gemini CLI will hide of what quiver wrote for a
// project until the user opens its gates (quiver never does, SPEC §16):
// its trusted folders (a project's .gemini/settings.json, with quiver's
// hooks and servers, is read only in a trusted folder) and its
// acknowledgement of each project subagent by content.
func geminiGate(w *Wirer, site Site, entry *wiring.AgentRecord) string {
	if site.Scope.Location != plugins.Local {
		return ""
	}
	gemini := filepath.Join(w.Home, ".gemini")
	var says []string
	if geminiFolderTrust(gemini) && !geminiTrusted(gemini, site.Base) {
		says = append(says, fmt.Sprintf("Gemini CLI reads %s (quiver's hooks and servers) only in folders you trust: run gemini in %s and trust it", filepath.Join(".gemini", "settings.json"), site.Base))
	}
	if entry != nil {
		var acks map[string]map[string]string
		if data, err := safefs.ReadFile(filepath.Join(gemini, "acknowledgments", "agents.json"), safefs.MaxMeta); err == nil {
			json.Unmarshal(data, &acks)
		}
		var waiting []string
		for _, l := range entry.Links {
			if filepath.Dir(filepath.FromSlash(l.Path)) != filepath.FromSlash(site.Agent.AgentsDir) {
				continue
			}
			data, err := safefs.ReadFile(filepath.Join(site.Base, filepath.FromSlash(l.Path)), maxDoc)
			if err != nil {
				continue
			}
			fm, _, _ := format.ParseFrontmatter(data)
			name := format.StringField(fm, "name")
			if acks[site.Base][name] != fmt.Sprintf("%x", sha256.Sum256(data)) {
				waiting = append(waiting, name)
			}
		}
		if len(waiting) > 0 {
			says = append(says, fmt.Sprintf("Gemini CLI loads a project's subagents only once you accept them (%s): run gemini in the project and accept them", strings.Join(waiting, ", ")))
		}
	}
	return strings.Join(says, "; ")
}

// geminiFolderTrust reports whether Gemini checks folder trust: on by
// default (0.61), off with security.folderTrust.enabled false in the
// user's settings.
func geminiFolderTrust(gemini string) bool {
	data, err := safefs.ReadFile(filepath.Join(gemini, "settings.json"), safefs.MaxMeta)
	if err != nil {
		return true
	}
	d, err := wiring.ParseDoc(data, wiring.JSONComments)
	if err != nil {
		return true
	}
	return strings.TrimSpace(string(d.Get("security", "folderTrust", "enabled"))) != "false"
}

// geminiTrusted applies Gemini's rule to its trustedFolders.json: the
// longest rule whose folder holds dir decides (TRUST_PARENT names a file
// or folder whose parent is trusted).
func geminiTrusted(gemini, dir string) bool {
	data, err := safefs.ReadFile(filepath.Join(gemini, "trustedFolders.json"), safefs.MaxMeta)
	if err != nil {
		return false
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		return false
	}
	var rules map[string]string
	if json.Unmarshal(std, &rules) != nil {
		return false
	}
	best, trusted := -1, false
	for rule, level := range rules {
		folder := rule
		if level == "TRUST_PARENT" {
			folder = filepath.Dir(rule)
		}
		rel, err := filepath.Rel(folder, dir)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			continue
		}
		if len(rule) > best {
			best, trusted = len(rule), level == "TRUST_FOLDER" || level == "TRUST_PARENT"
		}
	}
	return trusted
}
