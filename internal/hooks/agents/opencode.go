package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/lazy"
	"github.com/quiver-cli/quiver/internal/plugins/format"
)

// OpenCode (opencode-ai) has no hook configuration: it loads JavaScript
// plugins from .opencode/plugins/ (user: ~/.config/opencode/plugins/),
// whose functions it awaits at its events. So quiver's "configuration"
// for OpenCode is a small plugin it generates whole (opencodePlugin): at
// each event it runs `quiver hook run --format opencode EVENT` with the
// event as JSON on stdin and applies the answer (a thrown Error blocks a
// tool call or a message; arguments are rewritten in place). The JSON
// both ways is quiver's own, decoded and encoded here. Measured with
// opencode-ai 1.18.33 (docs/agents.md).
var OpenCode = &Agent{
	Name:         "opencode",
	Title:        "OpenCode",
	Programs:     []string{"opencode"},
	Home:         ".config/opencode",
	ConfigLocal:  ".opencode/plugins/quiver.js",
	ConfigGlobal: ".config/opencode/plugins/quiver.js",
	events: []Event{
		{"session.created", sessionStart},
		{"tool.execute.before", beforeToolCall},
		{"tool.execute.after", afterToolCall},
		{"chat.message", userMessageSend},
		{"session.idle", agentStop},
	},
	RootInput: []string{"directory", "cwd"},
	// The plugin's own limit per call, in its unit (opencodePlugin).
	TimeoutUnit: time.Millisecond,
	// OpenCode reads .opencode/skills, .claude/skills and .agents/skills
	// (user: ~/.config/opencode/skills, ~/.claude/skills, ~/.agents/skills)
	// and lists a skill of one name once.
	SkillsDir:   ".agents/skills",
	SkillsToo:   []string{".claude/skills"},
	CommandsDir: ".opencode/commands",
	AgentsDir:   ".opencode/agents",
	AgentSuffix: ".md",
	User: &Dirs{Skills: ".agents/skills", SkillsToo: []string{".claude/skills"},
		Commands: ".config/opencode/commands", Agents: ".config/opencode/agents"},
	command:   opencodeCommand,
	syntax:    opencodeSyntax,
	subagent:  opencodeSubagent,
	decode:    opencodeDecode,
	encode:    opencodeEncode,
	hookFile:  opencodePlugin,
	parts:     opencodeParts,
	partFiles: opencodePartFiles,
	silenced:  opencodeSilenced,
}

// opencodeLSP: the lsp key of the same opencode.json, {command: [argv],
// extensions, env, initialization}; OpenCode starts a server it has no
// built-in of only for the extensions listed.
var opencodeLSP = &lspFormat{
	Local: opencodeMCPLocal, Global: opencodeMCPGlobal,
	Keys: []string{"lsp"}, Syntax: wiring.JSONC,
	Ref: opencodeRef,
	Entry: func(argv []string, env map[string]string, exts []string, def lspDef) map[string]any {
		m := map[string]any{"command": argv, "extensions": exts}
		if len(env) > 0 {
			m["env"] = env
		}
		// OpenCode takes initialization options as an object only.
		if opts := bytes.TrimSpace(def.InitializationOptions); len(opts) > 0 && opts[0] == '{' {
			m["initialization"] = def.InitializationOptions
		}
		return m
	},
}

// opencodeRef is OpenCode's reference to an environment variable.
func opencodeRef(name string) string { return "{env:" + name + "}" }

const (
	opencodeMCPLocal  = "opencode.json"
	opencodeMCPGlobal = ".config/opencode/opencode.json"
)

// opencodeMCP: the mcp key of opencode.json (JSONC), {env:VAR} references
// and no defaults.
var opencodeMCP = &mcpFormat{
	Local: opencodeMCPLocal, Global: opencodeMCPGlobal,
	Keys: []string{"mcp"}, Syntax: wiring.JSONC,
	Ref: opencodeRef,
	Stdio: func(argv []string, env map[string]string) map[string]any {
		m := map[string]any{"type": "local", "command": argv, "enabled": true}
		if len(env) > 0 {
			m["environment"] = env
		}
		return m
	},
	Remote: func(_, url string, headers map[string]string) (map[string]any, string) {
		m := map[string]any{"type": "remote", "url": url, "enabled": true}
		if len(headers) > 0 {
			m["headers"] = headers
		}
		return m, ""
	},
}

