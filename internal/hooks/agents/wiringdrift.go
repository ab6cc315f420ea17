package agents

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/audit"
	"github.com/quiver-cli/quiver/internal/term"
)

// The agents room's check for `quiver audit` (SPEC §17): what the scope's
// wiring record (agents.yaml) says quiver made in each wired agent's
// files, compared with those files now. Every finding is a warning: the
// agent's files are the user's, and what changed there may be their
// choice; the audit says that quiver's hooks may no longer run. A setting
// that switches off what quiver wired (Silenced) is an error: the guards
// do not run, whoever wrote it.

// Rule ids of DriftCheck.
const (
	RuleAgentConfigMissing    = "quiver/agents/config-missing"
	RuleAgentConfigUnreadable = "quiver/agents/config-unreadable"
	RuleAgentEntriesMissing   = "quiver/agents/entries-missing"
	RuleAgentEntriesChanged   = "quiver/agents/entries-changed"
	RuleAgentMemberChanged    = "quiver/agents/member-changed"
	RuleAgentLinkChanged      = "quiver/agents/link-changed"
	RuleAgentSilenced         = "quiver/agents/silenced"
)

// WiringRules are the rules DriftCheck reports.
var WiringRules = []audit.Rule{
	{ID: RuleAgentConfigMissing, Severity: audit.Warning,
		Description: "A wired agent's configuration file is gone, and quiver's entries with it"},
	{ID: RuleAgentConfigUnreadable, Severity: audit.Warning,
		Description: "A wired agent's configuration (or quiver's record of it) cannot be read"},
	{ID: RuleAgentEntriesMissing, Severity: audit.Warning,
		Description: "A wired agent's configuration lost quiver's entries for some events"},
	{ID: RuleAgentEntriesChanged, Severity: audit.Warning,
		Description: "A wired agent's configuration holds quiver's entries, but not as quiver writes them"},
	{ID: RuleAgentMemberChanged, Severity: audit.Warning,
		Description: "A member quiver keeps in an agent's file (an MCP server, a plugin route) is gone or edited"},
	{ID: RuleAgentLinkChanged, Severity: audit.Warning,
		Description: "A skill, command or subagent quiver keeps in an agent's folder is gone or replaced"},
	{ID: RuleAgentMachinePath, Severity: audit.Error,
		Description: "A committed agent file names a path of the machine that wrote it (quiver by an absolute path, mcp exec --project /path, an installed plugin's path), or is Claude Code's personal settings"},
	{ID: RuleAgentSilenced, Severity: audit.Error, SecuritySeverity: "8.0",
		Description: "A setting in an agent's files keeps it from running what quiver wired (Claude Code's disableAllHooks, Gemini CLI's hooksConfig.enabled, ...)"},
}

