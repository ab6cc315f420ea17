package agents

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/lazy"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
	"github.com/quiver-cli/quiver/internal/safefs"
	"github.com/quiver-cli/quiver/internal/term"
)

// Commands and subagents for agents without Claude's plugin loader (SPEC
// §16): the plugin's variables are expanded to the installed plugin's
// paths, and where the agent has its own format the file is translated
// into it. What an agent cannot take is dropped and named in agent list
// --json, since Gemini and OpenCode refuse to start on keys they do not
// know.

// pluginVars are the values of the variables Claude Code gives plugin p
// of scope s, as the agent at site sees them: the project's folder only
// for a project plugin.
func pluginVars(site Site, s plugins.Scope, p plugins.Name) map[string]string {
	vals := map[string]string{
		plugins.VarPluginRoot: s.PluginDir(p),
		plugins.VarPluginData: s.DataDir(p),
	}
	if site.Scope.Location == plugins.Local {
		vals[plugins.VarProjectDir] = site.Base
	}
	return vals
}

// bodyVars are pluginVars plus the plugin's settings that are not
// secret, as ${user_config.KEY}: Claude Code expands those in a plugin's
// command and subagent bodies (a secret never: the body is text the
// model reads, and a file in the agent's folders).
func bodyVars(site Site, p plugins.Plugin) map[string]string {
	vals := pluginVars(site, site.Scope, p.Name)
	c, err := plugins.ReadUserConfig(p)
	if err != nil {
		return vals
	}
	for _, k := range c.Keys {
		if v, ok := c.Value(k.Name); ok && !k.Sensitive {
			vals[plugins.VarUserConfig+k.Name] = v
		}
	}
	return vals
}

// maxDoc bounds a command or subagent file read for translation.
const maxDoc = 1 << 20

// translator turns one Claude-format file (its frontmatter and body, the
// plugin's variables expanded) into the agent's, for a file named name;
// dropped names what it could not carry.
type translator func(fm map[string]any, body, name string) (out []byte, dropped []string, err error)

// commandItems are the recipes the agent gets as commands: linked (or, a
// project's, copied) as they are where the agent reads Claude's format
// and the text needs nothing expanded, generated otherwise.
func commandItems(site Site, items []wiring.Item, docs []discovery.Doc, ps []plugins.Plugin, missed *[]string) []wiring.Item {
	byName := map[string]discovery.Doc{}
	for _, d := range docs {
		byName[d.Name] = d
	}
	out := items[:0:0]
	for _, it := range items {
		d := byName[it.Name]
		if site.Agent.command == nil && d.Plugin.IsZero() {
			out = append(out, it) // nothing to expand or translate
			continue
		}
		data, err := safefs.ReadFile(it.Path, maxDoc)
		if err != nil {
			*missed = append(*missed, fmt.Sprintf("command %s: %v", it.Name, err))
			continue
		}
		text := string(data)
		if !d.Plugin.IsZero() {
			vals := pluginVars(site, site.Scope, d.Plugin)
			for _, p := range ps {
				if p.Name == d.Plugin {
					vals = bodyVars(site, p)
				}
			}
			text = plugins.ExpandVars(text, vals)
		}
		if site.Agent.syntax != nil {
			var notes []string
			text, notes = withSyntax(text, site.Agent.syntax)
			for _, n := range notes {
				*missed = append(*missed, fmt.Sprintf("command %s: %s", it.Name, n))
			}
		}
		if site.Agent.command == nil && text == string(data) {
			out = append(out, it)
			continue
		}
		if r, ok := render(site.Agent.command, []byte(text), it.Name, "command", missed); ok {
			it.Render = r
			out = append(out, it)
		}
	}
	return out
}