// opencodeParts: its MCP servers, then its LSP servers in the same file.
func opencodeParts(w *Wirer, site Site, d Docs, quiver string) (Plan, error) {
	plan := mcpParts(w, site, d, opencodeMCP, quiver)
	lsp := opencodeLSP.parts(site, d, quiver)
	for _, f := range lsp.Files {
		plan.add(f.Path, f.Members...)
	}
	plan.Missed = append(plan.Missed, lsp.Missed...)
	return plan, nil
}

func opencodePartFiles(w *Wirer, site Site) []FileMembers {
	return []FileMembers{{Path: opencodeMCP.file(site), Syntax: wiring.JSONC}}
}

// opencodeDecode reads what quiver's plugin sends: the session, the
// project folder, and the event's fields under quiver's own names.
func opencodeDecode(ev Event, in map[string]json.RawMessage) hooks.Payload {
	rename(in, "session_id", "conv_id")
	rename(in, "directory", "cwd")
	rename(in, "prompt", "message")
	if ev.Quiver == agentStop {
		by := "main"
		if str(in, "parent_id") != "" {
			by = "subagent"
		}
		setString(in, "invoked_by", by)
	}
	return hooks.Payload(in)
}

// opencodeOutput is what quiver's plugin applies.
type opencodeOutput struct {
	// Decision "block" makes the plugin throw Reason: the tool call or
	// the message does not happen.
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// Args replace a tool call's arguments; Output a tool's result.
	Args   json.RawMessage `json:"args,omitempty"`
	Output *string         `json:"output,omitempty"`
	// Context reaches the model: after the tool's result, or beside the
	// user's message (session_start's, with the first message).
	Context string `json:"context,omitempty"`
}

// opencodeEncode answers the plugin. OpenCode's own permission rules
// judge a rewritten call when it runs, so a rewrite is no permission
// whatever --allow-rewrites says; it cannot ask from a plugin, nor show a
// notice, nor keep going after a stop (docs/agents.md).
func opencodeEncode(c Call, r *hooks.Result, _ Options) Answer {
	var out opencodeOutput
	context := texts(r.Context)
	switch c.Event {
	case beforeToolCall:
		switch {
		case r.Blocked:
			out.Decision, out.Reason = "block", r.Reason
		case r.Asks():
			out.Decision = "block"
			out.Reason = "this needs the user's approval, which OpenCode cannot ask for from a plugin: " + r.Reason
		case r.Input != nil:
			out.Args = r.Input
		}
	case afterToolCall:
		out.Context = context
		if r.Output != nil {
			var s string
			if json.Unmarshal(r.Output, &s) != nil {
				s = string(r.Output)
			}
			out.Output = &s
		}
	case sessionStart:
		out.Context = context
	case userMessageSend:
		out.Context = context
		if r.Blocked {
			out.Decision, out.Reason = "block", r.Reason
		}
	}
	return Answer{Stdout: marshal(out)}
}

// opencodeCommand keeps what OpenCode's commands take of Claude's: the
// description; $ARGUMENTS and $1.. are OpenCode's too. A Claude model
// name ("sonnet") is no OpenCode model, and the rest is Claude's alone.
func opencodeCommand(fm map[string]any, body, name string) ([]byte, []string, error) {
	type command struct {
		Description string `yaml:"description,omitempty"`
	}
	var dropped []string
	for k := range fm {
		if k != "description" {
			dropped = append(dropped, k)
		}
	}
	out := command{Description: format.StringField(fm, "description")}
	if out.Description == "" {
		slices.Sort(dropped)
		if strings.HasPrefix(strings.TrimLeft(body, "\ufeff \t\r\n"), "---") {
			// A body that starts with a block of its own would become
			// OpenCode's frontmatter: an empty one goes first.
			body = "---\n---\n" + body
		}
		return []byte(body), dropped, nil
	}
	return withFrontmatter(out, body, dropped)
}

