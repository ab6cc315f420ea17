package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// Trust renewal (SPEC §9). A user's own local command (plugin add, update,
// remove, enable, disable; marketplace add, update, remove) keeps a
// trusted project trusted, under three rules:
//
//   - A pull is not a trust: renewal happens only when the project matched
//     its whole record (what runs, the lock, the marketplaces) before the
//     command, or had no record and nothing that runs.
//   - Exactly what the command changed: every other change since the
//     snapshot (a pull landing meanwhile) stops the renewal.
//   - The user's own choice of source: what the command changed renews
//     only when its content came from a source the user typed on this
//     machine, or from a marketplace the user added here (or trusted with
//     quiver trust, which shows those sources). What came through the
//     repository's lock or its marketplace stays untrusted until quiver
//     trust.
//
// The caller refuses all of it inside an agent's session: a person grants
// trust, not an agent (AgentSession).

// TrustSnapshot is a project's trust before a change the user makes, to
// renew it after.
type TrustSnapshot struct {
	matched bool
	record  trustRecord
	parts   map[string]trustPart
}

// Matched reports whether the project matched its record (or needed
// none) when the snapshot was taken.
func (s TrustSnapshot) Matched() bool { return s.matched }

// SnapshotTrust records the project's trust and the lines of its
// fingerprints.
func SnapshotTrust(l plugins.Layout) (TrustSnapshot, error) {
	t, err := ProjectTrust(l, false)
	if err != nil {
		return TrustSnapshot{}, err
	}
	snap := TrustSnapshot{matched: t.Matched(), record: t.record, parts: map[string]trustPart{}}
	for _, p := range t.parts {
		snap.parts[p.key] = p
	}
	return snap, nil
}

// Change is what a user's command changed, by name.
type Change struct {
	// Plugins the command added, updated, removed, enabled or disabled;
	// nil means any plugin (update --all).
	Plugins []plugins.Name
	// Marketplaces the command added, updated or removed.
	Marketplaces []string
	// Config: the command changed the project's plugin settings
	// (.quiver/config.yaml, plugin config).
	Config bool
}

func (c Change) plugin(n plugins.Name) bool {
	if c.Plugins == nil {
		return true
	}
	for _, p := range c.Plugins {
		if p == n {
			return true
		}
	}
	return false
}

// Renewal is what RenewTrust did.
type Renewal struct {
	// Renewed: the record now covers the project as it is.
	Renewed bool
	// Stale: the project did not match its record before the command (a
	// pull changed it), so nothing was renewed.
	Stale bool
	// Foreign lists what changed that was not the user's choice: other
	// changes made meanwhile, and content from a source the repository
	// chose. Nothing was renewed.
	Foreign []string
	// Trust is the project's state after the command.
	Trust Trust
}

// RenewTrust records the project's trust again after a user's command,
// under the rules at the top of this file. ErrTrustChanged: another
// quiver trusted or revoked the project meanwhile.
func RenewTrust(l plugins.Layout, before TrustSnapshot, ch Change) (Renewal, error) {
	t, err := ProjectTrust(l, false)
	r := Renewal{Trust: t}
	if err != nil || !before.matched {
		r.Stale = !before.matched
		return r, err
	}
	lock, err := plugins.ReadLock(l.Local.LockPath())
	if err != nil {
		return r, err
	}
	choices, err := readChoices(l)
	if err != nil {
		return r, err
	}
	c := chooser{l: l, lock: lock, choices: choices}
	now := map[string]trustPart{}
	for _, p := range t.parts {
		now[p.key] = p
	}
	pluginsRel := ""
	if rel, err := filepath.Rel(l.ProjectDir, l.Local.PluginsDir()); err == nil {
		pluginsRel = filepath.ToSlash(rel) + "/"
	}
	configRel := ""
	if rel, err := filepath.Rel(l.ProjectDir, l.Local.ConfigPath()); err == nil {
		configRel = filepath.ToSlash(rel)
	}
	ours := func(key string) bool {
		b, had := before.parts[key]
		a, has := now[key]
		kind, what, _ := strings.Cut(key, " ")
		switch kind {
		case "file":
			if what == configRel {
				return ch.Config
			}
			dir, _, _ := strings.Cut(strings.TrimPrefix(what, pluginsRel), "/")
			n, err := plugins.ParseName(dir)
			if !strings.HasPrefix(what, pluginsRel) || err != nil || !ch.plugin(n) {
				return false
			}
			// Removing or disabling is always the user's to do; new
			// content only from a source the user chose.
			return !has || (had && b.content == a.content && a.disabled) || c.plugin(n)
		case "lock", "replaces":
			n, err := plugins.ParseName(what)
			return err == nil && ch.plugin(n) && (!has || kind == "replaces" || c.plugin(n))
		case "marketplace":
			for _, m := range ch.Marketplaces {
				if m == what {
					return !has || c.marketplace(m)
				}
			}
		}
		return false
	}
	changed := false
	for k, v := range now {
		if b, had := before.parts[k]; !had || b.line != v.line {
			changed = true
			if !ours(k) {
				r.Foreign = append(r.Foreign, strings.TrimPrefix(k, "file "))
			}
		}
	}
	for k := range before.parts {
		if _, ok := now[k]; !ok {
			changed = true
			if !ours(k) {
				r.Foreign = append(r.Foreign, strings.TrimPrefix(k, "file "))
			}
		}
	}
	if len(r.Foreign) > 0 {
		sort.Strings(r.Foreign)
		return r, nil
	}
	if !changed && !t.HasRecord {
		// A project with nothing to trust that the command did not
		// change (it failed, or changed nothing): no record to start.
		return r, nil
	}
	r.Trust, err = storeTrust(l, t, &before.record)
	r.Renewed = err == nil
	return r, err
}