// DriftCheck compares, for every agent the record of scope s names, the
// agent's files with what quiver made there: the configuration gone or
// unreadable; events of quiver's that no entry calls quiver for any more
// (§8's six always, the others while an installed hook handles them);
// entries of quiver's that quiver would not write (editedEntries), a
// setting it needs removed, a handler it handed the agent (recorded by
// hash) gone or edited; the members it keeps in the agent's other files
// (MCP servers), and the skill, command and subagent links and copies it
// keeps in the agent's folders. It changes nothing.
func (w *Wirer) DriftCheck(s plugins.Scope) audit.Check {
	c := audit.Check{Name: "agents", Rules: WiringRules}
	path := filepath.Join(s.MachineDir(), wiring.RecordFile)
	rec, err := wiring.ReadRecord(path)
	if err != nil {
		c.Message = "the record of wired agents cannot be read"
		c.Findings = []audit.Finding{{Rule: RuleAgentConfigUnreadable, Severity: audit.Warning, File: path, Message: err.Error()}}
		return c
	}
	wired, drifted := 0, 0
	for _, name := range rec.Names() {
		ag, err := Lookup(name)
		if err != nil {
			continue // an agent this quiver does not know: never acted on
		}
		wired++
		site := w.Site(ag, s.Location == plugins.Global)
		entry := rec.Agents[name]
		var fs []audit.Finding
		fs = append(fs, w.entryDrift(site, entry)...)
		fs = append(fs, w.memberDrift(site, entry)...)
		fs = append(fs, linkDrift(site, entry)...)
		fs = append(fs, w.silencedFindings(site)...)
		if len(fs) > 0 {
			drifted++
		}
		c.Findings = append(c.Findings, fs...)
	}
	// A configuration that calls quiver with no record of this machine
	// (a project a teammate wired, a fresh CI checkout) is judged by its
	// content alone: what in it keeps quiver's guards from running.
	committed := 0
	for _, ag := range All() {
		if rec.Agents[ag.Name] != nil {
			continue
		}
		site := w.Site(ag, s.Location == plugins.Global)
		fs := w.silencedFindings(site)
		if data, ok, err := ReadConfig(site.Config); err == nil && ok {
			if calls, _ := WiredIn(ag, data); calls || len(fs) > 0 {
				committed++
			}
		}
		c.Findings = append(c.Findings, fs...)
	}
	if s.Location == plugins.Local {
		c.Findings = append(c.Findings, w.PortabilityCheck()...)
	}
	c.Message = fmt.Sprintf("%s, %d changed since quiver wired them", term.Count(wired, "wired agent"), drifted)
	if committed > 0 {
		c.Message += fmt.Sprintf("; %d more call quiver from the project's files", committed)
	}
	return c
}

// silencedFindings are the Silenced findings of the agent of site, while
// its configuration calls quiver at all (one that does not is reported
// as such, not as silenced).
func (w *Wirer) silencedFindings(site Site) []audit.Finding {
	var out []audit.Finding
	if site.Agent.hookFile == nil {
		data, ok, err := ReadConfig(site.Config)
		if err != nil || !ok {
			return nil
		}
		if site.Agent.fileProblem != nil {
			if p := site.Agent.fileProblem(data); p != "" {
				// The agent skips the whole file: nothing of quiver's
				// in it runs.
				return []audit.Finding{{Rule: RuleAgentSilenced, Severity: audit.Error, File: site.Config,
					Message: fmt.Sprintf("%s skips this whole file, quiver's entries with it: %s", site.Agent.Title, p)}}
			}
		}
		if wired, _ := WiredIn(site.Agent, data); !wired {
			return nil
		}
	}
	for _, sl := range w.Silenced(site) {
		out = append(out, audit.Finding{Rule: RuleAgentSilenced, Severity: audit.Error, File: sl.File,
			Message: fmt.Sprintf("%s is wired, but this keeps it from running what quiver wired: %s", site.Agent.Title, sl.Reason)})
	}
	return out
}

// installAgain is the command that writes the agent's entries again as
// the record says they were written.
func installAgain(site Site, entry *wiring.AgentRecord) string {
	cmd := "quiver agent install " + site.Agent.Name + flagFor(site.Scope.Location)
	if entry.Command != "" && entry.Command != "quiver" {
		cmd += " --command " + entry.Command
	}
	if entry.AllowRewrites {
		cmd += " --allow-rewrites"
	}
	return cmd
}

