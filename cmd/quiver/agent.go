package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/agents"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/wiring"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// maxAgentConfig bounds an agent's configuration file.
const maxAgentConfig = 4 << 20

func (a *App) newAgentCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Wire quiver into Claude Code, Codex, Gemini CLI or Cursor",
		Long: `An agent calls quiver only if its own hook configuration says so. These
commands add quiver to (and remove it from) an agent's configuration, and keep
quiver's active skills and recipes linked into the folders the agent reads.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.newAgentInstallCmd(), a.newAgentRemoveCmd(), a.newAgentListCmd(), a.newAgentSyncCmd())
	return cmd
}

type agentInstallOptions struct {
	Agent         string
	Global        bool
	DryRun        bool
	AllowRewrites bool
	Command       string
}

func (a *App) newAgentInstallCmd() *cobra.Command {
	var o agentInstallOptions
	cmd := &cobra.Command{
		Use:   "install AGENT",
		Short: "Make an agent call quiver at every event",
		Long: fmt.Sprintf(`Add one entry per event to the agent's hook configuration (%s), each
running "quiver hook run --format AGENT EVENT", and link quiver's active skills
(and, for Claude Code, recipes as commands) into the agent's folders. Nothing
else in the file changes; installing again changes nothing. What quiver added
is recorded in .quiver/agents.yaml (~/.quiver with -g). --dry-run prints the
file as it would be written.`, strings.Join(agents.Names(), ", ")),
		Example: `  quiver agent install claude
  quiver agent install gemini -g
  quiver agent install cursor --dry-run
  quiver agent install claude --command /usr/local/bin/quiver`,
		Args:              exactArgs(1),
		ValidArgsFunction: completeAgents,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Agent = args[0]
			return a.runAgentInstall(cmd, o)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&o.Global, "global", "g", false, "wire the agent's user configuration (in your home)")
	f.BoolVar(&o.DryRun, "dry-run", false, "print the configuration file instead of writing it")
	f.BoolVar(&o.AllowRewrites, "allow-rewrites", false, "let a hook's rewritten tool input run without asking the user")
	f.StringVar(&o.Command, "command", "quiver", "the quiver the agent runs, a `PATH` or a name on PATH")
	return cmd
}

// agentSite is where one agent is wired in one scope.
type agentSite struct {
	agent  *agents.Agent
	scope  plugins.Scope
	base   string // the project, or the home folder
	config string // the configuration file
	record string // the scope's agents.yaml
}

func (a *App) agentSite(name string, global bool) (agentSite, plugins.Layout, error) {
	ag, err := agents.Lookup(name)
	if err != nil {
		return agentSite{}, plugins.Layout{}, err
	}
	layout, err := a.layout()
	if err != nil {
		return agentSite{}, layout, err
	}
	return a.siteOf(ag, layout, global), layout, nil
}

func (a *App) siteOf(ag *agents.Agent, layout plugins.Layout, global bool) agentSite {
	s := agentSite{agent: ag, scope: layout.Scope(global)}
	if s.scope.Location == plugins.Global {
		s.base = a.home()
		s.config = filepath.Join(s.base, ag.ConfigGlobal)
	} else {
		s.base = layout.ProjectDir
		s.config = filepath.Join(s.base, ag.ConfigLocal)
	}
	s.record = filepath.Join(s.scope.MachineDir(), wiring.RecordFile)
	return s
}

func (a *App) home() string {
	if h := a.Getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// checkConfigPath refuses a configuration reached through a symbolic
// link, or that is one: a repository may commit .claude as a link to your
// home's, or settings.json as a link to your global settings, and quiver
// would then edit (or leak into the work tree) a file that is not this
// scope's. A dotfiles link is refused the same way; edit what it points
// to, with --dry-run to see the result.
func checkConfigPath(s agentSite) error {
	rel, err := filepath.Rel(s.base, s.config)
	if err != nil || strings.HasPrefix(rel, "..") {
		return fmt.Errorf("%s is not under %s", s.config, s.base)
	}
	if err := wiring.SafeParents(s.base, rel, false); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if fi, err := os.Lstat(s.config); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link; quiver does not write through links (edit the file it points to; --dry-run prints the result)", s.config)
	}
	return nil
}

// wiringConfig is what quiver keeps in the agent's file.
func wiringConfig(ag *agents.Agent, command string, allowRewrites bool) wiring.Config {
	c := wiring.Config{
		Comments: ag.Comments,
		Ours:     func(el json.RawMessage) bool { return wiring.CommandsRun(el, ag.Writes) },
	}
	for _, ev := range ag.Events {
		keys, elem := ag.Entry(ev, ag.Command(command, ev, allowRewrites))
		c.Entries = append(c.Entries, wiring.Entry{Keys: keys, Value: elem})
	}
	for _, s := range ag.Settings {
		c.Settings = append(c.Settings, wiring.Setting{Keys: s.Keys, Value: s.Value})
	}
	return c
}

// readAgentConfig reads an agent's configuration: nil when it does not
// exist, an error naming the file when it is not a regular file.
func readAgentConfig(path string) ([]byte, bool, error) {
	data, err := safefs.ReadFile(path, maxAgentConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// loadSite reads what install and remove start from: the scope's record
// and the agent's configuration (nil, false when it does not exist), after
// checking that the configuration is not reached through a link.
func loadSite(site agentSite) (*wiring.Record, []byte, bool, error) {
	if err := checkConfigPath(site); err != nil {
		return nil, nil, false, err
	}
	rec, err := wiring.ReadRecord(site.record)
	if err != nil {
		return nil, nil, false, err
	}
	data, existed, err := readAgentConfig(site.config)
	if err != nil {
		return nil, nil, false, fmt.Errorf("read %s's configuration: %w", site.agent.Title, err)
	}
	return rec, data, existed, nil
}

// lockAgents serializes the commands that write agents' files and a
// scope's agents.yaml.
func (a *App) lockAgents(ctx context.Context, s agentSite) (func(), error) {
	return plugins.LockFile(ctx, filepath.Join(s.scope.MachineDir(), ".agents.lock"), plugins.DefaultLockWait, func() {
		fmt.Fprintf(a.Stderr, "quiver: waiting for another quiver command to finish wiring agents in %s...\n", s.scope.Root)
	})
}

func (a *App) runAgentInstall(cmd *cobra.Command, o agentInstallOptions) error {
	site, layout, err := a.agentSite(o.Agent, o.Global)
	if err != nil {
		return &usageError{err: err, cmd: cmd}
	}
	if o.Command == "" {
		return usageErrorf(cmd, "--command is empty")
	}
	ag := site.agent
	if !o.DryRun {
		unlock, err := a.lockAgents(cmd.Context(), site)
		if err != nil {
			return err
		}
		defer unlock()
	}
	rec, data, existed, err := loadSite(site)
	if err != nil {
		return err
	}
	prev := rec.Agents[ag.Name]
	var created []string
	createdFile := !existed
	if prev != nil {
		created, createdFile = prev.Created, prev.CreatedFile || !existed
	}
	ch, err := wiring.Install(wiringConfig(ag, o.Command, o.AllowRewrites), data, created)
	if err != nil {
		return fmt.Errorf("%s: %w; it was left as it was", site.config, err)
	}
	if o.DryRun {
		_, err := a.Stdout.Write(ch.Data)
		return err
	}
	if ch.Changed {
		if err := writeOthers(site.config, ch.Data); err != nil {
			return fmt.Errorf("write %s: %w", site.config, err)
		}
	}
	entry := &wiring.AgentRecord{
		Config: site.config, Command: o.Command, AllowRewrites: o.AllowRewrites,
		Created: ch.Created, CreatedFile: createdFile,
	}
	if prev != nil {
		entry.Links = prev.Links
	}
	rec.Agents[ag.Name] = entry
	if err := a.syncLinks(a.activeDocs(layout), site, entry); err != nil {
		a.warnf("quiver: %v", err)
	}
	if err := rec.Write(site.record); err != nil {
		return fmt.Errorf("record %s: %w", site.record, err)
	}
	verb := "Wired"
	if !ch.Changed {
		verb = "Already wired:"
	}
	fmt.Fprintf(a.Stdout, "%s %s (%s): %d events call %s\n", verb, ag.Title, visible(site.config), len(ag.Events), visible(ag.Command(o.Command, agents.Event{Quiver: "EVENT"}, o.AllowRewrites)))
	if n := len(entry.Links); n > 0 {
		fmt.Fprintf(a.Stdout, "Linked %d skill(s) and recipe(s) into %s\n", n, filepath.Dir(ag.SkillsDir))
	}
	a.checkCommand(o.Command)
	return nil
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

// checkCommand warns when the agent could not find the quiver it runs.
func (a *App) checkCommand(command string) {
	if problem := commandProblem(command); problem != "" {
		a.warnf("quiver: warning: %s; the agent will not reach quiver until it is (or use --command PATH)", problem)
	}
}

// commandProblem says why command would not run ("" when it would).
func commandProblem(command string) string {
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

func (a *App) newAgentRemoveCmd() *cobra.Command {
	var global bool
	cmd := &cobra.Command{
		Use:   "remove AGENT",
		Short: "Stop an agent from calling quiver",
		Long: `Remove quiver's entries from the agent's hook configuration, the keys quiver