// subagentItems are the subagents of the site's plugins not routed whole
// to the agent.
func subagentItems(site Site, d Docs, routed map[string]bool, missed *[]string) []wiring.Item {
	var out []wiring.Item
	for _, p := range scopePlugins(site, d) {
		if routed[p.Name.String()] {
			continue
		}
		for _, a := range p.Parts().Agents {
			name := p.Name.String() + "/" + a.Name
			data, err := safefs.ReadFile(a.Path, maxDoc)
			if err != nil {
				*missed = append(*missed, fmt.Sprintf("subagent %s: %v", name, err))
				continue
			}
			data = []byte(plugins.ExpandVars(string(data), bodyVars(site, p)))
			if r, ok := render(site.Agent.subagent, data, name, "subagent", missed); ok {
				out = append(out, wiring.Item{Name: name, Own: a.Name, Path: a.Path, Render: r})
			}
		}
	}
	return out
}

// render makes the Render function of a generated file from data: as it
// is without a translator, else translated (what it drops noted once).
func render(t translator, data []byte, item, kind string, missed *[]string) (func(string) ([]byte, error), bool) {
	if t == nil {
		return func(string) ([]byte, error) { return data, nil }, true
	}
	fm, body := frontmatter(data)
	_, dropped, err := t(fm, body, flatName(item))
	if err != nil {
		*missed = append(*missed, fmt.Sprintf("%s %s: %v", kind, item, err))
		return nil, false
	}
	if len(dropped) > 0 {
		*missed = append(*missed, fmt.Sprintf("%s %s: arrives without %s (no such %s there)", kind, item, strings.Join(dropped, ", "), term.Plural(len(dropped), "field")))
	}
	return func(name string) ([]byte, error) {
		fm, body := frontmatter(data)
		out, _, err := t(fm, body, name)
		return out, err
	}, true
}

// frontmatter reads a Claude file's frontmatter as Claude does: YAML,
// else (Claude's own reader takes it) one "key: value" per line, values
// as text, which is how published descriptions with ": " in them read.
func frontmatter(data []byte) (map[string]any, string) {
	fm, body, err := format.ParseFrontmatter(data)
	if err == nil {
		return fm, body
	}
	fm = map[string]any{}
	text := strings.TrimPrefix(string(data), "\ufeff")
	lines := strings.SplitAfter(text, "\n")
	for i := 1; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], "\r\n")
		if line == "---" {
			return fm, strings.Join(lines[i+1:], "")
		}
		if m := looseField.Get().FindStringSubmatch(line); m != nil {
			fm[m[1]] = strings.Trim(strings.TrimSpace(m[2]), `"'`)
		}
	}
	return map[string]any{}, text
}

var looseField = lazy.Regexp{Expr: `^([A-Za-z_][A-Za-z0-9_-]*):(.*)$`}

var anyArgs = lazy.Regexp{Expr: `\$ARGUMENTS(\[\d+\])?`}

func flatName(name string) string { return strings.ReplaceAll(name, "/", "-") }

// geminiCommand writes a command as Gemini's TOML: its description and
// prompt, $ARGUMENTS as {{args}} (and, where the text uses $1..$9, which
// Gemini has not, the arguments said first).
func geminiCommand(fm map[string]any, body, name string) ([]byte, []string, error) {
	var dropped []string
	for k := range fm {
		if k != "description" {
			dropped = append(dropped, k)
		}
	}
	slices.Sort(dropped)
	prompt := anyArgs.Get().ReplaceAllStringFunc(body, func(m string) string {
		if m != "$ARGUMENTS" {
			return m // $ARGUMENTS[N]: no Gemini form (geminiSyntax says so)
		}
		return "{{args}}"
	})
	if positionalArg.Get().MatchString(prompt) {
		prompt = "Arguments: {{args}}\n\n" + prompt
	}
	var b bytes.Buffer
	if d := format.StringField(fm, "description"); d != "" {
		fmt.Fprintf(&b, "description = %s\n", tomlString(d))
	}
	fmt.Fprintf(&b, "prompt = %s\n", tomlString(prompt))
	return b.Bytes(), dropped, nil
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// readOnlyTool reports Claude Code's tools that change nothing.
func readOnlyTool(name string) bool {
	switch name {
	case "Read", "Grep", "Glob", "LS", "WebFetch", "WebSearch", "NotebookRead", "TodoWrite", "Task", "BashOutput":
		return true
	}
	return false
}

// readOnly reports a tools field that names tools and none that changes
// anything.
func readOnly(v any) bool {
	tools := toolList(v)
	for _, t := range tools {
		if !readOnlyTool(t) {
			return false
		}
	}
	return len(tools) > 0
}

// geminiTools maps Claude Code's tool names to Gemini CLI's (from its
// bundle, 0.61).
var geminiTools = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"Read": "read_file", "Write": "write_file", "Edit": "replace", "MultiEdit": "replace",
		"Grep": "grep_search", "Glob": "glob", "LS": "list_directory", "Bash": "run_shell_command",
		"WebFetch": "web_fetch", "WebSearch": "google_web_search",
	}
}}

