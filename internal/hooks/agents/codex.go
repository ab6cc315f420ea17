package agents

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/lazy"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// Codex is OpenAI's Codex CLI: Claude's configuration shape in
// .codex/hooks.json, Claude's input fields, and a narrower output (no
// "ask", a rewrite only together with "allow", JSON required on Stop).
var Codex = &Agent{
	Name:         "codex",
	Title:        "Codex",
	Programs:     []string{"codex"},
	Home:         ".codex",
	ConfigLocal:  ".codex/hooks.json",
	ConfigGlobal: ".codex/hooks.json",
	events: []Event{
		{"SessionStart", sessionStart},
		{"PreToolUse", beforeToolCall},
		{"PostToolUse", afterToolCall},
		{"UserPromptSubmit", userMessageSend},
		{"Stop", agentStop},
		{"SubagentStop", agentStop},
	},
	RootInput:   []string{"cwd"},
	TimeoutUnit: time.Second,
	SkillsDir:   ".agents/skills",
	AgentsDir:   ".codex/agents",
	NoCommands:  "Codex has no command folder (it removed its custom prompts in codex-cli 0.117)",
	NoLSP:       "Codex starts no LSP servers",
	AgentSuffix: ".toml",
	subagent:    codexSubagent,
	shell:       true, // bash -c (measured)
	blocking:    []string{beforeToolCall, userMessageSend},
	keys:        hooksArray,
	entry:       matcherGroup,
	decode:      claudeDecode,
	encode:      codexEncode,
	mcp:         &codexMCP,
	gate:        codexGate,
	caveat:      codexCaveat,
	silenced:    codexSilenced,
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
		case r.Asks():
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
		out.Specific = marshal(spec)
	}
	// Stop wants JSON on exit 0: "{}" at least, which marshal gives.
	return Answer{Stdout: marshal(out)}
}

// codexMCP: Codex keeps servers in config.toml as [mcp_servers.NAME]
// tables (a project's is read only in a project Codex trusts, codexGate),
// expands no variables, and starts a stdio server with a cleared
// environment: a variable reaches it only when env_vars names it.
var codexMCP = mcpFormat{
	Local: ".codex/config.toml", Global: ".codex/config.toml",
	Keys: []string{"mcp_servers"}, TOML: true, Clears: true,
	Order:  []string{"command", "args", "url"},
	Stdio:  codexStdio,
	Remote: codexRemote,
}

// codexCaveat: Codex (0.169, measured) runs a hook of .codex/hooks.json or
// ~/.codex/hooks.json only once the person has trusted it, by its hash,
// in its own review ("Hooks need review" at the start of an interactive
// codex, or /hooks), which it records in the user's config.toml
// ([hooks.state."FILE:EVENT:I:J"] trusted_hash); codex exec skips a hook
// not trusted without a word, and a changed entry is new again. No
// setting trusts them all (only the flag
// --dangerously-bypass-hook-trust, for one run), and quiver writes no
// trust of Codex's.
func codexCaveat(site Site, o InstallOptions) string {
	where := "in " + site.Base
	if site.Scope.Location != plugins.Local {
		where = "(in any folder)"
	}
	return fmt.Sprintf(`Codex runs quiver's hooks only once you trust them, and asks again whenever quiver's entries change (--command, --allow-rewrites, a hook's timeout): run codex %s and, at "Hooks need review", choose "Trust all and continue" (or "Review hooks" to trust them one by one; /hooks shows them later). Until then codex exec skips them without a word`, where)
}

// codexStdio writes a stdio server: an environment value that is exactly
// ${KEY} becomes KEY in env_vars (passed through from Codex's own
// environment); the others are literal (entry sends every other server
// through quiver mcp exec).
func codexStdio(argv []string, env map[string]string) map[string]any {
	m := map[string]any{"command": argv[0]}
	if len(argv) > 1 {
		m["args"] = argv[1:]
	}
	plain := map[string]string{}
	var pass []string
	for k, v := range env {
		if v == "${"+k+"}" {
			pass = append(pass, k)
		} else {
			plain[k] = v
		}
	}
	if len(plain) > 0 {
		m["env"] = plain
	}
	if len(pass) > 0 {
		slices.Sort(pass)
		m["env_vars"] = pass
	}
	return m
}

// oneVar matches a value that is exactly one variable; bearerVar an
// Authorization header of a bearer token in one.
var (
	oneVar    = lazy.Regexp{Expr: `^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$`}
	bearerVar = lazy.Regexp{Expr: `^Bearer \$\{([A-Za-z_][A-Za-z0-9_]*)\}$`}
)

