package agents

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/hooks/claude"
	"github.com/quiver-cli/quiver/internal/lazy"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// Claude is Claude Code: hooks in .claude/settings.json, Claude's hook
// input on stdin, JSON output with hookSpecificOutput (SPEC §11, §13).
var Claude = &Agent{
	Name:         "claude",
	Title:        "Claude Code",
	Programs:     []string{"claude"},
	Home:         ".claude",
	ConfigLocal:  claudeSettings,
	ConfigGlobal: claudeSettings,
	// Every event of Claude Code's: §8's six always wired, the others
	// while a hook handles them (wiringConfig).
	eventsFrom:   &claudeEventList,
	RootEnv:      []string{"CLAUDE_PROJECT_DIR"},
	TimeoutUnit:  time.Second,
	SkillsDir:    ".claude/skills",
	CommandsDir:  ".claude/commands",
	OutputStyles: true, // through its plugin loader
	shell:        true, // /bin/sh -c (2.1.328, measured)
	keys:         hooksArray,
	entry:        matcherGroup,
	asyncEntry:   claudeGroup,
	native:       true,
	decode:       claudeDecode,
	encode:       claudeEncode,
	parts:        claudeParts,
	partFiles:    claudePartFiles,
	cleanup:      claudeCleanup,
	caveat:       claudeCaveat,
	fileProblem:  claudeSettingsProblem,
	silenced:     claudeSilenced,
}

// hooksArray is where Claude-shaped configurations (Claude, Codex,
// Gemini) keep an event's entries: hooks.<Event>.
func hooksArray(ev Event) []string { return []string{"hooks", ev.Native} }

// matcherGroup builds Claude's shape of entry: one matcher group with one
// command handler. Events with a matcher get "*" (every tool, every
// source); the others take none.
func matcherGroup(a *Agent, ev Event, command string, timeout time.Duration) json.RawMessage {
	return claudeGroup(a, ev, command, timeout, "")
}

// claudeGroup is matcherGroup, its handler marked async or asyncRewake
// when field names one.
func claudeGroup(a *Agent, ev Event, command string, timeout time.Duration, field string) json.RawMessage {
	type handler struct {
		Type        string `json:"type"`
		Command     string `json:"command"`
		Timeout     int64  `json:"timeout"`
		Async       bool   `json:"async,omitempty"`
		AsyncRewake bool   `json:"asyncRewake,omitempty"`
	}
	type group struct {
		Matcher string    `json:"matcher,omitempty"`
		Hooks   []handler `json:"hooks"`
	}
	h := handler{Type: "command", Command: command, Timeout: a.timeoutIn(timeout), Async: field == "async", AsyncRewake: field == "asyncRewake"}
	g := group{Hooks: []handler{h}}
	if a.matches(ev) {
		g.Matcher = "*"
	}
	return marshal(g)
}

// claudeEventList is Claude's events with quiver's name for each, §8's
// six first, in the order of format.Events: derived from format's table
// at first use.
var claudeEventList = lazy.Value[[]Event]{New: claudeEvents}

func claudeEvents() []Event {
	var out []Event
	for _, name := range format.Events() {
		e, _ := format.Lookup(name)
		for _, native := range e.Claude {
			out = append(out, Event{Native: native, Quiver: name})
		}
	}
	return out
}

// matches reports events whose entries take a matcher: "*" lets every
// tool, source or reason through.
func (a *Agent) matches(ev Event) bool {
	switch ev.Quiver {
	case beforeToolCall, afterToolCall, sessionStart:
		return true
	}
	return format.MatchField(ev.Native) != "" && ev.Native != "SubagentStop"
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
	Continue       *bool           `json:"continue,omitempty"`
	StopReason     string          `json:"stopReason,omitempty"`
	SuppressOutput bool            `json:"suppressOutput,omitempty"`
	Decision       string          `json:"decision,omitempty"`
	Reason         string          `json:"reason,omitempty"`
	SystemMessage  string          `json:"systemMessage,omitempty"`
	Specific       json.RawMessage `json:"hookSpecificOutput,omitempty"`
}