// opencodeTools maps Claude Code's tools to OpenCode's permissions.
var opencodeTools = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"Read": "read", "Write": "edit", "Edit": "edit", "MultiEdit": "edit", "NotebookEdit": "edit",
		"Glob": "glob", "Grep": "grep", "LS": "list", "Bash": "bash", "Task": "task",
		"WebFetch": "webfetch", "WebSearch": "websearch", "TodoWrite": "todowrite", "Skill": "skill",
	}
}}

// opencodeColors are the theme colors OpenCode takes beside #RRGGBB.
var (
	opencodeColors = []string{"primary", "secondary", "accent", "success", "warning", "error", "info"}
	hexColor       = lazy.Regexp{Expr: `^#[0-9a-fA-F]{6}$`}
)

// opencodeSubagent writes a subagent in OpenCode's schema, which refuses
// to start on a key or value it does not take: description (required),
// mode: subagent, a color OpenCode knows, and Claude's tool lists as
// permissions. Claude's "tools" allows only what it lists, so every
// OpenCode tool it does not list is denied (the listed ones keep
// OpenCode's own rules, such as asking before reading .env files);
// disallowedTools are denied too.
func opencodeSubagent(fm map[string]any, body, name string) ([]byte, []string, error) {
	desc := format.StringField(fm, "description")
	if desc == "" {
		return nil, nil, fmt.Errorf("it has no description, which OpenCode requires")
	}
	type agent struct {
		Description string            `yaml:"description"`
		Mode        string            `yaml:"mode"`
		Color       string            `yaml:"color,omitempty"`
		Permission  map[string]string `yaml:"permission,omitempty"`
	}
	out := agent{Description: desc, Mode: "subagent"}
	var dropped []string
	deny := map[string]bool{}
	for k, v := range fm {
		switch k {
		case "name", "description":
		case "color":
			if c, _ := v.(string); hexColor.Get().MatchString(c) || slices.Contains(opencodeColors, c) {
				out.Color = c
			} else {
				dropped = append(dropped, k)
			}
		case "tools":
			allowed := map[string]bool{}
			for _, t := range toolList(v) {
				if o, ok := opencodeTools.Get()[t]; ok {
					allowed[o] = true
				} else {
					dropped = append(dropped, "tool "+t)
				}
			}
			for _, o := range opencodeTools.Get() {
				if !allowed[o] {
					deny[o] = true
				}
			}
		case "disallowedTools":
			for _, t := range toolList(v) {
				if o, ok := opencodeTools.Get()[t]; ok {
					deny[o] = true
				} else {
					dropped = append(dropped, "disallowed tool "+t)
				}
			}
		default:
			dropped = append(dropped, k)
		}
	}
	if len(deny) > 0 {
		out.Permission = map[string]string{}
		for o := range deny {
			out.Permission[o] = "deny"
		}
	}
	return withFrontmatter(out, body, dropped)
}

// opencodePlugin is the plugin quiver writes for OpenCode: the quiver to
// run is a JSON string in the program and each call an argument list,
// never a shell line, so no path can inject code.
func opencodePlugin(a *Agent, command string, allowRewrites bool) []byte {
	args := []string{"hook", "run", "--format", "opencode"}
	if allowRewrites {
		args = append(args, "--allow-rewrites")
	}
	r := strings.NewReplacer(
		"{{QUIVER}}", string(marshal(command)),
		"{{ARGS}}", string(marshal(args)),
		"{{TIMEOUT}}", fmt.Sprint(a.timeoutIn(Timeout)),
		"{{CANNOT_RUN}}", string(marshal(a.cannotRun())),
		"{{HEADER}}", hookFileHeader+`: OpenCode runs "quiver `+a.Marker()+` EVENT" through this plugin.`,
	)
	return []byte(r.Replace(opencodePluginSource))
}

