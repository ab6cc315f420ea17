package agents

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
	"github.com/quiver-cli/quiver/internal/plugins/policy"
	"github.com/quiver-cli/quiver/internal/safefs"
	"github.com/quiver-cli/quiver/internal/term"
)

// The one transaction every adapter uses (SPEC §13, §16): merge quiver's
// entries into another program's file, record exactly what quiver made,
// keep the agent's skill and command folders in step, and undo all of it.
// An adapter (claude.go, codex.go, ...) says only what its agent reads
// and writes.

// maxConfig bounds an agent's configuration file.
const maxConfig = 4 << 20

// Site is where one agent is wired in one scope.
type Site struct {
	Agent *Agent
	Scope plugins.Scope
	// Base is the folder the agent's paths start from: the project, or
	// the home folder.
	Base string
	// Config is the agent's configuration file; Record the scope's
	// record of what quiver made (in its machine folder).
	Config, Record string
}

// SiteOf is agent ag's site in the scope a command acts on.
func SiteOf(ag *Agent, layout plugins.Layout, global bool, home string) Site {
	s := Site{Agent: ag, Scope: layout.Scope(global)}
	if s.Scope.Location == plugins.Global {
		s.Base = home
		s.Config = filepath.Join(s.Base, ag.ConfigGlobal)
	} else {
		s.Base = layout.ProjectDir
		s.Config = filepath.Join(s.Base, ag.ConfigLocal)
	}
	s.Record = filepath.Join(s.Scope.MachineDir(), wiring.RecordFile)
	return s
}

// Dirs are the agent's folders in the site's scope.
func (s Site) Dirs() Dirs { return s.Agent.Dirs(s.Scope.Location) }

// Docs are the active skills and recipes the agents' folders show, and
// whether the project's may reach them (SPEC §9: only while trusted, as
// copies of what was trusted).
type Docs struct {
	Skills, Recipes []discovery.Doc
	Trusted         bool
	// Plugins are the enabled plugins of each scope, whose servers,
	// subagents and commands reach the agents too (SPEC §16).
	Plugins map[plugins.Location][]plugins.Plugin
	// Uses says, by scope and Claude's event name, what the installed
	// and enabled hooks of each event need from the entries that call
	// quiver (uses.go).
	Uses map[plugins.Location]Uses
	// Native are the handlers Claude Code runs itself (claudenative.go).
	Native []nativeHook
}

// ActiveDocs finds the skills and recipes once, however many agents are
// then synced: each discovery walks every scope.
func ActiveDocs(o discovery.Options) func() (Docs, error) {
	return sync.OnceValues(func() (Docs, error) {
		var d Docs
		var err error
		if d.Skills, err = discovery.Skills(o); err != nil {
			return d, err
		}
		if d.Recipes, err = discovery.Recipes(o); err != nil {
			return d, err
		}
		if o.Layout.Local != nil {
			t, err := discovery.ProjectTrust(o.Layout, o.TrustAll)
			if err != nil {
				return d, err
			}
			d.Trusted = t.Trusted()
		}
		hs, err := discovery.Hooks(context.Background(), o)
		if err != nil {
			return d, err
		}
		d.Uses = usesOf(hs.Hooks)
		d.Native = nativeOf(hs.Hooks)
		d.Plugins = map[plugins.Location][]plugins.Plugin{}
		for _, s := range o.Layout.Scopes() {
			ps, err := plugins.ListPlugins(s)
			if err != nil {
				return d, err
			}
			for _, p := range ps {
				if p.Enabled() && !p.Missing {
					d.Plugins[s.Location] = append(d.Plugins[s.Location], p)
				}
			}
		}
		return d, nil
	})
}

// NewWirer is the agents' transaction for one command's scopes: the
// user's home from its environment, the active items as discovery finds
// them, and its policy.
func NewWirer(e *discovery.Env) *Wirer {
	home, _ := plugins.Home(e.Getenv)
	return &Wirer{Layout: e.Layout, Home: home, Docs: ActiveDocs(e.Options()), Warn: e.Warn,
		Getenv: e.Getenv, Policy: e.Policy(),
		OnWait: func(root string) {
			e.Wait("quiver: waiting for another quiver command to finish wiring agents in %s...", root)
		}}
}

// Wirer wires agents into one layout's scopes.
type Wirer struct {
	Layout plugins.Layout
	// Home is the user's home folder, where user-scope configurations
	// live.
	Home string
	// Docs finds the items the agents' folders show (ActiveDocs).
	Docs func() (Docs, error)
	// Warn hears what the person should know (an item that could not be
	// linked); OnWait that another quiver holds the scope's agents lock.
	Warn   func(string)
	OnWait func(scopeRoot string)
	// Getenv reads the environment agents see (CODEX_HOME moves Codex's
	// folder); nil reads none.
	Getenv func(string) string
	// Policy is the team's policy (SPEC §17): what is installed in a
	// scope must keep it before quiver wires that scope's agents. nil
	// checks nothing.
	Policy *policy.Policy
	// withheld are the roots of the scopes whose plugins Sync found
	// breaking the policy: their agents are synced without anything
	// those plugins carry, so that the policy never keeps a forbidden
	// server wired.
	withheld map[string]bool
}

// docsFor is d as the agents of site see it: without what the scope's
// plugins carry (servers, subagents, commands, skills) while they break
// the policy (withheld).
func (w *Wirer) docsFor(site Site, d Docs) Docs {
	if !w.withheld[site.Scope.Root] {
		return d
	}
	loc := site.Scope.Location
	ps := maps.Clone(d.Plugins)
	delete(ps, loc)
	d.Plugins = ps
	fromPlugin := func(doc discovery.Doc) bool { return doc.Location == loc && !doc.Plugin.IsZero() }
	d.Skills = slices.DeleteFunc(slices.Clone(d.Skills), fromPlugin)
	d.Recipes = slices.DeleteFunc(slices.Clone(d.Recipes), fromPlugin)
	return d
}

// checkPolicy refuses to wire scope s while what it has installed breaks
// the policy (policy.CheckInstalled), before anything is written.
func (w *Wirer) checkPolicy(s plugins.Scope) error {
	if w.Policy == nil {
		return nil
	}
	return w.Policy.Scope(s.Location == plugins.Global).CheckInstalled(s)
}

// Gate is what the agent of site waits on before it uses what quiver
// wrote there ("" for nothing): see Agent.gate.
func (w *Wirer) Gate(site Site, entry *wiring.AgentRecord) string {
	if site.Agent.gate == nil {
		return ""
	}
	return site.Agent.gate(w, site, entry)
}

