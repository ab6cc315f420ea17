package format

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/quiver-cli/quiver/internal/lazy"
)

// Matcher selects values (tool names, a session's source) by Claude's
// rules: missing, empty or "*" matches everything; a matcher made only of
// letters, digits, '_' and '|' is a list of exact names ("Edit|Write"
// matches Edit, not NotebookEdit); anything else is a regular expression
// searched anywhere in the value, not anchored ("^Notebook", "mcp__.*").
type Matcher struct {
	all   bool
	names []string
	re    *regexp.Regexp
}

// CompileMatcher compiles m; a regular expression that does not compile
// is an error naming it.
func CompileMatcher(m string) (*Matcher, error) {
	if m == "" || m == "*" {
		return &Matcher{all: true}, nil
	}
	if plainNames(m) {
		return &Matcher{names: strings.Split(m, "|")}, nil
	}
	re, err := regexp.Compile(m)
	if err != nil {
		return nil, fmt.Errorf("matcher %q is not a valid regular expression: %v", m, err)
	}
	return &Matcher{re: re}, nil
}

// Match reports whether the matcher selects v.
func (m *Matcher) Match(v string) bool {
	switch {
	case m.all:
		return true
	case m.re != nil:
		return m.re.MatchString(v)
	}
	for _, n := range m.names {
		if n == v {
			return true
		}
	}
	return false
}

func plainNames(m string) bool {
	for _, r := range m {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '|') {
			return false
		}
	}
	return true
}

// Condition is an `if` in Claude's permission-rule form: "Bash",
// "Bash(git commit:*)", "Edit(*.ts)", "Grep(TODO*)",
// "WebFetch(domain:example.com)", "mcp__github". It is read and matched as
// Claude Code 2.1.328 does (SPEC §15), for the tools whose rules Claude
// can match against the tool input; ParseCondition refuses a specifier of
// any other tool, so a handler is never run unconditionally because its
// condition was not understood. A Bash rule is checked against every
// simple command of the line, and a line quiver cannot follow matches
// (see bashRule.match).
type Condition struct {
	tool string
	// kind says how the specifier is matched: "" (any use of the tool),
	// "command", "path", "pattern" or "domain".
	kind string
	spec string
	bash bashRule
	path pathRule
	// pattern is a Glob or Grep rule's wildcard.
	pattern []glob
}

// pathField names the input field holding the file of the tools whose
// rules take a path specifier, "" for other tools.
func pathField(tool string) string {
	switch tool {
	case "Read", "Edit", "Write", "MultiEdit":
		return "file_path"
	case "NotebookEdit":
		return "notebook_path"
	}
	return ""
}

// canonicalTool maps the old names Claude Code still takes for its tools,
// in rules and in tool calls (its table Wgo), to the current ones: "Task"
// and "Agent" are one tool.
func canonicalTool(name string) string {
	switch name {
	case "Task":
		return "Agent"
	case "KillShell", "KillBash":
		return "TaskStop"
	case "ListPeers":
		return "ListAgents"
	case "Brief":
		return "SendUserMessage"
	case "ListMcpResources":
		return "ListMcpResourcesTool"
	case "ReadMcpResource":
		return "ReadMcpResourceTool"
	case "ReadMcpResourceDir":
		return "ReadMcpResourceDirTool"
	case "ProposeGoal":
		return "SetGoal"
	}
	return name
}

// ruleForm is compiled on first use: nothing runs at start-up for the
// many commands that never read a condition.
var ruleForm = lazy.Regexp{Expr: `(?s)^([A-Za-z][A-Za-z0-9_-]*)(?:\((.*)\))?$`}