// ErrTrustChanged is returned by RenewTrust when the project's trust
// record changed while the caller worked (another quiver trusted or
// revoked it): the caller's view is stale, so nothing is recorded.
var ErrTrustChanged = errors.New("the project's trust changed meanwhile")

// AgentSession names the agent whose session the environment belongs to
// ("" outside any): Claude Code sets CLAUDECODE in its tools' shells,
// Gemini CLI sets GEMINI_CLI, Codex (0.169, read from its binary) sets
// CODEX_CI, CODEX_SANDBOX*, CODEX_THREAD_ID and CODEX_SESSION_ID, and its
// npm launcher CODEX_MANAGED_BY_NPM; quiver sets QUIVER_IN_AGENT for the
// hooks it runs (and exports it into Claude's shell at format.SessionStart).
// CODEX_HOME is a user's setting, not a marker. Trust recorded there
// would be an agent's choice, which text it read (a README saying "run
// quiver trust") may have made: quiver records none.
//
// A marker counts whatever its value ("0" too), and on Linux an agent
// among the process's ancestors counts as well, so that a command line
// that clears the markers (env -u CLAUDECODE quiver trust) is still
// refused. This stops a command an agent was told to run; it is no wall
// against an agent that can write its own programs.
func AgentSession(getenv func(string) string) string {
	for _, k := range agentMarkers {
		if getenv(k) != "" {
			return k
		}
	}
	if name := agentAncestor(); name != "" {
		return "a process of " + name
	}
	return ""
}

// agentProgram names the agent a program (or the script an interpreter
// runs) is, "" for any other.
func agentProgram(base string) string {
	switch strings.TrimSuffix(base, ".exe") {
	case "claude":
		return "Claude Code"
	case "gemini":
		return "Gemini CLI"
	case "codex":
		return "Codex"
	case "cursor-agent":
		return "Cursor"
	case "opencode":
		return "OpenCode"
	case "copilot":
		return "GitHub Copilot CLI"
	}
	return ""
}

// agentMarkers are the variables AgentSession looks for.
var agentMarkers = []string{"QUIVER_IN_AGENT", "CLAUDECODE", "GEMINI_CLI", "CODEX_CI", "CODEX_SANDBOX",
	"CODEX_SANDBOX_NETWORK_DISABLED", "CODEX_THREAD_ID", "CODEX_SESSION_ID", "CODEX_MANAGED_BY_NPM",
	"CODEX_MANAGED_BY_BUN", "CODEX_MANAGED_BY_PNPM"}

// The user's choices: which plugin and marketplace sources the user chose
// in this project, on this machine (typed in a command, or accepted with
// quiver trust). They live in the project's machine folder, never in the
// project, so a repository cannot plant one.

// ChoicesFile is the record of the user's choices in a project's machine
// folder.
const ChoicesFile = "choices.json"

type choices struct {
	Plugins      map[string]choice `json:"plugins"`
	Marketplaces map[string]choice `json:"marketplaces"`
	// Disabled names the project's plugins the user disabled on this
	// machine: only those may switch off a global install of the same
	// name (a lock entry committed as disabled may not).
	Disabled map[string]bool `json:"disabled,omitempty"`
}