func (w *Wirer) warn(msg string) {
	if w.Warn != nil {
		w.Warn(msg)
	}
}

// Site is agent ag's site in the scope a command acts on.
func (w *Wirer) Site(ag *Agent, global bool) Site { return SiteOf(ag, w.Layout, global, w.Home) }

// lock serializes the commands that write agents' files and a scope's
// record.
func (w *Wirer) lock(ctx context.Context, s Site) (func(), error) {
	return plugins.HoldFileMutex(ctx, filepath.Join(s.Scope.MachineDir(), ".agents.lock"), plugins.DefaultMutexWait, func() {
		if w.OnWait != nil {
			w.OnWait(s.Scope.Root)
		}
	})
}

// CheckConfigPath refuses a configuration reached through a symbolic
// link, or that is one: a repository may commit .claude as a link to your
// home's, or settings.json as a link to your global settings, and quiver
// would then edit (or leak into the work tree) a file that is not this
// scope's. A dotfiles link is refused the same way; edit what it points
// to, with --dry-run to see the result.
func CheckConfigPath(s Site) error {
	rel, err := filepath.Rel(s.Base, s.Config)
	if err != nil || strings.HasPrefix(rel, "..") {
		return fmt.Errorf("%s is not under %s", s.Config, s.Base)
	}
	if err := wiring.SafeParents(s.Base, rel, false); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if fi, err := os.Lstat(s.Config); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link; quiver does not write through links (edit the file it points to; --dry-run prints the result)", s.Config)
	}
	return nil
}

// backgroundCommand reports one of quiver's commands that runs only an
// event's background handlers: never the entry that answers the event.
func backgroundCommand(cmd string) bool {
	return strings.Contains(cmd, " --async-only ") || strings.Contains(cmd, " --async-rewake ")
}

// asyncShaped reports an element shaped as quiver writes an asynchronous
// entry: a matcher of "*" or none, and one command handler marked field.
func asyncShaped(el json.RawMessage, field string) bool {
	var g struct {
		Matcher *string                      `json:"matcher"`
		Hooks   []map[string]json.RawMessage `json:"hooks"`
	}
	if json.Unmarshal(el, &g) != nil || len(g.Hooks) != 1 || (g.Matcher != nil && *g.Matcher != "*") {
		return false
	}
	return string(g.Hooks[0][field]) == "true" && string(g.Hooks[0]["type"]) == `"command"`
}

// maxEntryTimeout is the longest an agent lets one entry run (Claude's
// limit).
const maxEntryTimeout = 600 * time.Second

// wiringConfig is what quiver keeps in the agent's file: an entry per
// event that some hook handles (§8's six always), each with a timeout
// that covers what it runs, and, for an agent that runs background
// handlers itself, an asynchronous entry beside it for each kind that
// some handler of that event has (nil u: no hook is known; the six
// events are wired alone).
func wiringConfig(ag *Agent, command string, allowRewrites bool, u Uses) wiring.Config {
	if ag.hookFile != nil {
		return wiring.Config{} // the whole file is quiver's
	}
	c := wiring.Config{
		Syntax: ag.Syntax,
		Ours:   func(el json.RawMessage) bool { return wiring.CommandsRun(el, ag.Writes) },
	}
	// kind recognises the asynchronous entries quiver writes: one handler
	// marked field, running hook run with flag. A repository's or the
	// user's own entry that runs the same command some other way (another
	// matcher, not marked) is not one, and is never removed as one.
	kind := func(flag, field string) func(json.RawMessage) bool {
		return func(el json.RawMessage) bool {
			return asyncShaped(el, field) && wiring.CommandsRun(el, func(cmd string) bool { return ag.Writes(cmd) && strings.Contains(cmd, " "+flag+" ") })
		}
	}
	ordinary := func(el json.RawMessage) bool {
		return wiring.CommandsRun(el, func(cmd string) bool { return ag.Writes(cmd) && !backgroundCommand(cmd) })
	}
	for _, ev := range ag.Events() {
		use := u.of(ev)
		wired := use.Listens || core(ev)
		if ag.asyncEntry == nil {
			keys, elem := ag.keys(ev), json.RawMessage(nil)
			if wired {
				elem = ag.entry(ag, ev, ag.Command(command, ev, allowRewrites), use.entryTimeout(ev))
			}
			c.Entries = append(c.Entries, wiring.Entry{Keys: keys, Value: elem, Ours: ordinary})
			continue
		}
		flag := ""
		if use.Async || use.Rewake {
			flag = "--async-elsewhere"
		}
		keys := ag.keys(ev)
		e := wiring.Entry{Keys: keys, Ours: ordinary}
		if wired {
			e.Value = ag.entry(ag, ev, ag.commandWith(command, ev, allowRewrites, flag), use.entryTimeout(ev))
		}
		c.Entries = append(c.Entries, e)
		timeout := min(use.Background+time.Second, maxEntryTimeout)
		for _, k := range []struct {
			flag, field string
			on          bool
		}{{"--async-only", "async", use.Async}, {"--async-rewake", "asyncRewake", use.Rewake}} {
			e := wiring.Entry{Keys: keys, Ours: kind(k.flag, k.field)}
			if k.on {
				e.Value = ag.asyncEntry(ag, ev, ag.commandWith(command, ev, allowRewrites, k.flag), timeout, k.field)
			}
			c.Entries = append(c.Entries, e)
		}
	}
	for _, s := range ag.Settings {
		c.Settings = append(c.Settings, wiring.Setting{Keys: s.Keys, Value: s.Value})
	}
	return c
}

// ReadConfig reads an agent's configuration: ok false when it does not
// exist, an error naming the file when it is not a regular file.
func ReadConfig(path string) (data []byte, ok bool, err error) {
	return readConfig(path, safefs.ReadFileNoFollow)
}

// readOwn reads a file of the user's own that quiver only reads (Codex's
// trusted projects, Claude's enabled plugins), through a link if it is one
// (a dotfiles setup): nothing is written back.
func readOwn(path string) (data []byte, ok bool, err error) {
	return readConfig(path, safefs.ReadFile)
}

