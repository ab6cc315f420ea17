// Package agents describes the agents quiver wires itself into (Claude
// Code, Codex, Gemini CLI, Cursor, GitHub Copilot CLI, OpenCode) and
// translates at their edge (SPEC
// §13): an agent's native hook input becomes quiver's event and payload,
// and quiver's combined result becomes the output and exit code that agent
// reads. The translations are pure functions over bytes and plain data,
// tested against the agents' published formats; the trigger in between is
// the same one `hook run` uses.
//
// Where each fact comes from is in docs/agents.md.
package agents

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/lazy"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
)

// Event is one of an agent's events that quiver answers.
type Event struct {
	// Native is the agent's name for it (PreToolUse, BeforeTool, ...).
	Native string
	// Quiver is quiver's event.
	Quiver string
}

// Call is one event as an agent sent it, in quiver's terms.
type Call struct {
	// Event is quiver's event; Native the agent's name for it.
	Event, Native string
	Payload       hooks.Payload
}

// Options change how a result is answered.
type Options struct {
	// AllowRewrites lets a rewritten tool input go ahead without asking
	// the user (agent install --allow-rewrites).
	AllowRewrites bool
}

// Answer is what quiver prints to the agent and the exit code it uses.
type Answer struct {
	Stdout []byte
	// Stderr is shown by agents that read it on a non-zero exit.
	Stderr string
	Exit   int
}