// choice is where a plugin or marketplace comes from: for a marketplace
// entry only the marketplace, which then decides its sources.
type choice struct {
	Source      string `json:"source,omitempty"`
	Path        string `json:"path,omitempty"`
	Marketplace string `json:"marketplace,omitempty"`
}

func choicesPath(l plugins.Layout) string { return filepath.Join(l.Local.MachineDir(), ChoicesFile) }

func readChoices(l plugins.Layout) (*choices, error) {
	c := &choices{Plugins: map[string]choice{}, Marketplaces: map[string]choice{}, Disabled: map[string]bool{}}
	data, err := safefs.ReadFile(choicesPath(l), safefs.MaxMeta)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err == nil {
		err = json.Unmarshal(data, c)
	}
	if err != nil {
		return nil, err
	}
	if c.Plugins == nil {
		c.Plugins = map[string]choice{}
	}
	if c.Marketplaces == nil {
		c.Marketplaces = map[string]choice{}
	}
	if c.Disabled == nil {
		c.Disabled = map[string]bool{}
	}
	return c, nil
}

// disabledByUser is the set of the project's plugins the user disabled on
// this machine (empty when unknown).
func disabledByUser(l plugins.Layout) map[string]bool {
	if l.Local == nil {
		return map[string]bool{}
	}
	c, err := readChoices(l)
	if err != nil {
		return map[string]bool{}
	}
	return c.Disabled
}

// ChooseDisabled records that the user disabled (or enabled) the named
// plugins on this machine.
func ChooseDisabled(l plugins.Layout, names []plugins.Name, disabled bool) error {
	return updateChoices(l, func(c *choices, _ *plugins.Lock) {
		for _, n := range names {
			if disabled {
				c.Disabled[n.String()] = true
			} else {
				delete(c.Disabled, n.String())
			}
		}
	})
}

// updateChoices changes the record under a file lock; a change that
// changes nothing writes nothing.
func updateChoices(l plugins.Layout, change func(*choices, *plugins.Lock)) error {
	if l.Local == nil {
		return nil
	}
	apply := func() (*choices, bool, error) {
		c, err := readChoices(l)
		if err != nil {
			return nil, false, err
		}
		lock, err := plugins.ReadLock(l.Local.LockPath())
		if err != nil {
			return nil, false, err
		}
		was, _ := json.Marshal(c)
		change(c, lock)
		now, _ := json.Marshal(c)
		return c, string(now) != string(was), nil
	}
	if _, changed, err := apply(); err != nil || !changed {
		return err
	}
	path := choicesPath(l)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	unlock, err := plugins.HoldFileMutex(context.Background(), path+".lock", trustLockWait, nil)
	if err != nil {
		return err
	}
	defer unlock()
	c, _, err := apply() // again, under the lock
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return plugins.WriteFileAtomic(path, append(data, '\n'), 0o600)
}

func choiceOf(e plugins.LockEntry) choice {
	if e.Marketplace != "" {
		return choice{Marketplace: e.Marketplace}
	}
	return choice{Source: e.Source, Path: e.Path}
}

// ChoosePlugins records that the user chose the named plugins' sources,
// as their lock entries now say (plugin add with a spec the user typed).
func ChoosePlugins(l plugins.Layout, names []plugins.Name) error {
	return updateChoices(l, func(c *choices, lock *plugins.Lock) {
		for _, n := range names {
			if e, ok := lock.Plugins[n.String()]; ok {
				c.Plugins[n.String()] = choiceOf(e)
			}
		}
	})
}

// ChosenMarketplace reports whether the user added the project's
// marketplace name from source on this machine (or accepted it with quiver
// trust).
func ChosenMarketplace(l plugins.Layout, name, source string) bool {
	if l.Local == nil {
		return false
	}
	c, err := readChoices(l)
	if err != nil {
		return false
	}
	ch, ok := c.Marketplaces[name]
	return ok && plugins.SameSource(ch.Source, source)
}

// ChooseMarketplace records that the user added marketplace name.
func ChooseMarketplace(l plugins.Layout, name string) error {
	return updateChoices(l, func(c *choices, lock *plugins.Lock) {
		if e, ok := lock.Marketplaces[name]; ok {
			c.Marketplaces[name] = choice{Source: e.Source}
		}
	})
}