const opencodePluginSource = `{{HEADER}}
// quiver agent remove opencode deletes it while it is as quiver wrote it;
// edit it, and it is yours.
import { spawn } from "node:child_process";

const quiver = {{QUIVER}};
const args = {{ARGS}};
const timeoutMs = {{TIMEOUT}};
const cannotRun = {{CANNOT_RUN}};

// run sends one event to quiver and resolves with its answer. quiver
// failing is no answer, as with every agent: a hook's error never blocks.
// quiver that cannot be started (not on PATH, killed) is { unstarted: true }:
// the events that can block then block, since the guards could not run.
function run(event, input) {
  return new Promise((resolve) => {
    let done = false;
    let timer;
    const finish = (answer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(answer && typeof answer === "object" ? answer : {});
    };
    let child;
    try {
      child = spawn(quiver, [...args, event], { cwd: input.directory, stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      finish({ unstarted: true });
      return;
    }
    timer = setTimeout(() => {
      child.kill();
      finish({});
    }, timeoutMs);
    const out = [];
    child.on("error", () => finish({ unstarted: true }));
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.on("close", (code, signal) => {
      let answer = {};
      try {
        if (code === 0) answer = JSON.parse(Buffer.concat(out).toString("utf8"));
      } catch {}
      finish(code === null && signal ? { unstarted: true } : answer);
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(input));
  });
}

export const QuiverHooks = async ({ directory, worktree }) => {
  const starts = new Map(); // session: its session_start answer (a promise)
  const children = new Set(); // subagents' sessions
  const busy = new Set(); // sessions with a turn since their last stop
  const base = (event, sessionID) => ({ hook_event_name: event, session_id: sessionID, directory, worktree });
  return {
    event: async ({ event }) => {
      const props = event.properties || {};
      if (event.type === "session.created") {
        const info = props.info || {};
        const id = info.id || props.sessionID;
        if (info.parentID) {
          children.add(id);
          return;
        }
        starts.set(id, run("session_start", { ...base(event.type, id), source: "startup" }));
      } else if (event.type === "session.idle") {
        const id = props.sessionID;
        if (!busy.delete(id)) return;
        const input = base(event.type, id);
        if (children.has(id)) input.parent_id = id;
        await run("agent_stop", input);
      }
    },
    "chat.message": async (input, output) => {
      const id = input.sessionID;
      const parts = output.parts || [];
      const prompt = parts
        .filter((p) => p.type === "text" && !p.synthetic)
        .map((p) => p.text)
        .join("\n");
      const answer = await run("user_message_send", { ...base("chat.message", id), prompt, agent: input.agent });
      if (answer.unstarted) throw new Error(cannotRun);
      if (answer.decision === "block") throw new Error(answer.reason || "a quiver hook blocked this message");
      busy.add(id);
      const start = starts.has(id) ? await starts.get(id) : {};
      starts.delete(id);
      const context = [start.context, answer.context].filter(Boolean).join("\n\n");
      const last = parts[parts.length - 1];
      if (context && last) {
        parts.push({ id: last.id + "q", sessionID: last.sessionID, messageID: last.messageID, type: "text", text: context, synthetic: true });
      }
    },
    "tool.execute.before": async (input, output) => {
      const answer = await run("before_tool_call", {
        ...base("tool.execute.before", input.sessionID),
        tool_name: input.tool,
        tool_input: output.args,
        call_id: input.callID,
      });
      if (answer.unstarted) throw new Error(cannotRun);
      if (answer.decision === "block") throw new Error(answer.reason || "a quiver hook blocked this tool call");
      if (answer.args && typeof answer.args === "object" && output.args && typeof output.args === "object") {
        // OpenCode runs the object it passed in: change it in place.
        for (const key of Object.keys(output.args)) delete output.args[key];
        Object.assign(output.args, answer.args);
      }
    },
    "tool.execute.after": async (input, output) => {
      const answer = await run("after_tool_call", {
        ...base("tool.execute.after", input.sessionID),
        tool_name: input.tool,
        tool_input: input.args,
        call_id: input.callID,
        tool_output: output.output,
        title: output.title,
      });
      if (typeof answer.output === "string") output.output = answer.output;
      if (answer.context) output.output = (output.output ?? "") + "\n\n" + answer.context;
    },
  };
};
`