// Agent is what quiver knows of one agent.
type Agent struct {
	// Name is what `agent install` takes; Title is for people.
	Name, Title string
	// Programs are the names the agent's program goes by on PATH, and
	// Home its folder in the home folder: either found says the agent is
	// on this machine (agent install --all).
	Programs []string
	Home     string
	// ConfigLocal is the configuration file, relative to the project;
	// ConfigGlobal relative to the home folder.
	ConfigLocal, ConfigGlobal string
	// Syntax: the agent reads JSON with comments in that file.
	Syntax wiring.Syntax
	// events are the events quiver wires, in the order written (Events);
	// eventsFrom builds them at first use instead.
	events     []Event
	eventsFrom *lazy.Value[[]Event]
	// TimeoutUnit is the unit of the agent's timeout field.
	TimeoutUnit time.Duration
	// SkillsDir is where the agent reads skills (relative to the project
	// or home); CommandsDir where it reads recipes as commands ("" when
	// it has no such folder).
	SkillsDir, CommandsDir string
	// CommandSuffix ends a command's file name (".md" when empty);
	// AgentsDir is where the agent reads subagents ("" when quiver
	// gives it none), as files ending in AgentSuffix.
	CommandSuffix, AgentsDir, AgentSuffix string
	// NoCommands, for an agent without a command folder, says why, for
	// the commands that then do not reach it (agent list's missed).
	NoCommands string
	// NoLSP, for an agent that starts no LSP servers, says so, for the
	// servers that then do not reach it; OutputStyles: the agent takes
	// plugins' output styles (Claude Code only).
	NoLSP        string
	OutputStyles bool
	// SkillsToo are other agents' skill folders this agent reads as well
	// (Copilot and OpenCode read .claude/skills): a skill quiver keeps
	// there for another wired agent reaches this one already, and is not
	// written a second time (SPEC §16: each item reaches an agent once).
	SkillsToo []string
	// User, when set, are the folders at user scope (relative to the
	// home folder), for an agent whose user folders are not its
	// project's (~/.copilot/agents beside .github/agents).
	User *Dirs
	// Settings are keys quiver sets when absent for hooks to work (a
	// format version, a switch), as dotted paths and JSON values.
	Settings []Setting
	// fileProblem says why the agent would not read its configuration
	// file data at all though it parses ("" when it would): Claude Code
	// skips a settings file one key of which its schema rejects. nil for
	// an agent that reads what parses.
	fileProblem func(data []byte) string
	// ProjectVar is the agent's own variable for its project that it
	// expands in a server's arguments ("" for none): how a committed file
	// names the project on every machine (Cursor's ${workspaceFolder}).
	ProjectVar string
	// RootEnv are the variables, in order, in which the agent tells its
	// hooks the session's project folder; RootInput the input fields
	// (a string, or a list whose first string counts).
	RootEnv, RootInput []string

	// entry builds the configuration element for one event, and keys
	// leads to the array that holds it.
	entry func(a *Agent, ev Event, command string, timeout time.Duration) json.RawMessage
	keys  func(ev Event) []string
	// decode reads the agent's input for the native event; encode answers.
	decode func(ev Event, input map[string]json.RawMessage) hooks.Payload
	encode func(c Call, r *hooks.Result, o Options) Answer
	// asyncEntry, for an agent that runs hooks in the background itself
	// (Claude's "async" and "asyncRewake"), is the entry beside ev's
	// ordinary one that runs ev's background handlers of one kind (field
	// names it): quiver wires it only while some handler needs it, and
	// the ordinary entry then leaves them to it (SPEC §15).
	asyncEntry func(a *Agent, ev Event, command string, timeout time.Duration, field string) json.RawMessage
	// shell: the agent runs a hook's command through a shell, so the
	// command quiver writes carries a tail that answers for quiver when
	// quiver cannot be started (guardTail). blocking lists the events
	// the agent lets a hook block, for an agent whose list is not quiver's
	// table (nil: format.Event.Blocks).
	shell    bool
	blocking []string
	// native: the agent runs Claude Code's own handler types (prompt,
	// agent, mcp_tool) written into its configuration, and quiver hands
	// it the trusted ones (claudenative.go).
	native bool
	// command and subagent translate a Claude-format command or subagent
	// into the agent's format (nil: it takes them as they are).
	command, subagent translator
	// syntax spells a command's body the agent's way (cmdsyntax.go): nil
	// for an agent that reads Claude's.
	syntax commandSyntax
	// hookFile is set for an agent that has no hook configuration but
	// loads programs (OpenCode's JavaScript plugins): the configuration
	// (ConfigLocal, ConfigGlobal) is then a program quiver generates
	// whole, calling quiver (command, allowRewrites) at each event.
	// quiver records its hash, and replaces or removes it only while it
	// is unchanged; keys, entry and Settings are unused.
	hookFile func(a *Agent, command string, allowRewrites bool) []byte

	// parts plans what else of the scope's plugins reaches the agent
	// (parts.go); partFiles are the files it may keep members in for a
	// site and how each is written (no members), the only ones quiver
	// ever touches from the record; cleanup
	// removes what the adapter made outside the agent's files when the
	// agent is removed. All nil for an agent that takes only hooks,
	// skills and commands.
	// An agent whose parts are MCP servers only names its format in
	// mcp instead (planParts, partFilesOf).
	parts     func(w *Wirer, site Site, d Docs, quiver string) (Plan, error)
	partFiles func(w *Wirer, site Site) []FileMembers
	mcp       *mcpFormat
	cleanup   func(site Site) error
	// gate says why the agent ignores what quiver wrote for the site
	// (entry, nil when nothing is recorded) until the user opens a gate
	// of the agent's own, and how ("" when nothing waits on one): Codex's
	// trusted projects, Gemini's trusted folders. quiver never opens
	// them itself (SPEC §16); agent install and agent list say so.
	gate func(w *Wirer, site Site, entry *wiring.AgentRecord) string
	// silenced lists the settings in the agent's own files that keep it
	// from running quiver's entries or servers (silenced.go): Claude's
	// disableAllHooks, Gemini's hooksConfig.enabled, a disabled list
	// naming quiver's. nil for an agent that has none.
	silenced func(w *Wirer, site Site) []Silence
	// caveat is what agent install tells the person about the agent's
	// own handling of quiver's entries that no file quiver reads can
	// show ("" for nothing): Codex's review of each hook, headless
	// Gemini CLI waiting forever on a confirmation. Measured facts,
	// docs/agents.md.
	caveat func(site Site, o InstallOptions) string

	// writes matches the commands quiver writes (see Writes), compiled
	// on first use: hook run never needs it.
	writesOnce sync.Once
	writes     *regexp.Regexp
}

// AgentsDocURL is the page that says what each agent takes, named where
// a message points at it: a go install user has no docs/ folder.
const AgentsDocURL = "https://github.com/quiver-cli/quiver/blob/main/docs/agents.md"

// Events are the events quiver wires for the agent, in the order written.
func (a *Agent) Events() []Event {
	if a.eventsFrom != nil {
		return a.eventsFrom.Get()
	}
	return a.events
}

// Dirs are the folders, relative to the project (or to the home folder),
// where an agent reads skills, commands and subagents ("" for none).
type Dirs struct {
	Skills, Commands, Agents string
	// SkillsToo: see Agent.SkillsToo.
	SkillsToo []string
}

// Dirs are the agent's folders in a scope.
func (a *Agent) Dirs(l plugins.Location) Dirs {
	if l == plugins.Global && a.User != nil {
		return *a.User
	}
	return Dirs{Skills: a.SkillsDir, Commands: a.CommandsDir, Agents: a.AgentsDir, SkillsToo: a.SkillsToo}
}