// Forget drops the choices of plugins and marketplaces the user removed.
func Forget(l plugins.Layout, names []plugins.Name, marketplaces []string) error {
	return updateChoices(l, func(c *choices, _ *plugins.Lock) {
		for _, n := range names {
			delete(c.Plugins, n.String())
			delete(c.Disabled, n.String())
		}
		for _, m := range marketplaces {
			delete(c.Marketplaces, m)
		}
	})
}

// chooseAll makes every source of the lock the user's choice (quiver
// trust, which shows them).
func chooseAll(l plugins.Layout) error {
	return updateChoices(l, func(c *choices, lock *plugins.Lock) {
		for n, e := range lock.Plugins {
			c.Plugins[n] = choiceOf(e)
		}
		for n, e := range lock.Marketplaces {
			c.Marketplaces[n] = choice{Source: e.Source}
		}
		// Not the lock's disabled entries: disabling a plugin here is
		// done only by plugin disable, since a committed one could
		// switch a global guard off (SPEC §9).
	})
}

// chooser answers whether content came from the user's choice of source.
type chooser struct {
	l       plugins.Layout
	lock    *plugins.Lock
	choices *choices
	global  *plugins.Lock
}

// plugin: n's lock entry is where the user chose to get it from.
func (c *chooser) plugin(n plugins.Name) bool {
	e, ok := c.lock.Plugins[n.String()]
	ch, chosen := c.choices.Plugins[n.String()]
	if !ok || !chosen {
		return false
	}
	if e.Marketplace != "" {
		return ch.Marketplace == e.Marketplace && c.marketplace(e.Marketplace)
	}
	return ch.Marketplace == "" && plugins.SameSource(ch.Source, e.Source) && ch.Path == e.Path
}

// marketplace: the marketplace the project's plugins resolve through is
// one the user added: the project's, from the source the user chose, or
// else the user's own global one.
func (c *chooser) marketplace(name string) bool {
	if e, ok := c.lock.Marketplaces[name]; ok {
		ch, chosen := c.choices.Marketplaces[name]
		return chosen && plugins.SameSource(ch.Source, e.Source)
	}
	if c.global == nil {
		c.global, _ = plugins.ReadLock(c.l.Global.LockPath())
	}
	if c.global == nil {
		return false
	}
	_, ok := c.global.Marketplaces[name]
	return ok
}

// RepositorySources lists the project's lock entries and marketplaces
// whose source the user has not chosen on this machine (they came with
// the repository), as "plugin NAME from SOURCE" and "marketplace NAME
// from SOURCE", for quiver trust to show before it makes them the user's.
func RepositorySources(l plugins.Layout) ([]string, error) {
	if l.Local == nil {
		return nil, nil
	}
	lock, err := plugins.ReadLock(l.Local.LockPath())
	if err != nil {
		return nil, err
	}
	ch, err := readChoices(l)
	if err != nil {
		return nil, err
	}
	c := chooser{l: l, lock: lock, choices: ch}
	var out []string
	for _, n := range lock.Names() {
		name, err := plugins.ParseName(n)
		if err != nil || c.plugin(name) {
			continue
		}
		e := lock.Plugins[n]
		from := plugins.Redact(e.Source)
		if e.Path != "" {
			from += " (folder " + e.Path + ")"
		}
		if e.Marketplace != "" {
			from += " through marketplace " + e.Marketplace
		}
		out = append(out, "plugin "+n+" from "+from)
	}
	var ms []string
	for m := range lock.Marketplaces {
		if !c.marketplace(m) {
			ms = append(ms, "marketplace "+m+" from "+plugins.Redact(lock.Marketplaces[m].Source))
		}
	}
	sort.Strings(ms)
	return append(out, ms...), nil
}

// UserChange is a local change the user asked for (plugin add, remove,
// update, enable, disable; marketplace add, update, remove), for
// KeepTrust. Commands that install what the repository chose (plugin
// install) never come here.
type UserChange struct {
	// What names what Do changes; Do may fill it in (a marketplace's name
	// is known once it is fetched).
	What *Change
	// Do makes the change; Record then records the user's choices (a
	// source typed, a plugin removed), outside agent sessions.
	Do, Record func() error
	// Repair finishes what an interrupted command left, before the
	// snapshot: a journal committed with the repository could otherwise
	// restore a plugin between the snapshot and the renewal, and have
	// it trusted.
	Repair func() error
	// Agent is AgentSession's answer: inside an agent's session nothing
	// is recorded.
	Agent string
	// Global: the change is to the user's own scope, which has no trust
	// to keep; Do alone runs (as it does without a project).
	Global bool
}