// entryDrift compares the agent's configuration with the entries quiver
// keeps there.
func (w *Wirer) entryDrift(site Site, entry *wiring.AgentRecord) []audit.Finding {
	ag := site.Agent
	finding := func(rule, format string, args ...any) []audit.Finding {
		return []audit.Finding{{Rule: rule, Severity: audit.Warning, File: site.Config, Message: fmt.Sprintf(format, args...)}}
	}
	if err := CheckConfigPath(site); err != nil {
		return finding(RuleAgentConfigUnreadable, "%s's configuration: %v", ag.Title, err)
	}
	data, ok, err := ReadConfig(site.Config)
	if err != nil {
		return finding(RuleAgentConfigUnreadable, "%s's configuration cannot be read: %v", ag.Title, err)
	}
	fix := installAgain(site, entry)
	if !ok {
		return finding(RuleAgentConfigMissing, "%s's configuration is gone, and with it quiver's entries (quiver wired it); %s writes them again, quiver agent remove %s%s forgets them",
			ag.Title, fix, ag.Name, flagFor(site.Scope.Location))
	}
	command := cmp.Or(entry.Command, "quiver")
	if ag.hookFile != nil {
		if wiring.DataHash(data) != entry.Hash && !bytes.Equal(data, ag.hookFile(ag, command, entry.AllowRewrites)) {
			return finding(RuleAgentEntriesChanged, "%s's hooks program is not the one quiver wrote (edited since); %s writes it again once you remove it", ag.Title, fix)
		}
		return nil
	}
	if wired, problem := WiredIn(ag, data); problem != "" {
		return finding(RuleAgentConfigUnreadable, "%s's configuration: %s", ag.Title, problem)
	} else if !wired {
		return finding(RuleAgentEntriesMissing, "%s's configuration no longer calls quiver (quiver wired it); %s writes the entries again", ag.Title, fix)
	}
	doc, err := wiring.ParseDoc(data, ag.Syntax)
	if err != nil {
		return finding(RuleAgentConfigUnreadable, "%s's configuration: %v", ag.Title, err)
	}
	var u Uses // no hook known: the six events alone are wanted
	if d, err := w.Docs(); err == nil {
		u = d.usesFor(site.Scope.Location)
	}
	var missing, changed []string
	for _, ev := range ag.Events() {
		if (core(ev) || u.of(ev).Listens) && !calls(ag, ev, []*wiring.Doc{doc}) {
			missing = append(missing, ev.Native)
		}
	}
	if len(missing) > 0 {
		return finding(RuleAgentEntriesMissing, "%s's configuration has no entry calling quiver for %s; %s writes them again", ag.Title, strings.Join(missing, ", "), fix)
	}
	changed = editedEntries(ag, doc, command, entry.AllowRewrites)
	for _, s := range ag.Settings {
		if doc.Get(s.Keys...) == nil {
			changed = append(changed, strings.Join(s.Keys, "."))
		}
	}
	if unheld, err := wiring.Unheld(data, ag.Syntax, ownNative(ag, entry.Native)); err != nil {
		return finding(RuleAgentConfigUnreadable, "%s's configuration: %v", ag.Title, err)
	} else if len(unheld) > 0 {
		changed = append(changed, fmt.Sprintf("%s quiver handed it (prompt, agent, mcp_tool)", term.Count(len(unheld), "handler")))
	}
	if len(changed) > 0 {
		return finding(RuleAgentEntriesChanged, "%s's configuration holds quiver's entries, but not as quiver writes them: %s; %s writes them again", ag.Title, strings.Join(changed, ", "), fix)
	}
	return nil
}

// editedEntries names the events (by the agent's names) whose arrays hold
// an entry of quiver's (one running its command) that quiver would not
// write with this command: a matcher narrowed, a field added, a flag
// added to the command. Timeouts are left out of the comparison: quiver
// sets them from the installed hooks, which change without the entries
// being rewritten (a pull, another trust), and a timeout changes which
// hooks finish, not which run.
func editedEntries(ag *Agent, doc *wiring.Doc, command string, allowRewrites bool) []string {
	type array struct {
		keys  []string
		event string
		forms map[string]bool
	}
	var arrays []*array
	byKeys := map[string]*array{}
	for _, ev := range ag.Events() {
		k := strings.Join(ag.keys(ev), "\x00")
		a := byKeys[k]
		if a == nil {
			a = &array{keys: ag.keys(ev), event: ev.Native, forms: map[string]bool{}}
			byKeys[k] = a
			arrays = append(arrays, a)
		}
		ag.addForms(a.forms, ev, command, allowRewrites)
	}
	var out []string
	for _, a := range arrays {
		elems, err := doc.Array(a.keys...)
		if err != nil {
			out = append(out, a.event)
			continue
		}
		for _, el := range elems {
			if wiring.CommandsRun(el, ag.Writes) && !a.forms[withoutTimeouts(el)] {
				out = append(out, a.event)
				break
			}
		}
	}
	return out
}