// Setting is a key an agent needs set for quiver's hooks to run.
type Setting struct {
	Keys  []string
	Value json.RawMessage
}

// All lists the agents, by name.
func All() []*Agent { return []*Agent{Claude, Codex, Copilot, Cursor, Gemini, OpenCode} }

// Found lists the agents on this machine: a program of theirs on PATH
// (lookPath, exec.LookPath in quiver) or their folder in home; why says,
// per agent, which.
func Found(home string, lookPath func(string) (string, error)) (found []*Agent, why map[string]string) {
	why = map[string]string{}
	for _, a := range All() {
		for _, p := range a.Programs {
			if path, err := lookPath(p); err == nil {
				why[a.Name] = path
				break
			}
		}
		if why[a.Name] == "" && a.Home != "" {
			if fi, err := os.Stat(filepath.Join(home, filepath.FromSlash(a.Home))); err == nil && fi.IsDir() {
				why[a.Name] = filepath.Join("~", filepath.FromSlash(a.Home))
			}
		}
		if why[a.Name] != "" {
			found = append(found, a)
		}
	}
	return found, why
}

// Names lists the agents' names.
func Names() []string {
	var n []string
	for _, a := range All() {
		n = append(n, a.Name)
	}
	return n
}

// Lookup finds an agent by name.
func Lookup(name string) (*Agent, error) {
	for _, a := range All() {
		if a.Name == name {
			return a, nil
		}
	}
	return nil, fmt.Errorf("unknown agent %q; want one of %s", name, strings.Join(Names(), ", "))
}

// Marker is what every command quiver writes for the agent contains: how
// quiver recognises its own entries.
func (a *Agent) Marker() string { return "hook run --format " + a.Name }

// Writes reports whether command is one quiver writes for this agent:
// one word (the quiver to run, maybe quoted), then exactly "hook run
// --format AGENT [--allow-rewrites] EVENT", then, for an agent that runs
// it through a shell, nothing or exactly the tail quiver writes for that
// event when quiver cannot run (guardTail). A command of the user's own
// that calls quiver with other flags (--fail-closed) is theirs, and is
// never changed or removed.
func (a *Agent) Writes(command string) bool {
	_, ok := a.written(command)
	return ok
}

// WritesFor reports whether command is one quiver writes for event ev
// (quiver's name) of this agent.
func (a *Agent) WritesFor(command, ev string) bool {
	got, ok := a.written(command)
	return ok && got == ev
}

// written is the quiver event command answers, when it is a command quiver
// writes (see Writes).
func (a *Agent) written(command string) (event string, ok bool) {
	a.writesOnce.Do(func() {
		word := `(?:'(?:[^']|'\\'')*'|[^\s']+)`
		var evs []string
		for _, ev := range a.Events() {
			evs = append(evs, regexp.QuoteMeta(ev.Quiver))
		}
		a.writes = regexp.MustCompile(`^` + word + ` ` + regexp.QuoteMeta(a.Marker()) + `(?: --allow-rewrites)?(?: --async-(?:elsewhere|only|rewake))? (` + strings.Join(evs, "|") + `)( \|\| \{ .*)?$`)
	})
	m := a.writes.FindStringSubmatch(command)
	if m == nil {
		return "", false
	}
	if m[2] != "" {
		ev, err := a.Resolve(m[1])
		if err != nil || m[2] != a.guardTail(ev, false) && m[2] != a.guardTail(ev, true) {
			return "", false
		}
	}
	return m[1], true
}

// Command is the command line the agent runs for ev.
func (a *Agent) Command(quiver string, ev Event, allowRewrites bool) string {
	return a.commandWith(quiver, ev, allowRewrites, "")
}

// commandWith is Command with a flag of hook run's for background handlers
// (--async-elsewhere, --async-only, --async-rewake; "" for none).
func (a *Agent) commandWith(quiver string, ev Event, allowRewrites bool, async string) string {
	cmd := shellQuote(quiver) + " " + a.Marker()
	if allowRewrites {
		cmd += " --allow-rewrites"
	}
	if async != "" {
		cmd += " " + async
	}
	return cmd + " " + ev.Quiver + a.guardTail(ev, backgroundCommand(cmd))
}

// A guard that cannot run blocks (SPEC §9, issue 42): an agent started
// from an IDE, a GUI or another shell profile often has a PATH without
// quiver, and every agent but Copilot runs on when a hook's command is
// not found (exit 127), so the user's guards would be skipped. An agent
// that runs quiver's command through a shell (Claude Code /bin/sh -c,
// Codex and Gemini CLI bash -c, Copilot bash) gets it followed by a tail
// that answers for quiver when quiver could not be started (the shell's
// 126 and 127, or a signal): the agent's own "block" for an event that
// can block, with one line saying how to mend it; nothing, and exit 0,
// for one that cannot (Gemini CLI takes any other exit with text on
// stderr as a deny, and on AfterAgent that loops forever). Cursor takes
// failClosed in its entry instead, OpenCode's plugin throws
// (docs/agents.md).