func readConfig(path string, read func(string, int64) ([]byte, error)) (data []byte, ok bool, err error) {
	data, err = read(path, maxConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// load reads what install and remove start from: the scope's record and
// the agent's configuration (nil, false when it does not exist), after
// checking that the configuration is not reached through a link.
func load(site Site) (*wiring.Record, []byte, bool, error) {
	if err := CheckConfigPath(site); err != nil {
		return nil, nil, false, err
	}
	rec, err := wiring.ReadRecord(site.Record)
	if err != nil {
		return nil, nil, false, err
	}
	data, existed, err := ReadConfig(site.Config)
	if err != nil {
		return nil, nil, false, fmt.Errorf("read %s's configuration: %w", site.Agent.Title, err)
	}
	return rec, data, existed, nil
}

// missingDirs are the folders quiver may make for the agent of site (its
// configuration's, its part files', its skill, command and subagent
// folders) that do not exist yet (wiring.Missing).
func (w *Wirer) missingDirs(site Site) []string {
	var rels []string
	under := func(p string) {
		if rel, err := filepath.Rel(site.Base, p); err == nil && filepath.IsLocal(rel) {
			rels = append(rels, filepath.Dir(rel))
		}
	}
	under(site.Config)
	for _, f := range site.Agent.partFilesOf(w, site) {
		under(f.Path)
	}
	at := site.Dirs()
	for _, d := range []string{at.Skills, at.Commands, at.Agents} {
		if d != "" {
			rels = append(rels, d)
		}
	}
	return wiring.Missing(site.Base, rels...)
}

// writeOthers writes another program's file atomically, keeping its mode.
func writeOthers(path string, data []byte) error {
	perm := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return plugins.WriteFileAtomic(path, data, perm)
}

// InstallOptions are agent install's.
type InstallOptions struct {
	// Command is the quiver the agent runs; AllowRewrites lets a rewritten
	// tool input run without asking.
	Command       string
	AllowRewrites bool
	// DryRun computes the file and writes nothing.
	DryRun bool
}

// Installed is what Install did.
type Installed struct {
	// Data is the configuration as written (or, with DryRun, as it would
	// be); Changed whether it differs from what was there.
	Data    []byte
	Changed bool
	// Links are the skills, commands and subagents quiver keeps in the
	// agent's folders (a link, or a copy); Shared counts the skills that
	// reach it from a folder another wired agent keeps them in; Files
	// are the agent's files quiver keeps members in (servers, Claude
	// Code's plugin route).
	Links  []wiring.Link
	Shared int
	Files  []wiring.FileRecord
	// Missed says what of the plugins did not reach the agent, and why;
	// Gate what the agent waits on before it uses what quiver wrote.
	Missed []string
	Gate   string
	// Foreign counts hook entries quiver did not write in a file named
	// as quiver's own (see Foreign).
	Foreign int
	// Events counts the events that call quiver; Overlong names those
	// whose hooks may together run longer than the agent waits.
	Events   int
	Overlong []string
	// Native counts the handlers the agent runs itself that quiver
	// handed it (Claude's prompt, agent and mcp_tool).
	Native int
	// Silenced are the settings that keep the agent from running what
	// quiver wired.
	Silenced []Silence
}

// Install wires the agent of site: quiver's entries merged into its file
// (nothing else changes), recorded, and its skill and command folders
// synced. A configuration that does not parse is an error, untouched.
func (w *Wirer) Install(ctx context.Context, site Site, o InstallOptions) (Installed, error) {
	ag := site.Agent
	if err := w.checkPolicy(site.Scope); err != nil {
		return Installed{}, err
	}
	if !o.DryRun {
		unlock, err := w.lock(ctx, site)
		if err != nil {
			return Installed{}, err
		}
		defer unlock()
	}
	rec, data, existed, err := load(site)
	if err != nil {
		return Installed{}, err
	}
	if ag.fileProblem != nil {
		if p := ag.fileProblem(data); p != "" {
			return Installed{}, fmt.Errorf("%s: %s would skip this whole file, so no entry of quiver's would run: %s; fix it, and it was left as it was", site.Config, ag.Title, p)
		}
	}
	prev := rec.Agents[ag.Name]
	missingDirs := w.missingDirs(site)
	var created []string
	createdFile := !existed
	if prev != nil {
		created, createdFile = prev.Created, prev.CreatedFile || !existed
	}
	var ch wiring.Change
	var u Uses
	var prevNative, native []wiring.Owned
	if prev != nil {
		prevNative, native = prev.Native, prev.Native
	}
	d, docsErr := w.Docs()
	if docsErr == nil {
		u = d.usesFor(site.Scope.Location)
	}
	if ag.hookFile != nil {
		ch, err = installHookFile(site, prev, data, existed, o)
	} else if ch, err = wiring.Install(wiringConfig(ag, o.Command, o.AllowRewrites, u), data, created); err == nil && docsErr == nil {
		ch, native, err = w.withNative(site, data, ch, prevNative, d.nativeFor(site.Scope.Location))
	}
	if err != nil {
		return Installed{}, fmt.Errorf("%s: %w; it was left as it was", site.Config, err)
	}
	if o.DryRun {
		return Installed{Data: ch.Data, Changed: ch.Changed}, nil
	}
	if ch.Changed {
		// The handlers quiver hands the agent are known as its by the
		// record alone: it names them before the file holds them.
		if err := recordAhead(rec, site, ag.Name, prev, o.Command, prevNative, native); err != nil {
			return Installed{}, fmt.Errorf("record %s: %w", site.Record, err)
		}
		if err := writeOthers(site.Config, ch.Data); err != nil {
			return Installed{}, fmt.Errorf("write %s: %w", site.Config, err)
		}
	}
	entry := &wiring.AgentRecord{
		Config: site.Config, Command: o.Command, AllowRewrites: o.AllowRewrites,
		Created: ch.Created, CreatedFile: createdFile, Native: native,
	}
	if ag.hookFile != nil {
		entry.Hash = wiring.DataHash(ch.Data)
	}
	if prev != nil {
		entry.Links, entry.Files = prev.Links, prev.Files
	}
	rec.Agents[ag.Name] = entry
	missed, err := w.syncItems(site, rec)
	if err != nil {
		w.warn(fmt.Sprintf("quiver: %v", err))
	}
	w.syncOthers(site, rec)
	rec.NoteDirs(site.Base, missingDirs)
	rec.PruneDirs(site.Base)
	if err := rec.Write(site.Record); err != nil {
		return Installed{}, fmt.Errorf("record %s: %w", site.Record, err)
	}
	w.syncExcludes(site.Scope, rec)
	foreign := 0
	if filepath.Base(site.Config) == "quiver.json" {
		if data, ok, err := ReadConfig(site.Config); err == nil && ok {
			foreign = Foreign(ag, data)
		}
	}
	res := Installed{Data: ch.Data, Changed: ch.Changed, Links: entry.Links, Shared: len(w.keptByOthers(site, rec)), Files: entry.Files, Missed: missed, Gate: w.Gate(site, entry), Foreign: foreign, Native: len(native), Silenced: w.Silenced(site)}
	res.Events, res.Overlong = u.wired(ag)
	return res, nil
}

// hookFileHeader starts the first line of every program quiver generates
// as an agent's hooks; the same line names the agent's Marker, which is
// how agent list and sync tell that the agent calls quiver.
const hookFileHeader = "// Generated by quiver"

func isHookFile(ag *Agent, data []byte) bool {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	return bytes.HasPrefix(line, []byte(hookFileHeader)) && bytes.Contains(line, []byte(ag.Marker()))
}

// installHookFile is Install for an agent whose hooks are a program quiver
// generates whole: the file becomes quiver's program, unless the file
// there is someone else's (neither what quiver recorded writing nor what
// it would write now).
func installHookFile(site Site, prev *wiring.AgentRecord, data []byte, existed bool, o InstallOptions) (wiring.Change, error) {
	want := site.Agent.hookFile(site.Agent, o.Command, o.AllowRewrites)
	if existed && !bytes.Equal(data, want) && (prev == nil || prev.Hash != wiring.DataHash(data)) {
		return wiring.Change{}, errors.New("it is not the program quiver wrote there (someone else's, or edited since)")
	}
	return wiring.Change{Data: want, Changed: !existed || !bytes.Equal(data, want)}, nil
}

// uninstallHookFile is Remove for such an agent: the program goes while
// it is as quiver wrote it; one edited since is the user's, and stays.
func (w *Wirer) uninstallHookFile(site Site, prev *wiring.AgentRecord, data []byte) wiring.Change {
	ours := prev != nil && prev.Hash == wiring.DataHash(data)
	for _, rewrites := range []bool{false, true} {
		ours = ours || bytes.Equal(data, site.Agent.hookFile(site.Agent, "quiver", rewrites))
	}
	if ours {
		return wiring.Change{Delete: true, Changed: true}
	}
	w.warn(fmt.Sprintf("quiver: %s was edited since quiver wrote it, so it is yours now and stays", site.Config))
	return wiring.Change{}
}

// Remove unwires the agent of site: quiver's entries and the keys it
// created there while they are empty, and what it made in the agent's
// folders; a file quiver created and nothing else uses is deleted. It
// reports whether there was anything to remove.
func (w *Wirer) Remove(ctx context.Context, site Site) (bool, error) {
	ag := site.Agent
	unlock, err := w.lock(ctx, site)
	if err != nil {
		return false, err
	}
	defer unlock()
	rec, data, existed, err := load(site)
	if err != nil {
		return false, err
	}
	prev := rec.Agents[ag.Name]
	removed := false
	if existed {
		var created []string
		var native []wiring.Owned
		createdFile := false
		if prev != nil {
			created, createdFile, native = prev.Created, prev.CreatedFile, prev.Native
		}
		var ch wiring.Change
		if ag.hookFile != nil {
			ch = w.uninstallHookFile(site, prev, data)
		} else {
			// The handlers quiver handed the agent first, so that an
			// array they alone kept goes with quiver's keys.
			rest, created, err := w.withoutNative(site, data, native, created)
			if err == nil {
				ch, err = wiring.Uninstall(wiringConfig(ag, "quiver", false, nil), rest, created, createdFile)
			}
			if err != nil {
				return false, fmt.Errorf("%s: %w; it was left as it was", site.Config, err)
			}
			ch.Changed = ch.Delete || !bytes.Equal(ch.Data, data)
		}
		switch {
		case ch.Delete:
			err = os.Remove(site.Config)
		case ch.Changed:
			err = writeOthers(site.Config, ch.Data)
		}
		if err != nil {
			return false, fmt.Errorf("write %s: %w", site.Config, err)
		}
		removed = ch.Changed
	}
	if prev != nil {
		if err := wiring.RemoveLinks(site.Base, ownLinks(site, prev.Links)); err != nil {
			return removed, err
		}
		if err := w.syncParts(site, prev, Plan{}); err != nil {
			return removed, err
		}
		if ag.cleanup != nil {
			if err := ag.cleanup(site); err != nil {
				return removed, err
			}
		}
		delete(rec.Agents, ag.Name)
		w.syncOthers(site, rec)
		rec.PruneDirs(site.Base)
		if err := rec.Write(site.Record); err != nil {
			return removed, err
		}
		w.syncExcludes(site.Scope, rec)
		removed = true
	}
	return removed, nil
}

// syncItems makes what the agent gets of the scope's plugins match them:
// the parts its adapter plans (servers, plugin routes), then the skill and
// recipe links (and copies) of the items not routed, recording all of it
// in the agent's entry of rec. It returns what of the plugins did not
// reach the agent.
func (w *Wirer) syncItems(site Site, rec *wiring.Record) ([]string, error) {
	entry := rec.Agents[site.Agent.Name]
	d, err := w.Docs()
	if err != nil {
		return nil, err
	}
	d = w.docsFor(site, d)
	plan, err := site.Agent.planParts(w, site, d, cmp.Or(entry.Command, "quiver"))
	if err != nil {
		return nil, err
	}
	missingDirs := w.missingDirs(site)
	defer func() { rec.NoteDirs(site.Base, missingDirs) }()
	partsErr := w.syncParts(site, entry, plan)
	var skills, recipes []wiring.Item
	if site.Scope.Location != plugins.Local || d.Trusted {
		skills, recipes = linkItems(d.Skills, site.Scope, true, plan.Routed), linkItems(d.Recipes, site.Scope, false, plan.Routed)
	}
	missed := plan.Missed
	ag := site.Agent
	at := site.Dirs()
	// A skill another wired agent keeps in a folder this one reads
	// reaches it already: written again, the agent would list it twice.
	kept := w.keptByOthers(site, rec)
	skills = slices.DeleteFunc(skills, func(it wiring.Item) bool { return kept[it.Name] })
	dirs := []wiring.LinkDir{{Dir: at.Skills, Items: skills}}
	if at.Commands != "" {
		dirs = append(dirs, wiring.LinkDir{Dir: at.Commands, Suffix: cmp.Or(ag.CommandSuffix, ".md"), Items: commandItems(site, recipes, d.Recipes, d.Plugins[site.Scope.Location], &missed)})
	} else if ag.NoCommands != "" && len(recipes) > 0 {
		names := make([]string, len(recipes))
		for i, r := range recipes {
			names[i] = r.Name
		}
		slices.Sort(names)
		missed = append(missed, fmt.Sprintf("commands %s: %s", strings.Join(names, ", "), ag.NoCommands))
	}
	if at.Agents != "" {
		dirs = append(dirs, wiring.LinkDir{Dir: at.Agents, Suffix: ag.AgentSuffix, Items: subagentItems(site, d, plan.Routed, &missed)})
	}
	links, warnings, err := wiring.SyncLinks(site.Base, dirs, ownLinks(site, entry.Links))
	entry.Links = links
	for _, m := range warnings {
		w.warn("quiver: " + m)
	}
	entry.Missed = missed
	return missed, errors.Join(partsErr, err)
}

// ownLinks keeps the recorded links that lie directly in the agent's own
// skills or commands folder: only those are quiver's to change, since the
// record may have come with a repository.
func ownLinks(site Site, links []wiring.Link) []wiring.Link {
	var own []wiring.Link
	at := site.Dirs()
	for _, l := range links {
		d := filepath.Dir(filepath.FromSlash(l.Path))
		if d == filepath.FromSlash(at.Skills) || (at.Commands != "" && d == filepath.FromSlash(at.Commands)) ||
			(at.Agents != "" && d == filepath.FromSlash(at.Agents)) {
			own = append(own, l)
		}
	}
	return own
}

// keptByOthers are the skills (by item name) that the scope's other wired
// agents keep, intact, in a folder this agent reads too.
func (w *Wirer) keptByOthers(site Site, rec *wiring.Record) map[string]bool {
	at := site.Dirs()
	reads := map[string]bool{filepath.FromSlash(at.Skills): true}
	for _, d := range at.SkillsToo {
		reads[filepath.FromSlash(d)] = true
	}
	kept := map[string]bool{}
	for _, name := range rec.Names() {
		other, err := Lookup(name)
		if err != nil || other == site.Agent {
			continue
		}
		osite := w.Site(other, site.Scope.Location == plugins.Global)
		if !wiredAt(osite) {
			continue
		}
		for _, l := range ownLinks(osite, rec.Agents[name].Links) {
			if reads[filepath.Dir(filepath.FromSlash(l.Path))] && wiring.Intact(site.Base, l) {
				kept[l.Item] = true
			}
		}
	}
	return kept
}

// syncOthers re-syncs the scope's other wired agents after one changed:
// a skill one of them left to the changed agent's folder may need
// writing now, or reach it from there now (SPEC §16). What fails is a
// warning: the change itself is done.
func (w *Wirer) syncOthers(site Site, rec *wiring.Record) {
	for _, name := range rec.Names() {
		other, err := Lookup(name)
		if err != nil || other == site.Agent {
			continue
		}
		osite := w.Site(other, site.Scope.Location == plugins.Global)
		if !wiredAt(osite) {
			continue
		}
		if _, err := w.syncItems(osite, rec); err != nil {
			w.warn(fmt.Sprintf("quiver: %v", err))
		}
	}
}

// wiredAt reports whether the agent's configuration at site calls quiver.
func wiredAt(site Site) bool {
	if CheckConfigPath(site) != nil {
		return false
	}
	data, ok, err := ReadConfig(site.Config)
	if err != nil || !ok {
		return false
	}
	wired, _ := WiredIn(site.Agent, data)
	return wired
}

// linkItems are the active items of one scope, as the agent should see
// them: a skill's folder, a recipe's file; the project's as copies.
func linkItems(docs []discovery.Doc, s plugins.Scope, folder bool, routed map[string]bool) []wiring.Item {
	var items []wiring.Item
	for _, d := range docs {
		if d.Status != discovery.Active || d.Location != s.Location {
			continue
		}
		if !d.Plugin.IsZero() && routed[d.Plugin.String()] {
			continue // reaches the agent with its plugin
		}
		own := d.Name
		if !d.Plugin.IsZero() {
			own = strings.TrimPrefix(d.Name, d.Plugin.String()+"/")
		}
		path := d.Path
		if folder {
			path = filepath.Dir(path)
		}
		it := wiring.Item{Name: d.Name, Own: own, Path: path}
		if folder {
			it.Rename = renameSkill(d.Path)
			if !d.Plugin.IsZero() {
				it.Root = s.PluginDir(d.Plugin)
			}
		}
		if s.Location == plugins.Local {
			// A project's items reach the agent as copies of what the
			// user trusted, never as links a pull could change.
			it.Copy, it.Root = true, s.Root
			if !d.Plugin.IsZero() {
				it.Root = s.PluginDir(d.Plugin)
			}
		}
		items = append(items, it)
	}
	return items
}

// renameSkill is a skill's wiring.Item.Rename: its SKILL.md (skillFile)
// with the name line of its frontmatter set to the name the skill is
// placed under, when that differs. Only that line changes; a skill
// without a name in its frontmatter is named by its folder already.
func renameSkill(skillFile string) func(name string) (string, []byte, bool) {
	return func(name string) (string, []byte, bool) {
		data, err := safefs.ReadFile(skillFile, maxDoc)
		if err != nil {
			return "", nil, false
		}
		out, ok := withName(data, name)
		return filepath.Base(skillFile), out, ok
	}
}

// withName is a Markdown file whose frontmatter's top-level name is
// name; ok is false when it already is, or the frontmatter has none.
func withName(data []byte, name string) ([]byte, bool) {
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) == 0 || strings.TrimRight(lines[0], "\r\n") != "---" {
		return nil, false
	}
	for i := 1; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], "\r\n")
		if line == "---" {
			break
		}
		rest, found := strings.CutPrefix(line, "name:")
		if !found {
			continue
		}
		current := strings.Trim(strings.TrimSpace(rest), `"'`)
		if current == name {
			return nil, false
		}
		value := name
		if strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != "" {
			value = strconv.Quote(name)
		}
		lines[i] = "name: " + value + lines[i][len(line):]
		return []byte(strings.Join(lines, "")), true
	}
	return nil, false
}