func claudeEncode(c Call, r *hooks.Result, o Options) Answer {
	if len(r.Rewake) > 0 {
		// An asyncRewake entry: exit 2 wakes the model with stderr.
		return Answer{Stderr: texts(&r.Rewake), Exit: 2}
	}
	switch c.Event {
	case format.WorktreeCreate:
		// Claude reads a command hook's plain stdout as the worktree's
		// path, and any failure as the creation failing.
		if r.Blocked {
			return Answer{Stderr: r.Reason, Exit: 2}
		}
		return Answer{Stdout: []byte(agentString(r, "worktreePath"))}
	case format.PreCompact:
		// Plain stdout is the compaction's instructions.
		if inst := agentString(r, claude.CompactInstructions); inst != "" && !r.Blocked {
			return Answer{Stdout: []byte(inst)}
		}
	}
	var out claudeOutput
	out.SystemMessage = texts(r.Notices)
	context := texts(r.Context)
	spec := &claudeSpecific{HookEventName: c.Native}
	if claude.Honoured(c.Event, "additionalContext") {
		spec.AdditionalContext = context
	}
	switch c.Event {
	case beforeToolCall:
		switch {
		case r.Blocked:
			spec.PermissionDecision, spec.PermissionDecisionReason = "deny", r.Reason
		case r.Decision == hooks.Ask, r.Decision == hooks.Defer:
			spec.PermissionDecision, spec.PermissionDecisionReason = r.Decision, r.Reason
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
	case agentStop:
		// Stop and SubagentStop take no hookSpecificOutput: context
		// travels inside the reason, and only when the agent is kept
		// going.
		spec = nil
		if msg := keepGoing(r, context); msg != "" {
			out.Decision, out.Reason = "block", msg
		}
	default:
		if r.Blocked {
			// Claude's "decision": "block" stops any event that can be
			// stopped.
			out.Decision, out.Reason = "block", r.Reason
		}
	}
	var extra map[string]json.RawMessage
	for k, v := range r.AgentOutput {
		switch {
		case k == "continue" && string(v) == "false":
			out.Continue = new(false)
			json.Unmarshal(r.AgentOutput["stopReason"], &out.StopReason)
		case k == "suppressOutput" && string(v) == "true":
			out.SuppressOutput = true
		case spec != nil && claude.Honoured(c.Event, k):
			if extra == nil {
				extra = map[string]json.RawMessage{}
			}
			extra[k] = v
		}
	}
	if spec != nil && (spec.PermissionDecision != "" || spec.UpdatedInput != nil ||
		spec.UpdatedMCPToolOutput != nil || spec.AdditionalContext != "" || len(extra) > 0) {
		out.Specific = withKeys(marshal(spec), extra)
	}
	return Answer{Stdout: marshal(out)}
}

// agentString is a string of the result's agent outputs, "" when absent.
func agentString(r *hooks.Result, key string) string {
	var s string
	json.Unmarshal(r.AgentOutput[key], &s)
	return s
}

// withKeys adds extra's keys, sorted, to the JSON object obj.
func withKeys(obj []byte, extra map[string]json.RawMessage) json.RawMessage {
	if len(extra) == 0 {
		return obj
	}
	b := bytes.TrimSuffix(obj, []byte("}"))
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, marshal(k)...)
		b = append(b, ':')
		b = append(b, extra[k]...)
	}
	return append(b, '}')
}

// ---- the plugin route (SPEC §16) ----
//
// Claude Code loads a plugin's commands, subagents, MCP and LSP servers
// itself, namespaced (/plugin:command) and with ${CLAUDE_PLUGIN_ROOT}
// expanded, only from a plugin it knows; LSP servers have no other way
// in. So quiver presents each scope's plugins to Claude as a local
// marketplace of views: copies of the installed plugins without their
// hook configuration (hooks run once, through quiver), in quiver's
// machine folder. Measured with Claude Code 2.1.328: a "directory"
// marketplace named in the user's extraKnownMarketplaces, and a plugin of
// it set in enabledPlugins, load without `claude plugin install`, read
// from the marketplace's folder; enabledPlugins in a project's
// .claude/settings.local.json is active in that project only.

// claudeCaveat: with --allow-rewrites quiver answers a rewrite with
// permissionDecision "allow", which Claude Code (2.1.328, measured)
// takes as the user's approval: the rewritten call runs without asking,
// even one its own permission rules would have asked about.
func claudeCaveat(site Site, o InstallOptions) string {
	if !o.AllowRewrites {
		return ""
	}
	return "with --allow-rewrites, Claude Code runs a tool call a hook rewrote without asking you, even one its own permission rules would ask about: quiver's answer is an approval"
}