// cannotRun is what a guard says when quiver cannot be started.
func (a *Agent) cannotRun() string {
	return fmt.Sprintf("quiver could not be started, so the guards it runs block this: put quiver on the PATH %s starts with, or run quiver agent install %s --command /absolute/path/to/quiver", a.Title, a.Name)
}

// guardTail is what follows quiver's command for event ev in an agent that
// runs it through a shell ("" for one that does not); quiet asks for the
// tail of an entry that cannot block (background handlers).
func (a *Agent) guardTail(ev Event, quiet bool) string {
	if !a.shell {
		return ""
	}
	// No "&&": JSON encoders write it as \u0026\u0026, unreadable in the
	// person's settings.
	const ran = ` || { s=$?; [ "$s" -ge 126 ] || exit "$s"; `
	if quiet || !a.guards(ev) {
		return ran + `exit 0; }`
	}
	ans := a.encode(Call{Event: ev.Quiver, Native: ev.Native}, blockedBy(a.cannotRun()), Options{})
	tail := ran
	if len(ans.Stdout) > 0 {
		tail += "printf '%s\\n' " + shellQuote(string(ans.Stdout)) + "; "
	}
	if ans.Stderr != "" {
		tail += "printf '%s\\n' " + shellQuote(ans.Stderr) + " >&2; "
	}
	return tail + fmt.Sprintf("exit %d; }", ans.Exit)
}

// blockedBy is a result that blocks for reason, quiver's own.
func blockedBy(reason string) *hooks.Result { return &hooks.Result{Blocked: true, Reason: reason} }

// guards reports the events whose entry blocks when quiver cannot run:
// those the agent lets a hook block (blocking), else those that block in
// quiver's table, but for the ones where a block means "keep going"
// (Claude's TeammateIdle and TaskCompleted, like Stop), which would loop.
func (a *Agent) guards(ev Event) bool {
	if a.blocking != nil {
		return slices.Contains(a.blocking, ev.Quiver)
	}
	e, ok := format.Lookup(ev.Quiver)
	return ok && e.Blocks && ev.Quiver != format.TeammateIdle && ev.Quiver != format.TaskCompleted
}

// Timeout is the time the agent gives quiver for one event: the agent
// kills a slower command, and most then carry on as if nothing was said.
// quiver's own per-hook limit (30 s) is far below it.
const Timeout = 10 * time.Minute

// Entry is the configuration element for ev and the keys leading to the
// array that holds it.
func (a *Agent) Entry(ev Event, command string) (keys []string, elem json.RawMessage) {
	return a.keys(ev), a.entry(a, ev, command, Timeout)
}

// timeoutIn writes d in the agent's unit.
func (a *Agent) timeoutIn(d time.Duration) int64 { return int64(d / a.TimeoutUnit) }

// Resolve finds the event a `hook run --format` argument names: quiver's
// event name (what agent install writes) or the agent's own.
func (a *Agent) Resolve(name string) (Event, error) {
	for _, ev := range a.Events() {
		if ev.Quiver == name || ev.Native == name {
			return ev, nil
		}
	}
	var names []string
	for _, ev := range a.Events() {
		names = append(names, ev.Quiver+" ("+ev.Native+")")
	}
	return Event{}, fmt.Errorf("%s has no event %q that quiver answers; want one of %s", a.Title, name, strings.Join(names, ", "))
}

// SessionRoot is the folder the agent's session works in, as the agent
// tells its hooks (its environment, else its input), or "" when it does
// not say. hook run --format takes the project from it, not from the
// working directory, so a cd into a nested clone or /tmp during the
// session cannot trade the project's guards for another's (SPEC §9).
func (a *Agent) SessionRoot(getenv func(string) string, input []byte) string {
	for _, k := range a.RootEnv {
		if v := getenv(k); v != "" {
			return v
		}
	}
	if len(a.RootInput) == 0 {
		return ""
	}
	in := map[string]json.RawMessage{}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	for _, k := range a.RootInput {
		var one string
		if json.Unmarshal(in[k], &one) == nil && one != "" {
			return one
		}
		var list []string
		if json.Unmarshal(in[k], &list) == nil && len(list) > 0 && list[0] != "" {
			return list[0]
		}
	}
	return ""
}