// Sync re-syncs the skills and recipes of every wired agent of the
// layout's scopes; every mutating command ends with it (SPEC §13).
func (w *Wirer) Sync(ctx context.Context) error {
	var errs []error
	for _, s := range w.Layout.Scopes() {
		path := filepath.Join(s.MachineDir(), wiring.RecordFile)
		rec, err := wiring.ReadRecord(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		adopted := w.adopt(s, rec)
		if len(rec.Names()) == 0 {
			continue
		}
		if len(rec.Names()) > 0 {
			if err := w.checkPolicy(s); err != nil {
				// Nothing the scope's plugins carry is wired while they
				// break the policy; what was wired is taken out (a
				// disable, a revoke, a new policy must not leave a
				// forbidden server in place), and the refusal is the
				// command's error.
				errs = append(errs, err)
				if w.withheld == nil {
					w.withheld = map[string]bool{}
				}
				w.withheld[s.Root] = true
			}
		}
		changed := false
		for _, name := range rec.Names() {
			ag, err := Lookup(name)
			if err != nil {
				continue // an agent this quiver does not know: left alone
			}
			site := w.Site(ag, s.Location == plugins.Global)
			// Only agents whose configuration really calls quiver get
			// their folders synced.
			if !wiredAt(site) {
				continue
			}
			unlock, err := w.lock(ctx, site)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			entry := rec.Agents[name]
			before := fmt.Sprint(entry.Links, entry.Files, entry.Missed, entry.Created, entry.Native, rec.Dirs)
			if err := w.syncEntries(site, entry, func() error { return rec.Write(path) }); err != nil {
				errs = append(errs, err)
			}
			if _, err := w.syncItems(site, rec); err != nil {
				errs = append(errs, err)
			}
			rec.PruneDirs(site.Base)
			changed = changed || fmt.Sprint(entry.Links, entry.Files, entry.Missed, entry.Created, entry.Native, rec.Dirs) != before
			unlock()
		}
		if changed || adopted {
			if err := rec.Write(path); err != nil {
				errs = append(errs, err)
			}
		}
		w.syncExcludes(s, rec)
	}
	return errors.Join(errs...)
}

// syncExcludes keeps out of the project's git what quiver keeps for the
// agents of scope s (a project's) that only this machine should have: the
// copies and generated files in the agents' folders, and Claude Code's
// personal settings (.claude/settings.local.json) where quiver enables
// plugins (wiring.SyncExcludes). A failure costs a cleaner git status,
// never the wiring: it is not an error.
func (w *Wirer) syncExcludes(s plugins.Scope, rec *wiring.Record) {
	if s.Location != plugins.Local || w.Layout.Local == nil {
		return
	}
	project := w.Layout.ProjectDir
	var paths []string
	for _, name := range rec.Names() {
		entry := rec.Agents[name]
		for _, l := range entry.Links {
			paths = append(paths, l.Path)
		}
		for _, f := range entry.Files {
			if filepath.Base(f.Path) != "settings.local.json" || len(f.Members) == 0 {
				continue
			}
			if rel, err := filepath.Rel(project, f.Path); err == nil && !strings.HasPrefix(rel, "..") {
				paths = append(paths, filepath.ToSlash(rel))
			}
		}
	}
	wiring.SyncExcludes(project, paths)
}

// adopt records, for a project, the agents whose committed configuration
// calls quiver as quiver writes it for its bare name, though no record of
// this machine says quiver wired them: a teammate wired them and
// committed the file (issue 43). The teammate's quiver then owns them as
// the author's does: it syncs their folders (copies of what this user
// trusted, once they trust it), updates quiver's entries in place and
// removes them at agent remove, never taking another entry for its own.
// It reports whether it recorded any.
func (w *Wirer) adopt(s plugins.Scope, rec *wiring.Record) bool {
	if s.Location != plugins.Local {
		return false
	}
	adopted := false
	for _, ag := range All() {
		if rec.Agents[ag.Name] != nil {
			continue
		}
		site := w.Site(ag, false)
		if CheckConfigPath(site) != nil {
			continue
		}
		data, ok, err := ReadConfig(site.Config)
		if err != nil || !ok {
			continue
		}
		entry := &wiring.AgentRecord{Config: site.Config, Command: "quiver"}
		switch {
		case ag.hookFile != nil:
			switch {
			case bytes.Equal(data, ag.hookFile(ag, "quiver", false)):
			case bytes.Equal(data, ag.hookFile(ag, "quiver", true)):
				entry.AllowRewrites = true
			default:
				continue
			}
			entry.Hash = wiring.DataHash(data)
		default:
			if wired, _ := WiredIn(ag, data); !wired || !w.callsBareQuiver(site, data) {
				continue
			}
			entry.AllowRewrites = bytes.Contains(data, []byte(" --allow-rewrites "))
		}
		if rec.Agents == nil {
			rec.Agents = map[string]*wiring.AgentRecord{}
		}
		rec.Agents[ag.Name] = entry
		adopted = true
	}
	return adopted
}

// callsBareQuiver reports a configuration whose every entry of quiver's
// runs the bare quiver, as a project's does (a path of another machine,
// or a program of the repository's, is no wiring to adopt).
func (w *Wirer) callsBareQuiver(site Site, data []byte) bool {
	d, err := wiring.ParseDoc(data, site.Agent.Syntax)
	if err != nil {
		return false
	}
	bare, any := true, false
	for _, ev := range site.Agent.Events() {
		elems, _ := d.Array(site.Agent.keys(ev)...)
		for _, el := range elems {
			wiring.CommandsRun(el, func(cmd string) bool {
				if site.Agent.Writes(cmd) {
					any = true
					bare = bare && firstWord(cmd) == "quiver"
				}
				return false
			})
		}
	}
	return any && bare
}

// syncEntries re-writes the agent's hook entries for what is installed
// now: which events need an asynchronous entry beside the ordinary one
// changes as plugins come and go, and so do the handlers Claude runs
// itself (SPEC §15). Other agents' entries do not depend on the plugins,
// and stay as agent install wrote them.
func (w *Wirer) syncEntries(site Site, entry *wiring.AgentRecord, persist func() error) error {
	ag := site.Agent
	if ag.asyncEntry == nil || ag.hookFile != nil {
		return nil
	}
	// Checked again under the lock: the configuration may have become a
	// link since Sync looked (ReadConfig does not follow one either).
	if err := CheckConfigPath(site); err != nil {
		return err
	}
	d, err := w.Docs()
	if err != nil {
		return err
	}
	data, existed, err := ReadConfig(site.Config)
	if err != nil || !existed {
		return err
	}
	ch, err := wiring.Install(wiringConfig(ag, cmp.Or(entry.Command, "quiver"), entry.AllowRewrites, d.usesFor(site.Scope.Location)), data, entry.Created)
	var native []wiring.Owned
	if err == nil {
		ch, native, err = w.withNative(site, data, ch, entry.Native, d.nativeFor(site.Scope.Location))
	}
	if err != nil {
		return fmt.Errorf("%s: %w; it was left as it was", site.Config, err)
	}
	if !ch.Changed {
		entry.Created, entry.Native = ch.Created, native
		return nil
	}
	// Recorded before written (recordAhead); what the file holds once
	// written, after.
	if union := ownedUnion(entry.Native, native); len(union) != len(entry.Native) {
		entry.Native = union
		if err := persist(); err != nil {
			return err
		}
	}
	if err := writeOthers(site.Config, ch.Data); err != nil {
		return fmt.Errorf("write %s: %w", site.Config, err)
	}
	entry.Created, entry.Native = ch.Created, native
	return nil
}

// recordAhead writes the record with the agent's entry naming every
// handler quiver owns before or after the change it is about to write
// (prevNative and native), when the change adds one: were the record not
// written after the file, a handler the file holds would be nobody's, and
// stay after trust is revoked. A handler named that the file does not
// hold is forgotten at the next sync.
func recordAhead(rec *wiring.Record, site Site, name string, prev *wiring.AgentRecord, command string, prevNative, native []wiring.Owned) error {
	union := ownedUnion(prevNative, native)
	if len(union) == len(prevNative) {
		return nil
	}
	ahead := &wiring.AgentRecord{Config: site.Config, Command: command}
	if prev != nil {
		cp := *prev
		ahead = &cp
	}
	ahead.Native = union
	saved := rec.Agents[name]
	rec.Agents[name] = ahead
	err := rec.Write(site.Record)
	rec.Agents[name] = saved
	return err
}

// ownedUnion is a with each element of b that a does not hold as often.
func ownedUnion(a, b []wiring.Owned) []wiring.Owned {
	out := slices.Clone(a)
	count := map[string]int{}
	for _, o := range a {
		count[strings.Join(o.Keys, "\x00")+"\x00"+o.Hash]++
	}
	for _, o := range b {
		k := strings.Join(o.Keys, "\x00") + "\x00" + o.Hash
		if count[k] > 0 {
			count[k]--
			continue
		}
		out = append(out, o)
	}
	return out
}

// Row is one agent in one scope, as agent list shows it.
type Row struct {
	Agent    string `json:"agent"`
	Title    string `json:"title"`
	Location string `json:"location"`
	Config   string `json:"config"`
	// Wired is whether the configuration holds quiver's entries (what
	// the agent will do); Command and Links what quiver recorded.
	Wired   bool   `json:"wired"`
	Command string `json:"command,omitempty"`
	Links   int    `json:"links"`
	Problem string `json:"problem,omitempty"`
	// Missed names what of the plugins did not reach the agent, and why
	// (SPEC §16).
	Missed []string `json:"missed,omitempty"`
	// Gate is what the agent waits on before it uses what quiver wrote
	// (Codex's trusted projects, Gemini's trusted folders), and how to
	// open it.
	Gate string `json:"gate,omitempty"`
	// Native counts the handlers the agent runs itself that quiver
	// wrote into its configuration (Claude's prompt, agent, mcp_tool).
	Native int `json:"native_handlers,omitempty"`
	// Silenced names the settings of the agent's own files that keep it
	// from running what quiver wired ("FILE: what it does").
	Silenced []string `json:"silenced,omitempty"`
}

// Rows is every agent in every scope.
func (w *Wirer) Rows() ([]Row, error) {
	rows := []Row{}
	for _, s := range w.Layout.Scopes() {
		rec, err := wiring.ReadRecord(filepath.Join(s.MachineDir(), wiring.RecordFile))
		if err != nil {
			return nil, err
		}
		for _, ag := range All() {
			site := w.Site(ag, s.Location == plugins.Global)
			row := Row{Agent: ag.Name, Title: ag.Title, Location: string(s.Location), Config: site.Config}
			if data, ok, err := ReadConfig(site.Config); err != nil {
				row.Problem = err.Error()
			} else if ok {
				row.Wired, row.Problem = WiredIn(ag, data)
			}
			if r := rec.Agents[ag.Name]; r != nil {
				row.Command, row.Links, row.Missed, row.Native = r.Command, len(r.Links), r.Missed, len(r.Native)
				row.Gate = w.Gate(site, r)
			}
			if row.Wired {
				for _, s := range w.Silenced(site) {
					row.Silenced = append(row.Silenced, s.String())
				}
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// WiredIn reports whether data (an agent's configuration) holds one of
// quiver's entries, or why it cannot tell.
func WiredIn(ag *Agent, data []byte) (bool, string) {
	if ag.hookFile != nil {
		return isHookFile(ag, data), ""
	}
	d, err := wiring.ParseDoc(data, ag.Syntax)
	if err != nil {
		return false, err.Error()
	}
	if ag.fileProblem != nil {
		if p := ag.fileProblem(data); p != "" {
			return false, ag.Title + " skips this whole file, quiver's entries with it: " + p
		}
	}
	// Only an entry that answers its own event counts: one that runs
	// another event's answer, or only the background handlers (which
	// decide nothing), would leave the agent's guards unwired while agent
	// list said otherwise.
	for _, ev := range ag.Events() {
		elems, err := d.Array(ag.keys(ev)...)
		if err != nil {
			return false, err.Error()
		}
		for _, el := range elems {
			if wiring.CommandsRun(el, func(cmd string) bool {
				return ag.WritesFor(cmd, ev.Quiver) && !backgroundCommand(cmd)
			}) {
				return true, ""
			}
		}
	}
	return false, ""
}

// Foreign counts the hook entries in data (the agent's configuration)
// that are not quiver's: in a file named as quiver's own (Copilot's
// .github/hooks/quiver.json) they are someone else's, perhaps committed
// by a repository to pass as quiver's.
func Foreign(ag *Agent, data []byte) int {
	if ag.hookFile != nil {
		return 0
	}
	d, err := wiring.ParseDoc(data, ag.Syntax)
	if err != nil {
		return 0
	}
	c := wiringConfig(ag, "quiver", false, nil)
	n := 0
	seen := map[string]bool{}
	for _, e := range c.Entries {
		k := strings.Join(e.Keys, "\x00")
		if seen[k] {
			continue
		}
		seen[k] = true
		elems, _ := d.Array(e.Keys...)
		for _, el := range elems {
			if !c.Ours(el) {
				n++
			}
		}
	}
	return n
}

// CommandProblem says why command would not run ("" when it would).
func CommandProblem(command string) string {
	if strings.Contains(command, "/") {
		fi, err := os.Stat(command)
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return fmt.Sprintf("%s is not an executable file", command)
		}
		return ""
	}
	if _, err := exec.LookPath(command); err != nil {
		return fmt.Sprintf("%s is not on PATH", command)
	}
	return ""
}

// Diagnose finds what doctor reports about wired agents: a configuration
// quiver cannot read, a quiver the agent cannot run, Claude Code and
// Cursor or Copilot both wired (they run Claude's hooks too), and plugins whose
// hooks would run twice because Claude Code has them natively too.
func (w *Wirer) Diagnose() []format.Finding {
	var out []format.Finding
	rows, err := w.Rows()
	if err != nil {
		return []format.Finding{{Severity: "warning", Reason: "agents: " + err.Error(), Fix: "fix or remove the file it names"}}
	}
	wired := map[string]bool{}
	for _, r := range rows {
		if r.Problem != "" {
			out = append(out, format.Finding{Severity: "warning", File: r.Config, Reason: fmt.Sprintf("%s's configuration: %s", r.Title, r.Problem), Fix: "fix the file; quiver leaves it as it is"})
		}
		if !r.Wired {
			continue
		}
		wired[r.Agent] = true
		if filepath.Base(r.Config) == "quiver.json" {
			if ag, err := Lookup(r.Agent); err == nil {
				if data, ok, err := ReadConfig(r.Config); err == nil && ok {
					if n := Foreign(ag, data); n > 0 {
						out = append(out, format.Finding{Severity: "warning", File: r.Config,
							Reason: fmt.Sprintf("%s's %s holds %d hook entr%s quiver did not write, which %s runs too", r.Title, filepath.Base(r.Config), n, plural(n, "y", "ies"), r.Title),
							Fix:    "review them: a repository may commit this file to pass its hooks as quiver's; move yours to a file of your own"})
					}
				}
			}
		}
		if r.Native > 0 {
			out = append(out, format.Finding{Severity: "info", File: r.Config, Reason: fmt.Sprintf("%s (%s) runs %s itself (prompt, agent, mcp_tool), which quiver wrote into its configuration while their hooks are trusted", r.Title, r.Location, handlers(r.Native))})
		}
		for _, s := range r.Silenced {
			out = append(out, format.Finding{Severity: "error", File: r.Config, Reason: fmt.Sprintf("%s (%s) is wired, but a setting keeps it from running what quiver wired: %s", r.Title, r.Location, s),
				Fix: "remove the setting if it is not yours (a repository may commit it to switch your guards off)"})
		}
		if len(r.Missed) > 0 {
			out = append(out, format.Finding{Severity: "info", File: r.Config,
				Reason: fmt.Sprintf("%s (%s) takes %s of the plugins otherwise, or not at all: %s", r.Title, r.Location, term.Count(len(r.Missed), "part"), strings.Join(r.Missed, "; ")),
				Fix:    "nothing to do unless you need it there; what each agent takes: " + AgentsDocURL})
		}
		if r.Gate != "" {
			out = append(out, format.Finding{Severity: "info", File: r.Config, Reason: fmt.Sprintf("%s (%s) does not use what quiver wrote until you let it", r.Title, r.Location), Fix: r.Gate})
		}
		wired[r.Agent+"@"+r.Location] = true
		command := r.Command
		if command == "" {
			command = "quiver"
		}
		if problem := CommandProblem(command); problem != "" {
			out = append(out, format.Finding{Severity: "warning", File: r.Config, Reason: fmt.Sprintf("%s calls quiver, but %s", r.Title, problem),
				Fix: fmt.Sprintf("put quiver on PATH, or run quiver agent install %s%s --command /path/to/quiver", r.Agent, flagFor(plugins.Location(r.Location)))})
		}
	}
	if wired["claude"] && wired["cursor"] {
		out = append(out, format.Finding{Severity: "warning", Reason: "quiver is wired into both Claude Code and Cursor; Cursor also runs the hooks in .claude/settings.json, so in Cursor every quiver hook runs twice",
			Fix: "quiver agent remove cursor, or turn off Cursor's third-party configs"})
	}
	if wired["claude@"+string(plugins.Local)] && wired["copilot"] {
		out = append(out, format.Finding{Severity: "warning", Reason: "quiver is wired into both Claude Code (in this project) and GitHub Copilot CLI; Copilot also runs the hooks in the project's .claude/settings.json, so in Copilot every quiver hook runs twice",
			Fix: "quiver agent remove copilot (Copilot then runs quiver through Claude Code's entries), or quiver agent remove claude"})
	}
	if !wired["claude"] {
		return out
	}
	native := w.claudeNativePlugins()
	for _, s := range w.Layout.Scopes() {
		ps, err := plugins.ListPlugins(s)
		if err != nil {
			continue
		}
		for _, p := range ps {
			if !p.Enabled() {
				continue
			}
			for _, key := range []string{p.Name.Repo() + "@" + p.Entry.Marketplace, p.Name.Repo() + "@" + p.Name.Org()} {
				if file, ok := native[key]; ok {
					out = append(out, format.Finding{Severity: "warning", File: file,
						Reason: fmt.Sprintf("plugin %s is installed through quiver and enabled natively in Claude Code as %s: its hooks would run twice", p.Name, key),
						Fix:    fmt.Sprintf("disable %s in Claude Code (/plugin), or quiver plugin remove %s%s", key, p.Name, flagFor(s.Location))})
					break
				}
			}
		}
	}
	return out
}

// flagFor is the flag that names a scope on the command line.
func flagFor(l plugins.Location) string {
	if l == plugins.Global {
		return " -g"
	}
	return ""
}

// claudeNativePlugins reads the plugins Claude Code has enabled itself
// ("name@marketplace": true under enabledPlugins) in the project's and
// the user's settings, with the file that says so.
func (w *Wirer) claudeNativePlugins() map[string]string {
	found := map[string]string{}
	files := []string{filepath.Join(w.Home, Claude.ConfigGlobal)}
	if w.Layout.Local != nil {
		files = append(files, filepath.Join(w.Layout.ProjectDir, Claude.ConfigLocal), filepath.Join(w.Layout.ProjectDir, ".claude", "settings.local.json"))
	}
	for _, f := range files {
		data, ok, err := readOwn(f)
		if err != nil || !ok {
			continue
		}
		var s struct {
			Enabled map[string]bool `json:"enabledPlugins"`
		}
		if json.Unmarshal(data, &s) != nil {
			continue
		}
		for k, on := range s.Enabled {
			if on {
				found[k] = f
			}
		}
	}
	return found
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