// claudeMarket is the marketplace of a scope's views: its name and folder.
func claudeMarket(s plugins.Scope) (name, dir string) {
	dir = filepath.Join(s.MachineDir(), "claude-plugins")
	if s.Location == plugins.Global {
		return "quiver", dir
	}
	sum := sha256.Sum256([]byte(s.Root))
	return "quiver-" + hex.EncodeToString(sum[:4]), dir
}

// claudeUserSettings is the user's settings file, where marketplaces are
// known; claudeEnabled the file that enables the scope's plugins: the
// user's for the user's plugins, the project's personal settings (not
// committed) for the project's, so they are active in that project only.
// claudeSettings is Claude Code's settings file, in a project and in the
// home folder alike.
const claudeSettings = ".claude/settings.json"

func claudeUserSettings(w *Wirer) string { return filepath.Join(w.Home, claudeSettings) }

func claudeEnabled(w *Wirer, site Site) string {
	if site.Scope.Location == plugins.Global {
		return claudeUserSettings(w)
	}
	return filepath.Join(site.Base, ".claude", "settings.local.json")
}

func claudePartFiles(w *Wirer, site Site) []FileMembers {
	return []FileMembers{{Path: claudeUserSettings(w), Syntax: site.Agent.Syntax}, {Path: claudeEnabled(w, site), Syntax: site.Agent.Syntax}}
}

func claudeCleanup(site Site) error {
	_, dir := claudeMarket(site.Scope)
	return os.RemoveAll(dir)
}

// claudeRouted reports plugins that reach Claude through the route: every
// plugin in Claude's format, and any carrying servers, subagents or
// output styles. Native quiver plugins of hooks, skills and recipes keep
// §13's links.
func claudeRouted(p plugins.Plugin) bool {
	if p.Contents.Manifest != nil || len(p.Contents.HookFiles) > 0 || p.Contents.ClaudeHooks {
		return true
	}
	for _, r := range p.Contents.Recipes {
		if r.Command {
			return true
		}
	}
	if !p.Parts().Empty() {
		return true
	}
	// A skill whose frontmatter carries hooks, which Claude Code runs
	// itself, reaches it only as the view writes it (viewDocs).
	for _, sk := range p.Contents.Skills {
		if data, err := safefs.ReadFile(sk.Path, maxDoc); err == nil {
			if fm, _, err := format.ParseFrontmatter(data); err != nil || fm["hooks"] != nil {
				return true
			}
		}
	}
	return false
}

// viewName is the plugin's name in Claude (its command namespace): the
// repository's name, or org-repo where two plugins of the scope share it,
// in the lower-case letters, digits and dashes Claude's names take.
func viewNames(ps []plugins.Plugin) []string {
	count := map[string]int{}
	for _, p := range ps {
		count[kebab(p.Name.Repo())]++
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = kebab(p.Name.Repo())
		if count[names[i]] > 1 {
			names[i] = kebab(p.Name.Org() + "-" + p.Name.Repo())
		}
	}
	return names
}

func kebab(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else if b.Len() > 0 && !strings.HasSuffix(b.String(), "-") {
			b.WriteByte('-')
		}
	}
	return cmp.Or(strings.Trim(b.String(), "-"), "plugin")
}

