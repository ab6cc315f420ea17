package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/plugins/policy"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// Settings in an agent's own files can switch off what quiver wired
// without touching it: Claude Code's disableAllHooks, Gemini CLI's
// hooksConfig.enabled, a list of disabled hooks or servers naming
// quiver's. The agent honours them (each one measured, docs/agents.md),
// so a repository that commits one silences the user's guards, the global
// ones included, while the entries quiver wrote stay in place. agent
// list, doctor and audit read them (Agent.silenced) and say so.

// Silence is one setting that keeps the agent from running what quiver
// wired: the file that holds it and what it does.
type Silence struct {
	File, Reason string
}

func (s Silence) String() string { return safefs.Visible(s.File) + ": " + s.Reason }

// Silenced lists the settings that keep the agent of site from running
// quiver's entries or servers there, nil for none.
func (w *Wirer) Silenced(site Site) []Silence {
	out := append(w.guardSilences(site), envSilences(w, site)...)
	if site.Agent.silenced != nil {
		out = append(out, site.Agent.silenced(w, site)...)
	}
	return out
}

// settingsDoc reads one of an agent's settings files as the agent reads
// it, nil when it is absent or cannot be read (what cannot be read is
// reported elsewhere, by the reader of the file quiver edits).
func settingsDoc(path string, syntax wiring.Syntax) *wiring.Doc {
	data, err := safefs.ReadFile(path, safefs.MaxMeta)
	if err != nil {
		return nil
	}
	d, err := wiring.ParseDoc(data, syntax)
	if err != nil {
		return nil
	}
	return d
}