// ParseCondition parses an `if` rule as Claude does: Tool or
// Tool(specifier), where an empty specifier or "*" is the tool alone, and
// in the specifier "\(" and "\)" are parentheses and "\\" a backslash.
// A closing parenthesis escaped by a backslash does not close the rule.
func ParseCondition(s string) (*Condition, error) {
	m := ruleForm.Get().FindStringSubmatch(s)
	if m == nil || escapedAtEnd(m[2]) {
		return nil, fmt.Errorf("condition %q is not in permission-rule form (Tool or Tool(specifier))", s)
	}
	c := &Condition{tool: canonicalTool(m[1])}
	if m[2] == "" || m[2] == "*" {
		return c, nil
	}
	c.spec = strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(m[2], `\(`, "("), `\)`, ")"), `\\`, `\`)
	cannot := func(why string) (*Condition, error) {
		return nil, fmt.Errorf("condition %q cannot be evaluated by quiver: %s", s, why)
	}
	switch {
	case strings.HasPrefix(c.tool, "mcp__"):
		return cannot("MCP rules take no specifier")
	case c.tool == "Bash":
		c.kind, c.bash = "command", parseBashRule(c.spec)
	case pathField(c.tool) != "":
		r, err := parsePathRule(c.spec)
		if err != nil {
			return cannot("the path pattern: " + err.Error())
		}
		c.kind, c.path = "path", r
	case c.tool == "Glob" || c.tool == "Grep":
		c.kind, c.pattern = "pattern", wildcard(c.spec, false)
	case c.tool == "WebFetch":
		host, ok := strings.CutPrefix(c.spec, "domain:")
		if !ok || host == "" {
			return cannot("WebFetch rules are written WebFetch(domain:HOST)")
		}
		c.kind, c.spec = "domain", strings.ToLower(host)
	default:
		return cannot("specifiers of " + m[1] + " are not understood")
	}
	return c, nil
}

// escapedAtEnd reports a text ending in an odd number of backslashes: the
// parenthesis after it is escaped.
func escapedAtEnd(s string) bool {
	n := len(s) - len(strings.TrimRight(s, `\`))
	return n%2 == 1
}

// bashRule is a Bash rule's specifier as the command texts it accepts.
type bashRule struct {
	alts []glob
	// blanks says the rule is a glob, matched, as Claude does, against
	// the command with its runs of spaces and tabs collapsed; a prefix
	// rule (x:*) is matched against the command as it is.
	blanks bool
}

// parseBashRule reads a specifier as Claude does (its function e2o): "x:*"
// is x alone or x followed by a space and anything, x taken literally (no
// wildcards, no trimming); any other specifier is a wildcard (see
// wildcard).
func parseBashRule(spec string) bashRule {
	// Claude tests /^(.+):\*$/, where "." is no line terminator.
	if p, ok := strings.CutSuffix(spec, ":*"); ok && p != "" && !strings.ContainsAny(p, "\n\r\u2028\u2029") {
		g := glob(nil).text(p)
		return bashRule{alts: []glob{g, append(g[:len(g):len(g)], ' ', anyText)}}
	}
	return bashRule{alts: wildcard(spec, true), blanks: true}
}

// match reports whether some simple command of a Bash line meets the
// rule. A line quiver cannot follow matches: a guard is never skipped
// because its condition was not understood.
func (r bashRule) match(line string) bool {
	cmds, ok := simpleCommands(line)
	if !ok {
		return true
	}
	for _, argv := range cmds {
		texts, ok := commandTexts(argv)
		if !ok {
			return true
		}
		for _, t := range texts {
			if r.blanks {
				t = collapseBlanks(t)
			}
			if fitsAny(r.alts, t) {
				return true
			}
		}
	}
	return false
}

// Match reports whether the condition holds for a tool call. cwd and
// project resolve relative path patterns (SPEC §11: against the payload's
// cwd and the project directory).
func (c *Condition) Match(toolName string, toolInput json.RawMessage, cwd, project, home string) bool {
	if !c.matchTool(toolName) {
		return false
	}
	var in map[string]json.RawMessage
	json.Unmarshal(toolInput, &in)
	str := func(k string) string {
		var s string
		json.Unmarshal(in[k], &s)
		return s
	}
	switch c.kind {
	case "":
		return true
	case "command":
		var line string
		if raw := in["command"]; string(raw) == "null" || json.Unmarshal(raw, &line) != nil {
			return true // no command to read: the guard runs
		}
		return c.bash.match(line)
	case "path":
		p := str(pathField(c.tool))
		return p != "" && c.path.match(p, cwd, project, home)
	case "pattern":
		var p string
		if json.Unmarshal(in["pattern"], &p) != nil {
			return false // as Claude, which matches only a well-formed call
		}
		return fitsAny(c.pattern, glob(nil).text(p))
	case "domain":
		h, ok := plainHost(str("url"))
		if !ok {
			// A URL read otherwise by the fetch (a WHATWG parser strips
			// tabs, takes \ for /, decodes %65, maps fullwidth letters)
			// than here: the guard runs, never skipped on doubt.
			return true
		}
		return h == c.spec || strings.HasSuffix(h, "."+c.spec)
	}
	return false
}

// plainHost is a URL's lowercase host when the URL is plain enough that
// every parser reads the same host: printable ASCII without white space,
// backslash or percent escapes, an http(s) scheme and a host Go parses.
// ok is false otherwise.
func plainHost(raw string) (string, bool) {
	for _, r := range raw {
		if r <= ' ' || r >= 0x7f || r == '\\' || r == '%' {
			return "", false
		}
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
		return "", false
	}
	return strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")), true
}

func (c *Condition) matchTool(name string) bool {
	if c.tool == name || !strings.HasPrefix(name, "mcp__") && c.tool == canonicalTool(name) {
		return true
	}
	// "mcp__server" covers every tool of that server.
	return strings.HasPrefix(c.tool, "mcp__") && !strings.Contains(strings.TrimPrefix(c.tool, "mcp__"), "__") &&
		strings.HasPrefix(name, c.tool+"__")
}

// Selector decides whether a handler takes part in one event.
type Selector struct {
	event   string
	matcher *Matcher
	cond    *Condition
}

// NewSelector compiles a handler's matcher and condition; it fails for a
// handler with a Problem about either (such a handler never runs).
func NewSelector(h Handler) (*Selector, error) {
	m, err := CompileMatcher(h.Matcher)
	if err != nil {
		return nil, err
	}
	s := &Selector{event: h.Event, matcher: m}
	if h.If != "" {
		if s.cond, err = ParseCondition(h.If); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Selects reports whether the handler runs for a payload (quiver's
// fields, as raw JSON): Stop handlers for the main agent and SubagentStop
// ones for subagents, the matcher against the event's field (tool_name,
// source), the condition against the tool call. project and home resolve
// the condition's relative paths.
func (s *Selector) Selects(p map[string]json.RawMessage, project, home string) bool {
	str := func(k string) string {
		var v string
		json.Unmarshal(p[k], &v)
		return v
	}
	if !Selects(s.event, str("invoked_by")) {
		return false
	}
	if s.cond != nil && !ToolEvent(s.event) {
		return false // as Claude skips a handler whose `if` cannot be evaluated
	}
	if MatchField(s.event) != "" && !s.matcher.Match(MatchValue(s.event, str)) {
		return false
	}
	return s.cond == nil || s.cond.Match(str("tool_name"), p["tool_input"], str("cwd"), project, home)
}