// geminiSubagent writes a subagent in Gemini's strict schema (unknown
// keys stop Gemini from loading it): name (lowercase, [a-z0-9-_]),
// description, tools in Gemini's names; the rest is dropped.
func geminiSubagent(fm map[string]any, body, name string) ([]byte, []string, error) {
	return toolsSubagent("Gemini", geminiName(name), geminiTools.Get(), fm, body)
}

// toolsSubagent writes a subagent for an agent whose subagents take
// name, description (required) and a tool list in its own names (tools
// maps Claude's): every other key is dropped, and a subagent none of
// whose tools the agent has is refused, since given none it would get
// every tool, more than its author allowed.
func toolsSubagent(agent, name string, tools map[string]string, fm map[string]any, body string) ([]byte, []string, error) {
	desc := format.StringField(fm, "description")
	if desc == "" {
		return nil, nil, fmt.Errorf("it has no description, which %s requires", agent)
	}
	type subagent struct {
		Name        string   `yaml:"name"`
		Description string   `yaml:"description"`
		Tools       []string `yaml:"tools,omitempty"`
	}
	out := subagent{Name: name, Description: desc}
	var dropped []string
	for k, v := range fm {
		switch k {
		case "name", "description":
		case "tools":
			for _, t := range toolList(v) {
				if g, ok := tools[t]; ok {
					if !slices.Contains(out.Tools, g) {
						out.Tools = append(out.Tools, g)
					}
				} else {
					dropped = append(dropped, "tool "+t)
				}
			}
			if len(out.Tools) == 0 {
				return nil, nil, fmt.Errorf("none of its tools (%v) exists in %s", v, agent)
			}
		default:
			dropped = append(dropped, k)
		}
	}
	return withFrontmatter(out, body, dropped)
}

// withFrontmatter is a Markdown file of frontmatter fm and body.
func withFrontmatter(fm any, body string, dropped []string) ([]byte, []string, error) {
	slices.Sort(dropped)
	text, err := yaml.Marshal(fm)
	if err != nil {
		return nil, nil, err
	}
	return []byte("---\n" + string(text) + "---\n" + body), dropped, nil
}

// toolList reads Claude's tools field: "Read, Grep" or a list. A tool
// with arguments (Bash(git:*)) counts as the tool.
func toolList(v any) []string {
	var raw []string
	switch t := v.(type) {
	case string:
		raw = strings.Split(t, ",")
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				raw = append(raw, s)
			}
		}
	}
	var out []string
	for _, s := range raw {
		s = strings.TrimSpace(s)
		if i := strings.IndexByte(s, '('); i > 0 {
			s = s[:i]
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

var notGeminiName = lazy.Regexp{Expr: `[^a-z0-9_-]+`}

// geminiName is a file name as Gemini's agent names must be.
func geminiName(name string) string {
	return strings.Trim(notGeminiName.Get().ReplaceAllString(strings.ToLower(name), "-"), "-")
}