// codexRemote writes a streamable HTTP server (Codex has no SSE client):
// "Authorization: Bearer ${TOKEN}" becomes bearer_token_env_var, a
// header that is exactly ${VAR} env_http_headers, a literal one
// http_headers. A server whose URL, or a header, needs a variable inside
// other text is not written: Codex could not send what it needs.
func codexRemote(kind, url string, headers map[string]string) (map[string]any, string) {
	if kind != "http" {
		return nil, fmt.Sprintf("Codex takes streamable HTTP servers, not %s", kind)
	}
	if plugins.HasVars(url) {
		return nil, "its URL needs a variable, which Codex cannot expand"
	}
	m := map[string]any{"url": url}
	plain, fromEnv := map[string]string{}, map[string]string{}
	for h, v := range headers {
		if sub := bearerVar.Get().FindStringSubmatch(v); sub != nil && strings.EqualFold(h, "Authorization") {
			m["bearer_token_env_var"] = sub[1]
			continue
		}
		if sub := oneVar.Get().FindStringSubmatch(v); sub != nil {
			fromEnv[h] = sub[1]
			continue
		}
		if plugins.HasVars(v) {
			return nil, fmt.Sprintf("its header %s needs a variable inside other text, which Codex cannot expand", h)
		}
		plain[h] = v
	}
	if len(plain) > 0 {
		m["http_headers"] = plain
	}
	if len(fromEnv) > 0 {
		m["env_http_headers"] = fromEnv
	}
	return m, ""
}

// codexTrust is what quiver reads of Codex's user configuration: the
// projects the user trusts.
type codexTrust struct {
	Projects map[string]struct {
		TrustLevel string `toml:"trust_level"`
	} `toml:"projects"`
}

// codexHome is Codex's own folder: $CODEX_HOME, else ~/.codex.
func codexHome(w *Wirer) string {
	if w.Getenv != nil {
		if h := w.Getenv("CODEX_HOME"); h != "" {
			return h
		}
	}
	return filepath.Join(w.Home, ".codex")
}

// codexGate says when Codex will not read what quiver wrote: a project's
// servers, until the user trusts the project in Codex (quiver never
// writes that); anything at user scope, when CODEX_HOME moves Codex's
// configuration away from the home folder.
func codexGate(w *Wirer, site Site, entry *wiring.AgentRecord) string {
	if entry == nil {
		return ""
	}
	home := codexHome(w)
	if site.Scope.Location == plugins.Global {
		if filepath.Clean(home) != filepath.Join(w.Home, ".codex") {
			return fmt.Sprintf("CODEX_HOME is %s: Codex reads its user configuration there, not in %s where quiver wrote it", home, filepath.Join(w.Home, ".codex"))
		}
		return ""
	}
	f := entry.File(codexMCP.file(site))
	if f == nil || len(f.Members) == 0 || codexTrusts(filepath.Join(home, "config.toml"), site.Base) {
		return ""
	}
	return "Codex reads .codex/config.toml only in projects it trusts, so it does not start this project's MCP servers yet: run codex in the project once and trust it"
}

// codexTrusts reports whether Codex's configuration at path trusts the
// project: the project folder itself or, for a linked git worktree, its
// main repository (Codex accepts either; measured with codex 0.169).
func codexTrusts(path, project string) bool {
	data, ok, err := readOwn(path)
	if err != nil || !ok {
		return false
	}
	var c codexTrust
	if toml.Unmarshal(data, &c) != nil {
		return false
	}
	candidates := []string{project}
	if real, err := filepath.EvalSymlinks(project); err == nil {
		candidates = append(candidates, real)
	}
	if main := mainWorktree(project); main != "" {
		candidates = append(candidates, main)
	}
	for _, p := range candidates {
		if c.Projects[p].TrustLevel == "trusted" {
			return true
		}
	}
	return false
}

// mainWorktree is the main repository's folder when project is a linked
// git worktree (its .git is a file naming .../.git/worktrees/NAME), else
// "".
func mainWorktree(project string) string {
	data, err := safefs.ReadFile(filepath.Join(project, ".git"), 4096)
	if err != nil {
		return ""
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !ok {
		return ""
	}
	main, _, ok := strings.Cut(filepath.ToSlash(dir), "/.git/worktrees/")
	if !ok {
		return ""
	}
	return filepath.FromSlash(main)
}

// codexSubagent writes a subagent as Codex's agent role (TOML): name,
// description and the body as developer_instructions. Codex has no tool
// list, so a subagent whose tools change nothing keeps that as
// sandbox_mode = "read-only"; other tools lists, models and colors are
// dropped and named.
func codexSubagent(fm map[string]any, body, name string) ([]byte, []string, error) {
	desc := format.StringField(fm, "description")
	if desc == "" {
		return nil, nil, fmt.Errorf("it has no description, which Codex requires")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "name = %s\ndescription = %s\n", tomlString(name), tomlString(desc))
	var dropped []string
	for k, v := range fm {
		switch {
		case k == "name" || k == "description":
		case k == "tools" && readOnly(v):
			b.WriteString("sandbox_mode = \"read-only\"\n")
		default:
			dropped = append(dropped, k)
		}
	}
	slices.Sort(dropped)
	fmt.Fprintf(&b, "developer_instructions = %s\n", tomlString(strings.TrimLeft(body, "\n")))
	return []byte(b.String()), dropped, nil
}