// Decode reads the agent's native input for the event named by arg. An
// empty input is an empty object. Fields quiver does not know pass
// through to the hooks untouched.
func (a *Agent) Decode(arg string, input []byte) (Call, error) {
	ev, err := a.Resolve(arg)
	if err != nil {
		return Call{}, err
	}
	in := map[string]json.RawMessage{}
	if len(strings.TrimSpace(string(input))) > 0 {
		if err := json.Unmarshal(input, &in); err != nil || in == nil {
			return Call{}, hooks.ErrPayload
		}
	}
	// The event the input names picks among events that share quiver's
	// (Stop and SubagentStop are both agent_stop).
	if named := str(in, "hook_event_name"); named != "" && named != ev.Native {
		for _, other := range a.Events() {
			if other.Native == named && other.Quiver == ev.Quiver {
				ev = other
			}
		}
	}
	p := a.decode(ev, in)
	delete(p, "event")
	p["event"], _ = json.Marshal(ev.Quiver)
	return Call{Event: ev.Quiver, Native: ev.Native, Payload: p}, nil
}

// Encode answers the agent with quiver's combined result.
func (a *Agent) Encode(c Call, r *hooks.Result, o Options) Answer { return a.encode(c, r, o) }

// ---- helpers shared by the formats ----

func str(m map[string]json.RawMessage, k string) string {
	var s string
	json.Unmarshal(m[k], &s)
	return s
}

// rename copies from to to (when to is absent); the original stays, as
// unknown fields pass through.
func rename(m map[string]json.RawMessage, from, to string) {
	if v, ok := m[from]; ok {
		if _, has := m[to]; !has {
			m[to] = v
		}
	}
}

func setString(m map[string]json.RawMessage, k, v string) {
	m[k], _ = json.Marshal(v)
}

// texts joins context or notices, each piece naming the hook that wrote
// it, so the model (or the person) can tell them apart.
func texts(list *[]hooks.Text) string {
	if list == nil {
		return ""
	}
	var parts []string
	for _, t := range *list {
		if t.Text == "" {
			continue
		}
		parts = append(parts, "["+t.Hook+"] "+t.Text)
	}
	return strings.Join(parts, "\n\n")
}

// followUps joins agent_stop's follow-up messages: strings as they are,
// anything else as its JSON.
func followUps(r *hooks.Result) string {
	if r.FollowUpMessages == nil {
		return ""
	}
	var parts []string
	for _, raw := range *r.FollowUpMessages {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			parts = append(parts, s)
		} else {
			parts = append(parts, string(raw))
		}
	}
	return strings.Join(parts, "\n\n")
}

// keepGoing is the message that keeps an agent going after agent_stop:
// the follow-ups, then the context, which has no other way to reach the
// model on a stop; "" when no hook asked to go on (context alone never
// keeps an agent going).
func keepGoing(r *hooks.Result, context string) string {
	msg := followUps(r)
	if msg == "" {
		return ""
	}
	return joinNonEmpty(msg, context)
}

// joinNonEmpty joins two texts with a blank line, leaving out an empty one.
func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}

// rewriteReason is what the agent shows when it asks about a rewritten
// tool call.
const rewriteReason = "quiver hooks rewrote this tool call; approve the new input to run it"

func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte("{}")
	}
	return b
}

// shellQuote quotes a path for sh -c when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@%=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// The quiver events, by their discovery names.
const (
	sessionStart    = format.SessionStart
	beforeToolCall  = format.BeforeToolCall
	afterToolCall   = format.AfterToolCall
	userMessageSend = format.UserMessageSend
	agentStop       = format.AgentStop
)

// StableQuiver is exe, the running quiver, as agent install -g writes it
// by default (the user's own configuration, read by an agent that may
// start with another PATH than the shell's: an IDE, a GUI): its absolute
// path with links followed, unless it will not be there later (a go run
// build, in a go-build folder of tmp, the temporary folder, or a test
// binary), when ok is false and the bare name stays. A project's
// configuration, which the team commits, always names quiver by its bare
// name.
func StableQuiver(exe, tmp string) (path string, ok bool) {
	real, err := filepath.EvalSymlinks(exe)
	if err != nil || !filepath.IsAbs(real) {
		return "", false
	}
	if t, err := filepath.EvalSymlinks(tmp); err == nil && tmp != "" {
		if rel, err := filepath.Rel(t, real); err == nil && strings.HasPrefix(rel, "go-build") {
			return "", false
		}
	}
	if strings.Contains(real, string(filepath.Separator)+"go-build") || strings.HasSuffix(real, ".test") || filepath.Base(real) != "quiver" {
		return "", false
	}
	return real, true
}