created there while they are empty, and the links quiver made in the agent's
folders. Everything else in the file and the folders stays; a file quiver
created and nothing else uses is deleted.`,
		Example:           "  quiver agent remove claude\n  quiver agent remove gemini -g",
		Args:              exactArgs(1),
		ValidArgsFunction: completeAgents,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runAgentRemove(cmd, args[0], global)
		},
	}
	cmd.Flags().BoolVarP(&global, "global", "g", false, "unwire the agent's user configuration")
	return cmd
}

func (a *App) runAgentRemove(cmd *cobra.Command, name string, global bool) error {
	site, _, err := a.agentSite(name, global)
	if err != nil {
		return &usageError{err: err, cmd: cmd}
	}
	ag := site.agent
	unlock, err := a.lockAgents(cmd.Context(), site)
	if err != nil {
		return err
	}
	defer unlock()
	rec, data, existed, err := loadSite(site)
	if err != nil {
		return err
	}
	prev := rec.Agents[ag.Name]
	removed := false
	if existed {
		var created []string
		createdFile := false
		if prev != nil {
			created, createdFile = prev.Created, prev.CreatedFile
		}
		ch, err := wiring.Uninstall(wiringConfig(ag, "quiver", false), data, created, createdFile)
		if err != nil {
			return fmt.Errorf("%s: %w; it was left as it was", site.config, err)
		}
		switch {
		case ch.Delete:
			err = os.Remove(site.config)
		case ch.Changed:
			err = writeOthers(site.config, ch.Data)
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", site.config, err)
		}
		removed = ch.Changed
	}
	if prev != nil {
		if err := wiring.RemoveLinks(site.base, ownLinks(site, prev.Links)); err != nil {
			return err
		}
		delete(rec.Agents, ag.Name)
		if err := rec.Write(site.record); err != nil {
			return err
		}
		removed = true
	}
	if !removed {
		fmt.Fprintf(a.Stdout, "%s was not wired in %s\n", ag.Title, visible(site.config))
		return nil
	}
	fmt.Fprintf(a.Stdout, "Removed quiver from %s (%s)\n", ag.Title, visible(site.config))
	return nil
}

// activeDocs finds the skills and recipes once, however many agents
// are then linked: each discovery walks every scope.
type activeDocs func() (docSet, error)

type docSet struct {
	skills, recipes []discovery.Doc
	// trusted: the project's items may reach agents (SPEC §9: only while
	// the project is trusted, as copies of what was trusted).
	trusted bool
}

func (a *App) activeDocs(layout plugins.Layout) activeDocs {
	return sync.OnceValues(func() (docSet, error) {
		o := a.discoveryOptions(layout)
		var d docSet
		var err error
		if d.skills, err = discovery.Skills(o); err != nil {
			return d, err
		}
		if d.recipes, err = discovery.Recipes(o); err != nil {
			return d, err
		}
		if layout.Local != nil {
			t, err := discovery.ProjectTrust(layout, o.TrustAll)
			if err != nil {
				return d, err
			}
			d.trusted = t.Trusted()
		}
		return d, nil
	})
}

// syncLinks makes the agent's skill and recipe links match the scope's
// active items, recording them in entry.
func (a *App) syncLinks(docs activeDocs, site agentSite, entry *wiring.AgentRecord) error {
	d, err := docs()
	if err != nil {
		return err
	}
	var skills, recipes []wiring.Item
	if site.scope.Location != plugins.Local || d.trusted {
		skills, recipes = linkItems(d.skills, site.scope, true), linkItems(d.recipes, site.scope, false)
	}
	dirs := []wiring.LinkDir{{Dir: site.agent.SkillsDir, Items: skills}}
	if site.agent.CommandsDir != "" {
		dirs = append(dirs, wiring.LinkDir{Dir: site.agent.CommandsDir, Suffix: ".md", Items: recipes})
	}
	links, warnings, err := wiring.SyncLinks(site.base, dirs, ownLinks(site, entry.Links))
	entry.Links = links
	for _, w := range warnings {
		a.warnf("quiver: %s", w)
	}
	return err
}

// ownLinks keeps the recorded links that lie directly in the agent's own
// skills or commands folder: only those are quiver's to change, since the
// record may have come with a repository.
func ownLinks(site agentSite, links []wiring.Link) []wiring.Link {
	var own []wiring.Link
	for _, l := range links {
		d := filepath.Dir(filepath.FromSlash(l.Path))
		if d == filepath.FromSlash(site.agent.SkillsDir) || (site.agent.CommandsDir != "" && d == filepath.FromSlash(site.agent.CommandsDir)) {
			own = append(own, l)
		}
	}
	return own
}

// linkItems are the active items of one scope, as the agent should see
// them: a skill's folder, a recipe's file.
func linkItems(docs []discovery.Doc, s plugins.Scope, folder bool) []wiring.Item {
	var items []wiring.Item
	for _, d := range docs {
		if d.Status != discovery.Active || d.Location != s.Location {
			continue
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

// syncAgents re-links the skills and recipes of every wired agent of the
// layout's scopes; every mutating command ends with it (SPEC §13).
func (a *App) syncAgents(ctx context.Context, layout plugins.Layout) error {
	docs := a.activeDocs(layout)
	var errs []error
	for _, s := range layout.Scopes() {
		path := filepath.Join(s.MachineDir(), wiring.RecordFile)
		if _, err := os.Lstat(path); err != nil {
			continue
		}
		rec, err := wiring.ReadRecord(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		changed := false
		for _, name := range rec.Names() {
			ag, err := agents.Lookup(name)
			if err != nil {
				continue // an agent this quiver does not know: left alone
			}
			site := a.siteOf(ag, layout, s.Location == plugins.Global)
			// An agents.yaml may come with a repository: only agents
			// whose configuration really calls quiver get links.
			if checkConfigPath(site) != nil {
				continue
			}
			if data, ok, err := readAgentConfig(site.config); err != nil || !ok {
				continue
			} else if wired, _ := wiredIn(ag, data); !wired {
				continue
			}
			unlock, err := a.lockAgents(ctx, site)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			entry := rec.Agents[name]
			before := fmt.Sprint(entry.Links)
			if err := a.syncLinks(docs, site, entry); err != nil {
				errs = append(errs, err)
			}
			changed = changed || fmt.Sprint(entry.Links) != before
			unlock()
		}
		if changed {
			if err := rec.Write(path); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func (a *App) newAgentSyncCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "sync",
		Short: "Re-link skills and recipes into every wired agent's folders",
		Long: `Make the links quiver keeps in wired agents' skill and command folders match