// claudeParts writes the scope's views and their marketplace, and plans
// the settings that make Claude load them.
func claudeParts(w *Wirer, site Site, d Docs, quiver string) (Plan, error) {
	var routed []plugins.Plugin
	for _, p := range scopePlugins(site, d) {
		if claudeRouted(p) {
			routed = append(routed, p)
		}
	}
	name, dir := claudeMarket(site.Scope)
	plan := Plan{Routed: map[string]bool{}}
	if len(routed) == 0 {
		return plan, os.RemoveAll(dir)
	}
	names := viewNames(routed)
	type entry struct {
		Name        string `json:"name"`
		Source      string `json:"source"`
		Description string `json:"description,omitempty"`
		Version     string `json:"version,omitempty"`
	}
	market := struct {
		Name    string            `json:"name"`
		Owner   map[string]string `json:"owner"`
		Plugins []entry           `json:"plugins"`
	}{Name: name, Owner: map[string]string{"name": "quiver"}}
	var enabled []wiring.Member
	keep := map[string]bool{}
	for i, p := range routed {
		servers := viewServers(site, p, quiver)
		plan.Missed = append(plan.Missed, servers.missed...)
		if err := writeClaudeView(p, names[i], filepath.Join(dir, "plugins", names[i]), servers, &plan.Missed); err != nil {
			w.warn(fmt.Sprintf("quiver: Claude Code: plugin %s: %v", p.Name, err))
			plan.Missed = append(plan.Missed, fmt.Sprintf("plugin %s: %v", p.Name, err))
			continue
		}
		keep[names[i]] = true
		plan.Routed[p.Name.String()] = true
		e := entry{Name: names[i], Source: "./plugins/" + names[i], Description: p.Manifest.Description, Version: p.Manifest.Version}
		if m := p.Contents.Manifest; m != nil {
			e.Description, e.Version = cmp.Or(e.Description, m.Description), cmp.Or(e.Version, m.Version)
		}
		market.Plugins = append(market.Plugins, e)
		enabled = append(enabled, wiring.Member{Keys: []string{"enabledPlugins", names[i] + "@" + name}, Value: json.RawMessage("true")})
	}
	if old, err := os.ReadDir(filepath.Join(dir, "plugins")); err == nil {
		for _, e := range old {
			if !keep[e.Name()] {
				os.RemoveAll(filepath.Join(dir, "plugins", e.Name()))
			}
		}
	}
	data, _ := json.MarshalIndent(market, "", "  ")
	mf := filepath.Join(dir, ".claude-plugin", "marketplace.json")
	if cur, err := os.ReadFile(mf); err != nil || !bytes.Equal(cur, data) {
		if err := os.MkdirAll(filepath.Dir(mf), 0o755); err != nil {
			return plan, err
		}
		if err := plugins.WriteFileAtomic(mf, data, 0o644); err != nil {
			return plan, err
		}
	}
	if len(enabled) == 0 {
		return plan, nil
	}
	source, _ := json.Marshal(map[string]any{"source": map[string]string{"source": "directory", "path": dir}})
	plan.add(claudeUserSettings(w), wiring.Member{Keys: []string{"extraKnownMarketplaces", name}, Value: source})
	plan.add(claudeEnabled(w, site), enabled...)
	return plan, nil
}

// viewHashFile keeps, in a view, the hash of what it was made from, so
// that an unchanged plugin is not copied again on every sync.
const viewHashFile = ".quiver-view"

// writeClaudeView writes (or keeps) the view of p at dst: every file but
// the hook configuration and the plugin's own server files, a manifest
// without hooks or servers under Claude's name for it, the servers quiver
// judged (servers), and the plugin's recipes/ as commands.
func writeClaudeView(p plugins.Plugin, name, dst string, servers claudeServers, missed *[]string) error {
	gen, err := claudeViewFiles(p, name, servers)
	if err != nil {
		return err
	}
	unread := viewDocs(p, gen, missed)
	carried := carriedItems(p)
	skip := func(rel string) bool {
		if !carried(rel) {
			return true
		}
		switch rel {
		case "hooks/" + plugins.HooksJSON, plugins.EntryManifestPath, plugins.ClaudeManifestPath, viewHashFile, ".mcp.json", ".lsp.json",
			// Read by Claude Code's plugin loader and judged by no one
			// here: the root settings.json (its agent and
			// subagentStatusLine, a command).
			"settings.json":
			return true
		}
		for _, dir := range unjudgedDirs {
			if strings.HasPrefix(rel, dir+"/") {
				return true
			}
		}
		return unread[rel] || strings.HasPrefix(rel, ".git/")
	}
	// The lock's content hash names an installed copy; a linked plugin
	// (or one without a hash) is hashed file by file.
	sum := p.Entry.Hash
	if sum == "" || p.Entry.Link {
		if sum, err = wiring.ViewHash(p.Dir, skip, nil); err != nil {
			return err
		}
	}
	sum = viewKey(sum, gen)
	if cur, err := os.ReadFile(filepath.Join(dst, viewHashFile)); err == nil && string(cur) == sum {
		return nil
	}
	gen[viewHashFile] = []byte(sum)
	_, err = wiring.WriteView(p.Dir, dst, skip, gen)
	return err
}