// MarketplaceAdded is marketplace add as a user change: add fetches the
// marketplace and returns the name it was added under ("" when it was
// not), which the renewal then covers and the user's choices record as
// theirs (ChooseMarketplace).
func MarketplaceAdded(l plugins.Layout, add func() (string, error)) UserChange {
	ch := &Change{}
	var name string
	return UserChange{
		What: ch,
		Do: func() (err error) {
			name, err = add()
			ch.Marketplaces = []string{name}
			return err
		},
		Record: func() error {
			if name == "" {
				return nil
			}
			return ChooseMarketplace(l, name)
		},
	}
}

// MarketplaceRemoved is marketplace remove as a user change: once
// remove succeeded, the user's choice of the marketplace is forgotten.
func MarketplaceRemoved(l plugins.Layout, name string, remove func() error) UserChange {
	removed := false
	return UserChange{
		What: &Change{Marketplaces: []string{name}},
		Do: func() error {
			err := remove()
			removed = err == nil
			return err
		},
		Record: func() error {
			if !removed {
				return nil
			}
			return Forget(l, nil, []string{name})
		},
	}
}

// Kept is what KeepTrust did besides the change, for the caller to say.
type Kept struct {
	Renewal
	// Agent is set when the change ran inside an agent's session, which
	// recorded nothing; AgentUntrusted when the project is then not
	// trusted.
	Agent          string
	AgentUntrusted bool
	// RecordErr, SnapshotErr and RenewErr are what went wrong with the
	// user's choices, the trust snapshot and the renewal; none of them
	// undoes the change.
	RecordErr, SnapshotErr, RenewErr error
}

// KeepTrust runs a user's change and renews the project's trust for
// exactly what it changed, under the rules at the top of this file. The
// error is the change's (or the repair's).
func KeepTrust(l plugins.Layout, u UserChange) (Kept, error) {
	var k Kept
	if u.Global || l.Local == nil {
		return k, u.Do()
	}
	if u.Repair != nil {
		if err := u.Repair(); err != nil {
			return k, err
		}
	}
	before, serr := SnapshotTrust(l)
	err := u.Do()
	if u.Agent != "" {
		k.Agent = u.Agent
		if t, terr := ProjectTrust(l, false); terr == nil && !t.Trusted() {
			k.AgentUntrusted = true
		}
		return k, err
	}
	if u.Record != nil {
		k.RecordErr = u.Record()
	}
	if serr != nil {
		k.SnapshotErr = serr
		return k, err
	}
	k.Renewal, k.RenewErr = RenewTrust(l, before, *u.What)
	return k, err
}

// Notices are what the user is told about KeepTrust's outcome, in order:
// each says why trust was not kept and what to do. A renewal that went
// as it should says nothing.
func (k Kept) Notices() []string {
	var out []string
	switch {
	case k.Agent != "":
		if k.AgentUntrusted {
			out = append(out, fmt.Sprintf("quiver: the project's hooks are not trusted, and quiver records no trust inside an agent's session (%s is set): run quiver trust yourself, in a terminal", k.Agent))
		}
		return out
	case k.RecordErr != nil:
		out = append(out, fmt.Sprintf("quiver: could not record your choice of source: %v", k.RecordErr))
	}
	switch {
	case k.SnapshotErr != nil:
		out = append(out, fmt.Sprintf("quiver: could not read the project's trust before the change, so it was not renewed: %v", k.SnapshotErr))
	case errors.Is(k.RenewErr, ErrTrustChanged):
		out = append(out, "quiver: the project's trust changed while this command ran, so it was not renewed; review with quiver hook list --all, then run quiver trust")
	case k.RenewErr != nil:
		out = append(out, fmt.Sprintf("quiver: could not record trust for the project's hooks: %v", k.RenewErr))
	case k.Trust.Trusted():
		// Nothing to say: what runs is trusted.
	case k.Stale:
		out = append(out, "quiver: trust was not renewed: the project changed since you last trusted it (a pull?); quiver trust names what changed")
	case len(k.Foreign) > 0:
		shown := k.Foreign
		if len(shown) > 5 {
			shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(k.Foreign)-5))
		}
		out = append(out, fmt.Sprintf("quiver: trust was not renewed: %s changed without being your choice (changed meanwhile, or fetched from a source the repository's lock or marketplace chose); review with quiver hook list --all, then run quiver trust", strings.Join(shown, ", ")))
	}
	return out
}
