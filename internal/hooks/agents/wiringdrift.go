package agents

import (
	"bytes"
	"cmp"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/audit"
)

// The agents room's check for `quiver audit` (SPEC §17): what the scope's
// wiring record (agents.yaml) says quiver made in each wired agent's
// files, compared with those files now. Every finding is a warning: the
// agent's files are the user's, and what changed there may be their
// choice; the audit says that quiver's hooks may no longer run.

// Rule ids of DriftCheck.
const (
	RuleAgentConfigMissing    = "quiver/agents/config-missing"
	RuleAgentConfigUnreadable = "quiver/agents/config-unreadable"
	RuleAgentEntriesMissing   = "quiver/agents/entries-missing"
	RuleAgentEntriesChanged   = "quiver/agents/entries-changed"
	RuleAgentMemberChanged    = "quiver/agents/member-changed"
	RuleAgentLinkChanged      = "quiver/agents/link-changed"
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
}

// DriftCheck compares, for every agent the record of scope s names, the
// agent's files with what quiver made there: the configuration gone or
// unreadable; events of quiver's that no entry calls quiver for any more
// (§8's six always, the others while an installed hook handles them);
// entries that are there, but not as quiver would write them now (edited,
// or written before the installed hooks changed); the members it keeps
// in the agent's other files (MCP servers), and the skill, command and
// subagent links and copies it keeps in the agent's folders. It changes
// nothing.
func (w *Wirer) DriftCheck(s plugins.Scope) audit.Check {
	c := audit.Check{Name: "agents", Rules: WiringRules}
	path := filepath.Join(s.MachineDir(), wiring.RecordFile)
	rec, err := wiring.ReadRecord(path)
	if err != nil {
		c.Message = "the record of wired agents cannot be read"
		c.Findings = []audit.Finding{{Rule: RuleAgentConfigUnreadable, Severity: audit.Warning, File: path, Message: err.Error()}}
		return c
	}
	quiet := *w // what a dry run would warn of is not the audit's to say
	quiet.Warn = nil
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
		fs = append(fs, quiet.entryDrift(site, entry)...)
		fs = append(fs, quiet.memberDrift(site, entry)...)
		fs = append(fs, linkDrift(site, entry)...)
		if len(fs) > 0 {
			drifted++
		}
		c.Findings = append(c.Findings, fs...)
	}
	c.Message = fmt.Sprintf("%d wired agent(s), %d changed since quiver wired them", wired, drifted)
	return c
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
		if wiring.DataHash(data) != entry.Hash && !bytes.Equal(data, ag.hookFile(command, entry.AllowRewrites)) {
			return finding(RuleAgentEntriesChanged, "%s's hooks program is not the one quiver wrote (edited since); %s writes it again once you remove it", ag.Title, fix)
		}
		return nil
	}
	if wired, problem := WiredIn(ag, data); problem != "" {
		return finding(RuleAgentConfigUnreadable, "%s's configuration: %s", ag.Title, problem)
	} else if !wired {
		return finding(RuleAgentEntriesMissing, "%s's configuration no longer calls quiver (quiver wired it); %s writes the entries again", ag.Title, fix)
	}
	doc, err := wiring.ParseDoc(data, ag.Comments)
	if err != nil {
		return finding(RuleAgentConfigUnreadable, "%s's configuration: %v", ag.Title, err)
	}
	d, docsErr := w.Docs()
	var u Uses
	if docsErr == nil {
		u = d.usesFor(site.Scope.Location)
	}
	var missing []string
	for _, ev := range ag.Events {
		if (core(ev) || u.of(ev).Listens) && !calls(ag, ev, []*wiring.Doc{doc}) {
			missing = append(missing, ev.Native)
		}
	}
	if len(missing) > 0 {
		return finding(RuleAgentEntriesMissing, "%s's configuration has no entry calling quiver for %s; %s writes them again", ag.Title, strings.Join(missing, ", "), fix)
	}
	if docsErr != nil {
		return nil // what quiver would write now is not known
	}
	ch, err := wiring.Install(wiringConfig(ag, command, entry.AllowRewrites, u), data, entry.Created)
	if err == nil {
		ch, _, err = w.withNative(site, data, ch, entry.Native, d.nativeFor(site.Scope.Location))
	}
	if err != nil {
		return finding(RuleAgentConfigUnreadable, "%s's configuration: %v", ag.Title, err)
	}
	if ch.Changed {
		return finding(RuleAgentEntriesChanged, "%s's configuration holds quiver's entries, but not as quiver writes them (edited since, or written before the installed hooks changed); %s writes them again", ag.Title, fix)
	}
	return nil
}

// memberDrift compares the members quiver keeps in the agent's other
// files (MCP servers, Claude Code's plugin route) with what it recorded
// writing; only files the adapter names for the site are read.
func (w *Wirer) memberDrift(site Site, entry *wiring.AgentRecord) []audit.Finding {
	if site.Agent.partFiles == nil {
		return nil
	}
	formats := map[string]FileMembers{}
	for _, f := range site.Agent.partFiles(w, site) {
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
			add(f.Path, "%s's file that quiver kept %d member(s) in is gone; quiver agent sync writes them again", site.Agent.Title, len(f.Members))
			continue
		}
		gone, changed, err := wiring.Drifted(data, format.Comments, format.TOML, f.Members)
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