// carriedItems says whether a file of p's folder belongs in its view as
// far as its skills, commands and subagents go: in the folders Claude
// Code loads by default (skills/, commands/, agents/), only the items
// quiver lists for the plugin are carried. A marketplace entry that names
// the whole repository and lists some of its skills carries those, in
// Claude Code as in every other agent; Claude's loader would read every
// skill under skills/ besides the listed ones.
func carriedItems(p plugins.Plugin) func(rel string) bool {
	skills := map[string]bool{}
	for _, sk := range p.Contents.Skills {
		if rel, err := filepath.Rel(p.Dir, filepath.Dir(sk.Path)); err == nil {
			skills[filepath.ToSlash(rel)] = true
		}
	}
	docs := map[string]bool{}
	add := func(path string) {
		if rel, err := filepath.Rel(p.Dir, path); err == nil {
			docs[filepath.ToSlash(rel)] = true
		}
	}
	for _, r := range p.Contents.Recipes {
		if r.Command {
			add(r.Path)
		}
	}
	for _, a := range p.Parts().Agents {
		add(a.Path)
	}
	return func(rel string) bool {
		switch {
		case strings.HasPrefix(rel, "skills/"):
			for d := path.Dir(rel); d != "." && d != "skills"; d = path.Dir(d) {
				if skills[d] {
					return true
				}
			}
			return false
		case strings.HasPrefix(rel, "commands/"), strings.HasPrefix(rel, "agents/"):
			return !strings.HasSuffix(rel, ".md") || docs[rel]
		}
		return true
	}
}

// unjudgedDirs are the folders of a plugin that Claude Code 2.1.328's
// loader reads and quiver judges nothing of, left out of its view: the
// monitors it starts (monitors/monitors.json), the JavaScript workflows
// it runs, the binaries it puts on the plugin's PATH.
var unjudgedDirs = []string{"monitors", "workflows", "bin"}

// viewDocs writes into gen, for the view, the subagents, skills and
// commands of p whose frontmatter carries what Claude Code would run
// itself and quiver judges nothing of: hooks (a handler runs once, through
// quiver) and a subagent's mcpServers (servers no policy rule saw). They
// are written without those keys, and missed says so. A file whose
// frontmatter quiver cannot read is left out of the view (unread), since
// what Claude would read in it is unknown.
func viewDocs(p plugins.Plugin, gen map[string][]byte, missed *[]string) (unread map[string]bool) {
	unread = map[string]bool{}
	type doc struct {
		path, kind string
		drop       []string
	}
	var docs []doc
	for _, a := range p.Parts().Agents {
		docs = append(docs, doc{a.Path, "subagent", []string{"hooks", "mcpServers"}})
	}
	for _, sk := range p.Contents.Skills {
		docs = append(docs, doc{sk.Path, "skill", []string{"hooks"}})
	}
	for _, r := range p.Contents.Recipes {
		if r.Command {
			docs = append(docs, doc{r.Path, "command", []string{"hooks"}})
		}
	}
	for _, d := range docs {
		rel, err := filepath.Rel(p.Dir, d.path)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		rel = filepath.ToSlash(rel)
		data, err := safefs.ReadFile(d.path, maxDoc)
		if err != nil {
			continue
		}
		fm, body, err := format.ParseFrontmatter(data)
		if err != nil {
			unread[rel] = true
			*missed = append(*missed, fmt.Sprintf("%s %s of %s: left out, its frontmatter cannot be read (%v)", d.kind, rel, p.Name, err))
			continue
		}
		var dropped []string
		for _, k := range d.drop {
			if _, ok := fm[k]; ok {
				delete(fm, k)
				dropped = append(dropped, k)
			}
		}
		if len(dropped) == 0 {
			continue
		}
		if out, _, err := withFrontmatter(fm, body, nil); err == nil {
			gen[rel] = out
			*missed = append(*missed, fmt.Sprintf("%s %s of %s: dropped %s, which Claude Code would run itself past quiver's runtime and policy", d.kind, rel, p.Name, strings.Join(dropped, ", ")))
		} else {
			unread[rel] = true
		}
	}
	return unread
}