the active skills and recipes. Every command that installs, removes, updates,
enables or disables plugins does this already; sync is for changes quiver did
not make (a standalone skill you added by hand).`,
		Example: "  quiver agent sync",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			layout, err := a.layout()
			if err != nil {
				return err
			}
			return a.syncAgents(cmd.Context(), layout)
		},
	}
}

// agentListJSON is one row of `agent list --json`.
type agentListJSON struct {
	Agent    string `json:"agent"`
	Title    string `json:"title"`
	Location string `json:"location"`
	Config   string `json:"config"`
	Wired    bool   `json:"wired"`
	Command  string `json:"command,omitempty"`
	Links    int    `json:"links"`
	Problem  string `json:"problem,omitempty"`
}

func (a *App) newAgentListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "Show which agents call quiver, in this project and in your home",
		Example: "  quiver agent list\n  quiver agent list --json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			rows, err := a.agentRows()
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.Stdout, rows)
			}
			var table [][]string
			for _, r := range rows {
				wired := "no"
				if r.Wired {
					wired = "yes"
				}
				table = append(table, []string{r.Agent, r.Location, visible(r.Config), wired, fmt.Sprint(r.Links)})
			}
			return a.writeTable([]string{"AGENT", "LOCATION", "CONFIG", "WIRED", "LINKS"}, table)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// agentRows is every agent in every scope: wired is whether its
// configuration holds quiver's entries (what the agent will do), links
// what quiver keeps for it.
func (a *App) agentRows() ([]agentListJSON, error) {
	layout, err := a.layout()
	if err != nil {
		return nil, err
	}
	rows := []agentListJSON{}
	for _, s := range layout.Scopes() {
		rec, err := wiring.ReadRecord(filepath.Join(s.MachineDir(), wiring.RecordFile))
		if err != nil {
			return nil, err
		}
		for _, ag := range agents.All() {
			site := a.siteOf(ag, layout, s.Location == plugins.Global)
			row := agentListJSON{Agent: ag.Name, Title: ag.Title, Location: string(s.Location), Config: site.config}
			if data, ok, err := readAgentConfig(site.config); err != nil {
				row.Problem = err.Error()
			} else if ok {
				row.Wired, row.Problem = wiredIn(ag, data)
			}
			if r := rec.Agents[ag.Name]; r != nil {
				row.Command, row.Links = r.Command, len(r.Links)
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// wiredIn reports whether data (an agent's configuration) holds one of
// quiver's entries.
func wiredIn(ag *agents.Agent, data []byte) (bool, string) {
	d, err := wiring.ParseDoc(data, ag.Comments)
	if err != nil {
		return false, err.Error()
	}
	c := wiringConfig(ag, "quiver", false)
	for _, e := range c.Entries {
		elems, err := d.Array(e.Keys...)
		if err != nil {
			return false, err.Error()
		}
		for _, el := range elems {
			if c.Ours(el) {
				return true, ""
			}
		}
	}
	return false, ""
}

func completeAgents(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return agents.Names(), cobra.ShellCompDirectiveNoFileComp
}

// resyncing lists the commands that change which skills and recipes are
// active: each ends by re-linking them into wired agents' folders.
var resyncing = []string{"plugin add", "plugin remove", "plugin update", "plugin install", "plugin enable", "plugin disable"}

// resyncAfter makes the resyncing commands end with syncAgents; a
// failure there is a warning, since the command itself succeeded.
func (a *App) resyncAfter(root *cobra.Command) {
	for _, path := range resyncing {
		cmd := lookup(root, strings.Fields(path)...)
		if cmd == nil {
			continue
		}
		cmd.PostRunE = func(cmd *cobra.Command, args []string) error {
			layout, err := a.layout()
			if err == nil {
				err = a.syncAgents(cmd.Context(), layout)
			}
			if err != nil {
				a.warnf("quiver: warning: re-linking skills into wired agents: %v", err)
			}
			return nil
		}
	}
}

// diagnoseAgents finds what doctor reports about wired agents: a quiver
// the agent cannot run, and plugins whose hooks would run twice because
// the agent has them natively too.
func (a *App) diagnoseAgents(layout plugins.Layout) []finding {
	var out []finding
	rows, err := a.agentRows()
	if err != nil {
		return []finding{{Severity: "warning", Reason: "agents: " + err.Error(), Fix: "fix or remove the file it names"}}
	}
	wired := map[string]bool{}
	for _, r := range rows {
		if r.Problem != "" {
			out = append(out, finding{Severity: "warning", File: r.Config, Reason: fmt.Sprintf("%s's configuration: %s", r.Title, r.Problem), Fix: "fix the file; quiver leaves it as it is"})
		}
		if !r.Wired {
			continue
		}
		wired[r.Agent] = true
		command := r.Command
		if command == "" {
			command = "quiver"
		}
		if problem := commandProblem(command); problem != "" {
			out = append(out, finding{Severity: "warning", File: r.Config, Reason: fmt.Sprintf("%s calls quiver, but %s", r.Title, problem),
				Fix: fmt.Sprintf("put quiver on PATH, or run quiver agent install %s%s --command /path/to/quiver", r.Agent, locationFlag(r.Location))})
		}
	}
	if wired["claude"] && wired["cursor"] {
		out = append(out, finding{Severity: "warning", Reason: "quiver is wired into both Claude Code and Cursor; Cursor also runs the hooks in .claude/settings.json, so in Cursor every quiver hook runs twice",
			Fix: "quiver agent remove cursor, or turn off Cursor's third-party configs"})
	}
	if !wired["claude"] {
		return out
	}
	native := a.claudeNativePlugins(layout)
	for _, s := range layout.Scopes() {
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
					out = append(out, finding{Severity: "warning", File: file,
						Reason: fmt.Sprintf("plugin %s is installed through quiver and enabled natively in Claude Code as %s: its hooks would run twice", p.Name, key),
						Fix:    fmt.Sprintf("disable %s in Claude Code (/plugin), or quiver plugin remove %s%s", key, p.Name, scopeFlag(s))})
					break
				}
			}
		}
	}
	return out
}

func locationFlag(location string) string {
	if location == string(plugins.Global) {
		return " -g"
	}
	return ""
}

// claudeNativePlugins reads the plugins Claude Code has enabled itself
// ("name@marketplace": true under enabledPlugins) in the project's and
// the user's settings, with the file that says so.
func (a *App) claudeNativePlugins(layout plugins.Layout) map[string]string {
	found := map[string]string{}
	files := []string{filepath.Join(a.home(), agents.Claude.ConfigGlobal)}
	if layout.Local != nil {
		files = append(files, filepath.Join(layout.ProjectDir, agents.Claude.ConfigLocal), filepath.Join(layout.ProjectDir, ".claude", "settings.local.json"))
	}
	for _, f := range files {
		data, ok, err := readAgentConfig(f)
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