// jsonBool reads a JSON boolean; ok is false for anything else.
func jsonBool(raw json.RawMessage) (v, ok bool) {
	switch strings.TrimSpace(string(raw)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// jsonStrings reads a JSON list of strings (what is not one is left out).
func jsonStrings(raw json.RawMessage) []string {
	var list []any
	json.Unmarshal(raw, &list)
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// geminiSettingsFiles are the settings files Gemini CLI 0.61 merges, from
// the lowest precedence to the highest: the user's, the workspace's (the
// project's, read from its folder: a user-scope wiring is silenced there
// too), the system's (GEMINI_CLI_SYSTEM_SETTINGS_PATH, else
// /etc/gemini-cli/settings.json; Gemini skips one that is not root-owned,
// which quiver does not judge).
func geminiSettingsFiles(w *Wirer, site Site) []string {
	files := []string{filepath.Join(w.Home, ".gemini", "settings.json")}
	if w.Layout.Local != nil {
		files = append(files, filepath.Join(w.Layout.ProjectDir, ".gemini", "settings.json"))
	}
	system := "/etc/gemini-cli/settings.json"
	if w.Getenv != nil && w.Getenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH") != "" {
		system = w.Getenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
	}
	return append(files, system)
}

// geminiSilenced reads what switches quiver's entries and servers off in
// Gemini CLI 0.61: hooksConfig.enabled false in the file of highest
// precedence that sets it; hooksConfig.disabled (joined across files)
// naming quiver's handlers, which are named "quiver", or their command;
// mcp.excluded (joined) or mcp.allowed (the lists' intersection) leaving
// out a server quiver wrote; and ~/.gemini/mcp-server-enablement.json
// turning one off.
func geminiSilenced(w *Wirer, site Site) []Silence {
	var out []Silence
	files := geminiSettingsFiles(w, site)
	docs := make([]*wiring.Doc, len(files))
	for i, f := range files {
		docs[i] = settingsDoc(f, wiring.JSONComments)
	}
	enabledBy := ""
	for i := len(docs) - 1; i >= 0; i-- {
		if docs[i] == nil {
			continue
		}
		if v, ok := jsonBool(docs[i].Get("hooksConfig", "enabled")); ok {
			if !v {
				enabledBy = files[i]
			}
			break
		}
	}
	if enabledBy != "" {
		out = append(out, Silence{enabledBy, "hooksConfig.enabled is false: Gemini CLI runs no hook, quiver's included"})
	}
	for i, d := range docs {
		if d == nil {
			continue
		}
		for _, name := range jsonStrings(d.Get("hooksConfig", "disabled")) {
			if name == geminiHookName || site.Agent.Writes(name) {
				out = append(out, Silence{files[i], fmt.Sprintf("hooksConfig.disabled lists %q: Gemini CLI skips quiver's hooks", name)})
			}
		}
	}
	servers := w.wiredServers(site)
	if len(servers) == 0 {
		return out
	}
	var allowed []string
	allowedIn := []string{}
	for i, d := range docs {
		if d == nil {
			continue
		}
		for _, name := range jsonStrings(d.Get("mcp", "excluded")) {
			if slices.Contains(servers, name) {
				out = append(out, Silence{files[i], fmt.Sprintf("mcp.excluded lists %s: Gemini CLI does not start that server", name)})
			}
		}
		if raw := d.Get("mcp", "allowed"); raw != nil {
			list := jsonStrings(raw)
			if len(allowedIn) == 0 {
				allowed = list
			} else {
				allowed = slices.DeleteFunc(allowed, func(s string) bool { return !slices.Contains(list, s) })
			}
			allowedIn = append(allowedIn, files[i])
		}
	}
	if len(allowedIn) > 0 && len(allowed) > 0 {
		for _, s := range servers {
			if !slices.Contains(allowed, s) {
				out = append(out, Silence{strings.Join(allowedIn, ", "), fmt.Sprintf("mcp.allowed does not list %s: Gemini CLI does not start that server", s)})
			}
		}
	}
	enablement := filepath.Join(w.Home, ".gemini", "mcp-server-enablement.json")
	if d := settingsDoc(enablement, wiring.JSONComments); d != nil {
		for _, s := range servers {
			if v, ok := jsonBool(d.Get(strings.ToLower(s), "enabled")); ok && !v {
				out = append(out, Silence{enablement, fmt.Sprintf("%s is disabled: Gemini CLI does not start that server", s)})
			}
		}
	}
	return out
}

// wiredServers are the names of the MCP servers quiver keeps in the
// agent's files at site, as its record says.
func (w *Wirer) wiredServers(site Site) []string {
	rec, err := wiring.ReadRecord(site.Record)
	if err != nil || rec.Agents[site.Agent.Name] == nil {
		return nil
	}
	var out []string
	for _, f := range rec.Agents[site.Agent.Name].Files {
		for _, m := range f.Members {
			if len(m.Keys) > 0 {
				out = append(out, m.Keys[len(m.Keys)-1])
			}
		}
	}
	return out
}

// claudeManaged are Claude Code's managed settings files, which an
// administrator writes (2.1.328: /etc/claude-code/managed-settings.json
// and the drop-ins of managed-settings.d/ on Linux; macOS keeps them in
// /Library/Application Support/ClaudeCode).
func claudeManaged(w *Wirer) []string {
	dir := "/etc/claude-code"
	if runtime.GOOS == "darwin" {
		dir = "/Library/Application Support/ClaudeCode"
	}
	files := []string{filepath.Join(dir, "managed-settings.json")}
	if more, err := filepath.Glob(filepath.Join(dir, "managed-settings.d", "*.json")); err == nil {
		slices.Sort(more)
		files = append(files, more...)
	}
	return files
}

// claudeSilenced reads what switches quiver's entries and plugin views off
// in Claude Code 2.1.328 (measured, docs/agents.md): disableAllHooks true
// as the settings merge it (user < project < local; a managed file's
// wins), which silences settings hooks and plugins' hooks alike;
// allowManagedHooksOnly and strictPluginOnlyCustomization (naming hooks)
// in a managed file; and enabledPlugins setting one of quiver's views to
// false in a file that takes precedence over the one quiver enables it in.
func claudeSilenced(w *Wirer, site Site) []Silence {
	var out []Silence
	type layer struct {
		file    string
		managed bool
	}
	layers := []layer{{file: filepath.Join(w.Home, claudeSettings)}}
	if w.Layout.Local != nil {
		layers = append(layers, layer{file: filepath.Join(w.Layout.ProjectDir, claudeSettings)},
			layer{file: filepath.Join(w.Layout.ProjectDir, ".claude", "settings.local.json")})
	}
	for _, f := range claudeManaged(w) {
		layers = append(layers, layer{file: f, managed: true})
	}
	docs := make([]*wiring.Doc, len(layers))
	for i, l := range layers {
		docs[i] = settingsDoc(l.file, wiring.JSON)
	}
	disabledBy := ""
	for i, d := range docs {
		if d == nil {
			continue
		}
		if v, ok := jsonBool(d.Get("disableAllHooks")); ok {
			disabledBy = ""
			if v {
				disabledBy = layers[i].file
			}
		}
		if !layers[i].managed {
			continue
		}
		if v, _ := jsonBool(d.Get("allowManagedHooksOnly")); v {
			out = append(out, Silence{layers[i].file, "allowManagedHooksOnly is true: Claude Code runs only the hooks of managed settings, none of quiver's"})
		}
		strict := d.Get("strictPluginOnlyCustomization")
		if v, _ := jsonBool(strict); v || slices.Contains(jsonStrings(strict), "hooks") {
			out = append(out, Silence{layers[i].file, "strictPluginOnlyCustomization covers hooks: Claude Code runs no hook of a settings file, quiver's included"})
		}
	}
	if disabledBy != "" {
		out = append(out, Silence{disabledBy, "disableAllHooks is true: Claude Code runs no hook, quiver's included"})
	}
	// A settings file Claude skips whole takes what quiver keeps there
	// with it: the hooks of the user's file, the plugins the personal
	// file enables (the configuration itself is judged by WiredIn).
	for _, l := range layers {
		if l.managed || l.file == site.Config {
			continue
		}
		if data, err := safefs.ReadFile(l.file, safefs.MaxMeta); err == nil {
			if p := claudeSettingsProblem(data); p != "" && (l.file == claudeEnabled(w, site) || l.file == claudeUserSettings(w)) {
				out = append(out, Silence{l.file, "Claude Code skips this whole file (" + p + "): what quiver keeps there (hooks, enabled plugins, marketplaces) does not load"})
			}
		}
	}
	// The views quiver enables, and where: the user's settings for the
	// user's plugins, the project's personal settings for the project's.
	rec, err := wiring.ReadRecord(site.Record)
	if err != nil || rec.Agents[site.Agent.Name] == nil {
		return out
	}
	enabledIn := claudeEnabled(w, site)
	for _, f := range rec.Agents[site.Agent.Name].Files {
		if f.Path != enabledIn {
			continue
		}
		for _, m := range f.Members {
			if len(m.Keys) != 2 || m.Keys[0] != "enabledPlugins" {
				continue
			}
			// Each file that takes precedence over quiver's may turn the
			// view off; the last one that speaks decides.
			var verdict *Silence
			after := false
			for i, l := range layers {
				if l.file == enabledIn {
					after = true
					continue
				}
				if !after && !l.managed || docs[i] == nil {
					continue
				}
				if v, ok := jsonBool(docs[i].Get(m.Keys...)); ok {
					verdict = nil
					if !v {
						verdict = &Silence{l.file, fmt.Sprintf("enabledPlugins sets %s to false: Claude Code loads nothing of that plugin (its servers, subagents, commands)", m.Keys[1])}
					}
				}
			}
			if verdict != nil {
				out = append(out, *verdict)
			}
		}
	}
	return out
}

// codexSilenced reads what switches quiver's entries and servers off in
// Codex 0.169 (measured): [features] hooks = false (or the deprecated
// codex_hooks = false) in the user's config.toml or the project's, which
// Codex reads once the project is trusted, the project's winning; and
// enabled = false in a table of a server quiver wrote.
func codexSilenced(w *Wirer, site Site) []Silence {
	var out []Silence
	files := []string{filepath.Join(codexHome(w), "config.toml")}
	if w.Layout.Local != nil {
		files = append(files, filepath.Join(w.Layout.ProjectDir, ".codex", "config.toml"))
	}
	var off string
	servers := w.wiredServers(site)
	for _, f := range files {
		data, err := safefs.ReadFile(f, safefs.MaxMeta)
		if err != nil {
			continue
		}
		var doc struct {
			Features   map[string]any            `toml:"features"`
			MCPServers map[string]map[string]any `toml:"mcp_servers"`
		}
		if toml.Unmarshal(data, &doc) != nil {
			continue
		}
		for _, key := range []string{"hooks", "codex_hooks"} {
			if v, ok := doc.Features[key].(bool); ok {
				off = ""
				if !v {
					off = f
				}
			}
		}
		for _, s := range servers {
			if v, ok := doc.MCPServers[s]["enabled"].(bool); ok && !v {
				out = append(out, Silence{f, fmt.Sprintf("mcp_servers.%s.enabled is false: Codex does not start that server", s)})
			}
		}
	}
	if off != "" {
		out = append(out, Silence{off, "[features] hooks is false: Codex runs no hook, quiver's included"})
	}
	return out
}

// copilotSilenced reads what switches quiver's entries and servers off in
// GitHub Copilot CLI 1.0.102 (measured): disableAllHooks true in the
// user's settings or the repository's (.github/copilot/settings.json and
// settings.local.json, which silence the user's hooks too), and
// disabledMcpServers naming a server quiver wrote.
func copilotSilenced(w *Wirer, site Site) []Silence {
	var out []Silence
	home := filepath.Join(w.Home, ".copilot")
	if w.Getenv != nil && w.Getenv("COPILOT_HOME") != "" {
		home = w.Getenv("COPILOT_HOME")
	}
	files := []string{filepath.Join(home, "settings.json")}
	if w.Layout.Local != nil {
		files = append(files, filepath.Join(w.Layout.ProjectDir, ".github", "copilot", "settings.json"),
			filepath.Join(w.Layout.ProjectDir, ".github", "copilot", "settings.local.json"))
	}
	servers := w.wiredServers(site)
	for _, f := range files {
		d := settingsDoc(f, wiring.JSONC)
		if d == nil {
			continue
		}
		if v, _ := jsonBool(d.Get("disableAllHooks")); v {
			out = append(out, Silence{f, "disableAllHooks is true: Copilot CLI runs no hook, quiver's included"})
		}
		for _, name := range jsonStrings(d.Get("disabledMcpServers")) {
			if slices.Contains(servers, name) {
				out = append(out, Silence{f, fmt.Sprintf("disabledMcpServers lists %s: Copilot CLI does not start that server", name)})
			}
		}
	}
	return out
}

// opencodeSilenced reads what switches quiver's servers off in OpenCode
// 1.18 (measured): mcp.NAME.enabled false, for a server quiver wrote, in a
// configuration OpenCode reads after the one quiver wrote it in (they
// merge in order, the last winning: the user's config.json, opencode.json,
// opencode.jsonc, then the project's opencode.json, .opencode/opencode.json
// and .opencode/opencode.jsonc). Its switches that are not in a file
// (OPENCODE_PURE, --pure, OPENCODE_DISABLE_PROJECT_CONFIG) are the
// environment of the agent, which quiver cannot see: docs/agents.md.
func opencodeSilenced(w *Wirer, site Site) []Silence {
	var out []Silence
	user := filepath.Join(w.Home, ".config", "opencode")
	files := []string{filepath.Join(user, "config.json"), filepath.Join(user, "opencode.json"), filepath.Join(user, "opencode.jsonc")}
	if w.Layout.Local != nil {
		p := w.Layout.ProjectDir
		files = append(files, filepath.Join(p, "opencode.json"), filepath.Join(p, "opencode.jsonc"),
			filepath.Join(p, ".opencode", "opencode.json"), filepath.Join(p, ".opencode", "opencode.jsonc"))
	}
	for _, s := range w.wiredServers(site) {
		var verdict *Silence
		for _, f := range files {
			d := settingsDoc(f, wiring.JSONC)
			if d == nil {
				continue
			}
			if v, ok := jsonBool(d.Get("mcp", s, "enabled")); ok {
				verdict = nil
				if !v {
					verdict = &Silence{f, fmt.Sprintf("mcp.%s.enabled is false: OpenCode does not start that server", s)}
				}
			}
		}
		if verdict != nil {
			out = append(out, *verdict)
		}
	}
	return out
}

// guardSilences is what keeps the agent of site from running quiver's
// guards although its configuration seems to call quiver: an event that
// can block (PreToolUse, a prompt) whose entries do not hold one exactly
// as quiver writes it, for the quiver it writes (the bare name, or the
// command this machine's record names) with or without --allow-rewrites.
// A repository can commit an entry that runs its own program as
// "./evil/quiver hook run --format claude before_tool_call", one marked
// async (which cannot block), one whose matcher lets every tool by, one
// with an env of its own, or one without the tail that blocks when quiver
// cannot start: each counts as not wired for that event. Timeouts are not
// compared (quiver sets them from the installed hooks).
func (w *Wirer) guardSilences(site Site) []Silence {
	ag := site.Agent
	data, ok, err := ReadConfig(site.Config)
	if err != nil || !ok {
		return nil
	}
	commands := []string{"quiver"}
	if rec, err := wiring.ReadRecord(site.Record); err == nil {
		if e := rec.Agents[ag.Name]; e != nil && e.Command != "" && e.Command != "quiver" {
			commands = append(commands, e.Command)
		}
	}
	if ag.hookFile != nil {
		// The whole file is quiver's program: it is quiver's only as
		// quiver writes it (a committed one that calls anything else
		// runs no guard).
		for _, c := range commands {
			if bytes.Equal(data, ag.hookFile(ag, c, false)) || bytes.Equal(data, ag.hookFile(ag, c, true)) {
				return nil
			}
		}
		return []Silence{{site.Config, "the plugin is not the one quiver writes (edited, or committed by another hand): it may not run quiver's guards; quiver agent install " + ag.Name + flagFor(site.Scope.Location) + " writes it again once you remove it"}}
	}
	doc, err := wiring.ParseDoc(data, ag.Syntax)
	if err != nil {
		return nil
	}
	var out []Silence
	for _, ev := range ag.Events() {
		if !core(ev) || !ag.guards(ev) {
			continue
		}
		forms := map[string]bool{}
		for _, c := range commands {
			ag.addForms(forms, ev, c, false)
			ag.addForms(forms, ev, c, true)
		}
		elems, err := doc.Array(ag.keys(ev)...)
		if err != nil {
			continue
		}
		exact, looks, short := false, "", ""
		for _, el := range elems {
			if forms[withoutTimeouts(el)] {
				// Timeouts are quiver's to set from the hooks, but one
				// shorter than the least quiver writes lets the agent kill
				// quiver mid-guard, which it takes as no answer.
				if t := shortestTimeout(el); t >= 0 && time.Duration(t*float64(ag.TimeoutUnit)) < minEntryTimeout {
					short = fmt.Sprintf("%g", t)
					continue
				}
				exact = true
				break
			}
			wiring.CommandsRun(el, func(cmd string) bool {
				if looks == "" && ag.Writes(cmd) {
					looks = cmd
				}
				return false
			})
		}
		if exact {
			continue
		}
		switch first := firstWord(looks); {
		case short != "":
			out = append(out, Silence{site.Config, fmt.Sprintf("the %s entry's timeout (%s) is shorter than quiver's least (%s): the agent would stop quiver before its guards answer, and go on; quiver agent install %s%s writes it again", ev.Native, short, minEntryTimeout, ag.Name, flagFor(site.Scope.Location))})
		case looks == "":
			out = append(out, Silence{site.Config, fmt.Sprintf("no entry calls quiver for %s: its guards do not run there", ev.Native)})
		case !slices.Contains(commands, first):
			out = append(out, Silence{site.Config, fmt.Sprintf("the %s entry runs %s, not the quiver quiver wired: quiver's guards do not run there", ev.Native, safefs.Visible(first))})
		default:
			out = append(out, Silence{site.Config, fmt.Sprintf("the %s entry is not as quiver writes it (its matcher, fields or tail differ): it may not run quiver's guards, or not block; quiver agent install %s%s writes it again", ev.Native, ag.Name, flagFor(site.Scope.Location))})
		}
	}
	return out
}

// shortestTimeout is the least number under a key that says timeout in
// the element el, -1 for none.
func shortestTimeout(el json.RawMessage) float64 {
	var v any
	if json.Unmarshal(el, &v) != nil {
		return -1
	}
	least := -1.0
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if f, ok := e.(float64); ok && strings.Contains(strings.ToLower(k), "timeout") && (least < 0 || f < least) {
					least = f
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return least
}

// firstWord is the program a command line runs, unquoted.
func firstWord(cmd string) string {
	if strings.HasPrefix(cmd, "'") {
		if end := strings.Index(cmd[1:], "' "); end >= 0 {
			return strings.ReplaceAll(cmd[1:end+1], `'\''`, "'")
		}
	}
	word, _, _ := strings.Cut(cmd, " ")
	return word
}

// hookEnv reports a variable an agent's settings would set for the hooks
// it runs that changes which quiver runs or what it reads: quiver's own
// (QUIVER_HOME, QUIVER_PROJECT_DIR, ...), and those that change what a
// command line runs or loads (PATH, LD_PRELOAD, BASH_ENV, ...), or the
// shell Claude Code wraps hooks in (CLAUDE_CODE_SHELL_PREFIX).
func hookEnv(name string) bool {
	n := strings.ToUpper(name)
	return strings.HasPrefix(n, "QUIVER_") || n == "CLAUDE_CODE_SHELL_PREFIX" || policy.Loader(name)
}

// envSilences reads the variables the project's files give the agent's
// hooks (Claude Code's settings env, in the project's committed settings
// and personal settings; Gemini CLI's .gemini/.env and .env, which it
// loads into its own environment): one that changes which quiver runs or
// what it reads silences the user's guards, the global ones included, and
// is reported. The user's own and managed settings are theirs.
func envSilences(w *Wirer, site Site) []Silence {
	if w.Layout.Local == nil {
		return nil
	}
	p := w.Layout.ProjectDir
	var out []Silence
	add := func(file, name, how string) {
		out = append(out, Silence{file, fmt.Sprintf("%s sets %s for the hooks %s runs: they would run another quiver, or read other guards and trust, than yours", how, name, site.Agent.Title)})
	}
	switch site.Agent {
	case Claude:
		for _, f := range []string{filepath.Join(p, claudeSettings), filepath.Join(p, ".claude", "settings.local.json")} {
			d := settingsDoc(f, wiring.JSON)
			if d == nil {
				continue
			}
			var env map[string]json.RawMessage
			json.Unmarshal(d.Get("env"), &env)
			for _, k := range slices.Sorted(maps.Keys(env)) {
				if hookEnv(k) {
					add(f, k, "env")
				}
			}
		}
	case Gemini:
		// Gemini loads the first .gemini/.env or .env from the folder it
		// starts in up: any of the project's may be the one.
		for _, f := range dotenvFiles(p) {
			data, err := safefs.ReadFile(f, safefs.MaxMeta)
			if err != nil {
				continue
			}
			for _, k := range dotenvKeys(data) {
				if hookEnv(k) {
					add(f, k, "it")
				}
			}
		}
	}
	return out
}

// dotenvFiles are the .env and .gemini/.env files of the project at p
// (its folders, to a bounded depth, without .git, node_modules and the
// installed plugins).
func dotenvFiles(p string) []string {
	var out []string
	filepath.WalkDir(p, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if e.IsDir() {
			rel, _ := filepath.Rel(p, path)
			switch {
			case e.Name() == ".git" || e.Name() == "node_modules" || rel == filepath.Join(".quiver", "plugins"),
				strings.Count(rel, string(filepath.Separator)) > 8:
				return filepath.SkipDir
			}
			return nil
		}
		if e.Name() == ".env" && e.Type().IsRegular() {
			out = append(out, path)
		}
		return nil
	})
	return out
}

// dotenvKeys are the variables a .env file sets, read as the dotenv
// package Gemini CLI uses reads it: lines end at \n, \r\n or a lone \r;
// a line is [export] NAME = value or NAME: value.
func dotenvKeys(data []byte) []string {
	text := strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n")
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimLeft(line, " \t\f\v")
		if rest, ok := strings.CutPrefix(line, "export"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			line = strings.TrimLeft(rest, " \t")
		}
		n := 0
		for n < len(line) && (line[n] == '_' || line[n] == '.' || line[n] == '-' || isWordByte(line[n])) {
			n++
		}
		if n == 0 {
			continue
		}
		sep := strings.TrimLeft(line[n:], " \t")
		if strings.HasPrefix(sep, "=") || strings.HasPrefix(sep, ":") {
			out = append(out, line[:n])
		}
	}
	return out
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