// viewKey names a view by its source's hash and the generated files.
func viewKey(source string, gen map[string][]byte) string {
	h := sha256.New()
	h.Write([]byte("view 3\n" + source + "\n"))
	for _, k := range slices.Sorted(maps.Keys(gen)) {
		fmt.Fprintf(h, "%s\x00%x\n", k, sha256.Sum256(gen[k]))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// claudeViewFiles are the files a view generates: its manifest (the
// plugin's, with a strict: false entry's fields over it, without hooks
// and without server fields), its .mcp.json and .lsp.json, and commands
// for recipes/ items.
func claudeViewFiles(p plugins.Plugin, name string, servers claudeServers) (map[string][]byte, error) {
	manifest := map[string]json.RawMessage{}
	for _, rel := range []string{plugins.ClaudeManifestPath, plugins.EntryManifestPath} {
		data, err := safefs.ReadFile(filepath.Join(p.Dir, filepath.FromSlash(rel)), safefs.MaxMeta)
		if err != nil {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) != nil {
			return nil, fmt.Errorf("%s is not a JSON object", rel)
		}
		maps.Copy(manifest, m)
	}
	// Hooks run through quiver; servers reach Claude only as quiver
	// read and judged them, from the view's own files; what else of the
	// manifest makes Claude run or install something quiver does not
	// judge is left out with its folders (unjudgedDirs).
	for _, k := range []string{"hooks", "mcpServers", "lspServers", "monitors", "workflows", "settings", "channels", "binaries"} {
		delete(manifest, k)
	}
	// Component paths reach Claude only as quiver read them: a manifest
	// whose paths quiver refused (a .. segment, an absolute path) is read
	// from the default folders, so Claude is given the defaults too,
	// never a path that leads out of the view.
	if p.Contents.ManifestErr != nil {
		for _, k := range []string{"commands", "agents", "skills", "outputStyles"} {
			delete(manifest, k)
		}
	}
	manifest["name"], _ = json.Marshal(name)
	if _, ok := manifest["description"]; !ok && p.Manifest.Description != "" {
		manifest["description"], _ = json.Marshal(p.Manifest.Description)
	}
	data, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		return nil, err
	}
	gen := map[string][]byte{plugins.ClaudeManifestPath: data}
	if servers.mcp != nil {
		gen[".mcp.json"] = servers.mcp
	}
	if servers.lsp != nil {
		gen[".lsp.json"] = servers.lsp
	}
	for _, r := range p.Contents.Recipes {
		if r.Command {
			continue
		}
		body, err := safefs.ReadFile(r.Path, safefs.MaxContent)
		if err != nil {
			return nil, err
		}
		gen["commands/"+r.Name+".md"] = body
	}
	return gen, nil
}

// claudeServers are the server files of a view: what quiver read of the
// plugin's servers and judged (plugin show, the policy and audit see the
// same list), nil for none, and what of the plugin's declarations did not
// make it into them.
type claudeServers struct {
	mcp, lsp json.RawMessage
	missed   []string
}

// viewServers writes the view's .mcp.json and .lsp.json from the servers
// quiver read (plugins.Parts): a server that quiver could not read, or
// a key of a definition it does not judge, reaches Claude no more than it
// reaches plugin show, the policy or audit (SPEC §16, issue 42). A stdio
// server that uses a setting set with quiver plugin config starts through
// quiver mcp exec, which hands it the values (a secret never lands in the
// view).
func viewServers(site Site, p plugins.Plugin, quiver string) claudeServers {
	var out claudeServers
	parts := p.Parts()
	for _, pr := range parts.Problems {
		if strings.Contains(pr, "mcpServers") || strings.Contains(pr, "lspServers") || strings.Contains(pr, "MCP") || strings.Contains(pr, "LSP") {
			out.missed = append(out.missed, fmt.Sprintf("plugin %s: %s", p.Name, pr))
		}
	}
	uc, _ := plugins.ReadUserConfig(p)
	mcp := map[string]json.RawMessage{}
	for _, s := range parts.MCP {
		def, dropped, err := s.Carried()
		if err != nil {
			out.missed = append(out.missed, fmt.Sprintf("MCP server %s of %s: %v", s.Name, p.Name, err))
			continue
		}
		if len(dropped) > 0 {
			out.missed = append(out.missed, fmt.Sprintf("MCP server %s of %s: dropped %s, which quiver does not judge", s.Name, p.Name, strings.Join(dropped, ", ")))
		}
		if len(uc.Values) > 0 && strings.Contains(string(s.Config), "${"+plugins.VarUserConfig) {
			if d, err := s.Def(); err == nil && d.Stdio() {
				argv := mcpExecAt(quiver, site, p.Name, s.Name)
				def, _ = json.Marshal(map[string]any{"command": argv[0], "args": argv[1:]})
			}
		}
		mcp[s.Name] = def
	}
	lsp := map[string]json.RawMessage{}
	for _, s := range parts.LSP {
		lsp[s.Name] = s.Config
	}
	if len(mcp) > 0 {
		out.mcp, _ = json.MarshalIndent(map[string]any{"mcpServers": mcp}, "", "  ")
	}
	if len(lsp) > 0 {
		out.lsp, _ = json.MarshalIndent(lsp, "", "  ")
	}
	return out
}