// addForms adds to forms the entries quiver writes for ev with command,
// in the canonical form of withoutTimeouts: the ordinary one, and, for an
// agent that runs background handlers itself, the ones beside it.
func (a *Agent) addForms(forms map[string]bool, ev Event, command string, allowRewrites bool) {
	forms[withoutTimeouts(a.entry(a, ev, a.commandWith(command, ev, allowRewrites, ""), Timeout))] = true
	if a.asyncEntry != nil {
		forms[withoutTimeouts(a.entry(a, ev, a.commandWith(command, ev, allowRewrites, "--async-elsewhere"), Timeout))] = true
		for _, k := range []struct{ flag, field string }{{"--async-only", "async"}, {"--async-rewake", "asyncRewake"}} {
			forms[withoutTimeouts(a.asyncEntry(a, ev, a.commandWith(command, ev, allowRewrites, k.flag), Timeout, k.field))] = true
		}
	}
}

// withoutTimeouts is a JSON value in a canonical form, without the
// fields whose name says timeout, at any depth.
func withoutTimeouts(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	var strip func(v any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if strings.Contains(strings.ToLower(k), "timeout") {
					delete(x, k)
					continue
				}
				strip(e)
			}
		case []any:
			for _, e := range x {
				strip(e)
			}
		}
	}
	strip(v)
	out, _ := json.Marshal(v)
	return string(out)
}

// memberDrift compares the members quiver keeps in the agent's other
// files (MCP servers, Claude Code's plugin route) with what it recorded
// writing; only files the adapter names for the site are read.
func (w *Wirer) memberDrift(site Site, entry *wiring.AgentRecord) []audit.Finding {
	if !site.Agent.hasPartFiles() {
		return nil
	}
	formats := map[string]FileMembers{}
	for _, f := range site.Agent.partFilesOf(w, site) {
		formats[f.Path] = f
	}
	var out []audit.Finding
	add := func(file, format string, args ...any) {
		out = append(out, audit.Finding{Rule: RuleAgentMemberChanged, Severity: audit.Warning, File: file, Message: fmt.Sprintf(format, args...)})
	}
	for _, f := range entry.Files {
		format, ok := formats[f.Path]
		if !ok || len(f.Members) == 0 {
			continue
		}
		data, ok, err := ReadConfig(f.Path)
		if err != nil {
			add(f.Path, "%s's file of quiver's members cannot be read: %v", site.Agent.Title, err)
			continue
		}
		if !ok {
			add(f.Path, "%s's file that quiver kept %s in is gone; quiver agent sync writes them again", site.Agent.Title, term.Count(len(f.Members), "member"))
			continue
		}
		gone, changed, err := wiring.Drifted(data, format.Syntax, format.TOML, f.Members)
		if err != nil {
			add(f.Path, "%s's file of quiver's members: %v", site.Agent.Title, err)
			continue
		}
		for _, keys := range gone {
			add(f.Path, "%s, which quiver wrote for %s, is gone; quiver agent sync writes it again", strings.Join(keys, "."), site.Agent.Title)
		}
		for _, keys := range changed {
			add(f.Path, "%s, which quiver wrote for %s, was changed since: it is yours now, and quiver leaves it so until you remove it", strings.Join(keys, "."), site.Agent.Title)
		}
	}
	return out
}

// linkDrift checks the links and copies quiver keeps in the agent's own
// folders (only those: the record may have come with a repository).
func linkDrift(site Site, entry *wiring.AgentRecord) []audit.Finding {
	var out []audit.Finding
	for _, l := range ownLinks(site, entry.Links) {
		if wiring.Intact(site.Base, l) {
			continue
		}
		out = append(out, audit.Finding{Rule: RuleAgentLinkChanged, Severity: audit.Warning, File: filepath.Join(site.Base, filepath.FromSlash(l.Path)),
			Message: fmt.Sprintf("%s, which quiver keeps for %s (%s), is gone or replaced; quiver agent sync puts back one that is gone", l.Path, site.Agent.Title, l.Item)})
	}
	return out
}
