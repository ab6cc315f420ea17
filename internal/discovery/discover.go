package discovery

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// Status says whether an item is in effect, and if not, why.
type Status string

// Item statuses (SPEC §7).
const (
	Active    Status = "active"
	Shadowed  Status = "shadowed"
	Disabled  Status = "disabled"
	Untrusted Status = "untrusted"
	Invalid   Status = "invalid"
)

// Hook is one hook as discovered, in any status.
type Hook struct {
	// Name is the full name (acme/guard/validate or audit-log).
	Name string
	// Event is "" when it is unknown: not asked (untrusted, disabled) or
	// the hook gave no valid answer.
	Event string
	// Persistent: the hook asked to be kept running by hook serve
	// (SPEC §14); hook run still runs it one-shot.
	Persistent bool
	Path       string
	Location   plugins.Location
	// Plugin is the plugin's org/repo, zero for standalone hooks.
	Plugin plugins.Name
	// PluginRoot and DataDir are the plugin's folder and data folder.
	PluginRoot, DataDir string
	Status              Status
	Reason              string
	// Format is FormatNative or FormatClaude.
	Format string
	// Handler is the hooks.json entry a Claude-format hook runs (nil for
	// native hooks, and for a hooks.json that could not be read at all).
	Handler *format.Handler
	// Selector decides whether a Claude handler runs for a payload (its
	// matcher and condition); nil for native hooks.
	Selector *format.Selector
	// Ident is the native hook file as discovery found it (and trust
	// fingerprinted it, which happens after): the executor starts it only
	// while it is unchanged.
	Ident safefs.Ident
	// plugin is the installed plugin a Claude handler comes from, whose
	// settings UserConfig reads (nil for native hooks and standalone
	// handlers).
	plugin *plugins.Plugin
	// same is what makes two Claude handlers one (Dedupe): their
	// plugin or file, type, shell, command, args, url and condition.
	same string
}

// Background reports a Claude handler that never delays its event
// (async or asyncRewake, SPEC §15); native hooks never are.
func (h Hook) Background() bool { return h.Handler != nil && h.Handler.Background() }

// Hook formats (hook list --json "format").
const (
	FormatNative = "native"
	FormatClaude = "claude"
)

// source is one of the places items come from, in precedence order.
type source struct {
	location plugins.Location
	plugin   plugins.Name // zero for the scope's standalone items
	root     string
	dataDir  string
	contents plugins.Contents
	// disabled: the plugin is disabled; shadowedBy: a local install of
	// the same plugin shadows this global one as a whole.
	disabled   bool
	shadowedBy string
	// project: the item came with the project and needs trust to run.
	project bool
	// installed is the plugin as listed (nil for standalone items).
	installed *plugins.Plugin
}

// status is what the source does to all of its items: a disabled plugin's
// items are disabled, a global install shadowed by its local install is
// shadowed as a whole; otherwise they are active.
func (s source) status() (Status, string) {
	switch {
	case s.disabled:
		return Disabled, fmt.Sprintf("plugin %s is disabled", s.plugin)
	case s.shadowedBy != "":
		return Shadowed, "shadowed by " + s.shadowedBy
	}
	return Active, ""
}

func (s source) describe() string {
	if s.plugin.IsZero() {
		return string(s.location) + " standalone"
	}
	return string(s.location) + " " + s.plugin.String()
}

// scopeSources lists a scope's standalone folder and its plugins, reading
// only the given kinds of items.
//
// Skills and recipes of the project, and of every plugin, are confined to
// their folder (plugins.Confine): their symlinks are the repository's
// choice, and one to ~/.aws/credentials must not be served to the agent.
// The user's own global standalone folders may link anywhere.
//
// Folders are listed through the scope's directory index (dirIndex),
// which is written back only when keep is set: a command about to change
// plugins (the trust snapshot of plugin add, update, remove) would only
// write what it is about to make stale, and a failed one must leave the
// scope as it was.
func scopeSources(s plugins.Scope, project bool, kinds plugins.Kinds, keep bool) ([]source, error) {
	standaloneKinds := kinds
	if project {
		standaloneKinds |= plugins.Confine
	}
	ix := loadDirIndex(s, kinds, nil)
	standalone, err := plugins.ScanWith(s.Root, standaloneKinds, ix)
	if err != nil {
		return nil, err
	}
	out := []source{{location: s.Location, root: s.Root, contents: standalone, project: project}}
	ps, err := plugins.ListPluginsWith(s, kinds|plugins.Confine, false, ix)
	if err != nil {
		return nil, err
	}
	if keep {
		ix.save()
	}
	out = slices.Grow(out, len(ps))
	for i := range ps {
		p := &ps[i] // not a copy per plugin: installed points into ps
		if p.Missing {
			continue
		}
		out = append(out, source{
			location: s.Location, plugin: p.Name, root: p.Dir, dataDir: s.DataDir(p.Name),
			contents: p.Contents, disabled: !p.Enabled(), project: project, installed: p,
		})
	}
	return out, nil
}

func localSources(l plugins.Layout, kinds plugins.Kinds, keep bool) ([]source, error) {
	if l.Local == nil {
		return nil, nil
	}
	return scopeSources(*l.Local, true, kinds, keep)
}

// sources lists all four sources in precedence order (SPEC §4) and marks
// global plugins that a local install shadows as a whole (keep: see
// scopeSources).
func sources(l plugins.Layout, kinds plugins.Kinds, keep bool) ([]source, error) {
	local, err := localSources(l, kinds, keep)
	if err != nil {
		return nil, err
	}
	global, err := scopeSources(l.Global, false, kinds, keep)
	if err != nil {
		return nil, err
	}
	localPlugins := map[plugins.Name]bool{}
	for _, s := range local {
		if !s.plugin.IsZero() {
			localPlugins[s.plugin] = true
		}
	}
	for i, s := range global {
		if localPlugins[s.plugin] {
			global[i].shadowedBy = "local " + s.plugin.String()
		}
	}
	return append(local, global...), nil
}

// Options configure discovery.
type Options struct {
	Layout plugins.Layout
	// Env is the environment hooks are asked `hook` in.
	Env []string
	// TrustAll trusts every project hook (QUIVER_TRUST_ALL=1).
	TrustAll bool
	// QueryTimeout bounds each `hook` question (DefaultQueryTimeout if 0
	// or less).
	QueryTimeout time.Duration
	// Now is the clock for retrying failed `hook` questions (time.Now if
	// nil).
	Now func() time.Time
	// KeepGoing drops a project scope that cannot be read instead of
	// failing, standing it in as one invalid hook (see hookSources): the
	// runtime's choice, so a repository cannot switch off the user's
	// global hooks. Listings report the error instead.
	KeepGoing bool
}

// HookSet is the result of hook discovery.
type HookSet struct {
	// Hooks holds every hook in precedence order, whatever its status;
	// this is also the order in which active hooks run.
	Hooks []Hook
	// Skipped are files in hooks/ folders that cannot be hooks (not
	// executable, unsafe names), for doctor and validate.
	Skipped []SkippedFile
	Trust   Trust
}

// SkippedFile is a file in a hooks/ folder that is not a hook, and why.
type SkippedFile struct {
	Path     string
	Location plugins.Location
	Plugin   plugins.Name
	Reason   string
}

// Active returns the hooks in effect for event, in the order they run.
func (hs *HookSet) Active(event string) []Hook {
	var out []Hook
	for _, h := range hs.Hooks {
		if h.Status == Active && h.Event == event {
			out = append(out, h)
		}
	}
	return out
}

// ForEvent is what the runtime feeds to the trigger for event: the active
// hooks for it and, in their precedence places, the invalid hooks whose
// event is unknown (their `hook` answer failed, or they escape their
// folder) and whose name no active hook holds. Such a hook might be a
// guard for this event, so the trigger reports it, and blocks under
// --fail-closed, rather than dropping it silently (SPEC §8).
func (hs *HookSet) ForEvent(event string) []Hook {
	// The names of the active hooks matter only to a hook whose event is
	// unknown, which is rare: the set is built when one is met.
	var held map[string]bool
	var out []Hook
	for i := range hs.Hooks {
		h := &hs.Hooks[i]
		switch {
		case h.Status == Active && h.Event == event,
			// A Claude handler for this event that cannot run.
			h.Status == Invalid && h.Handler != nil && h.Event == event:
			out = append(out, *h)
		case h.Status == Invalid && h.Handler == nil && h.Event == "":
			// A hook (or a whole hooks.json) whose event is unknown; a
			// Claude handler of an event quiver does not have is not.
			if held == nil {
				held = map[string]bool{}
				for _, a := range hs.Hooks {
					if a.Status == Active {
						held[a.Name] = true
					}
				}
			}
			if !held[h.Name] {
				out = append(out, *h)
			}
		}
	}
	return out
}

// UntrustedCount is the number of project hooks skipped for lack of trust.
func (hs *HookSet) UntrustedCount() int {
	n := 0
	for _, h := range hs.Hooks {
		if h.Status == Untrusted {
			n++
		}
	}
	return n
}

// Hooks discovers every hook. A hook's event comes from the type cache;
// only new or changed hooks are asked, concurrently. Untrusted project
// hooks and disabled ones are never executed.
func Hooks(ctx context.Context, o Options) (*HookSet, error) {
	hs, _, err := discoverHooks(ctx, o)
	return hs, err
}

// inputs is what a hook discovery read, for a Session to watch.
type inputs struct {
	srcs []source
	// retryAt is when the earliest cached failure of a `hook` question
	// must be asked again (zero: none).
	retryAt time.Time
	// partial: the result cannot be reused (the question was
	// interrupted, or the project scope could not be read).
	partial bool
}

func (in *inputs) retry(at time.Time) {
	if in.retryAt.IsZero() || at.Before(in.retryAt) {
		in.retryAt = at
	}
}

func discoverHooks(ctx context.Context, o Options) (*HookSet, *inputs, error) {
	srcs, trust, broken, err := hookSources(o.Layout, o.TrustAll, o.KeepGoing)
	if err != nil {
		return nil, nil, err
	}
	in := &inputs{srcs: srcs, partial: broken != nil}
	trusted := trust.Trusted()
	escapes := map[string]string{}
	// A source with a file that escapes its folder has every hook invalid:
	// any of them could run or load that file, which the fingerprint
	// cannot cover.
	rootEscapes := map[string]string{}
	for _, ph := range slices.Concat(trust.Hooks, trust.Files) {
		if ph.Escape != "" {
			escapes[ph.Path] = ph.Escape
			if ph.Root != "" && rootEscapes[ph.Root] == "" {
				rel, _ := filepath.Rel(ph.Root, ph.Path)
				rootEscapes[ph.Root] = filepath.ToSlash(rel) + ": " + ph.Escape
			}
		}
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	// Sized once for the native hooks (a Hook is some 300 bytes: growing
	// the slice by doubling copied and discarded as much again).
	n := 1
	for _, s := range srcs {
		n += len(s.contents.Hooks)
	}
	hs := &HookSet{Trust: trust, Hooks: make([]Hook, 0, n)}
	if broken != nil {
		hs.Hooks = append(hs.Hooks, *broken)
	}
	types := newCaches(typeCacheFile, hookTypeCodec)
	configs := newCaches(hooksJSONCacheFile, jsonCodec[parsedConfig]())
	type pending struct {
		index int
		info  os.FileInfo
		cache *fileCache[hookType]
	}
	var asks []pending
	// A repository cannot switch off the user's guards (SPEC §9): a
	// project plugin shadows the user's global install of the same name
	// only while it is in force: trusted, not escaping its folder, and
	// not disabled by a lock entry the user did not disable here.
	inForce := map[plugins.Name]bool{}
	var userDisabled map[string]bool
	for _, s := range srcs {
		if !s.project || s.plugin.IsZero() {
			continue
		}
		ok := trusted && rootEscapes[s.root] == ""
		for _, it := range s.contents.Hooks {
			ok = ok && escapes[it.Path] == ""
		}
		for _, hf := range s.contents.HookFiles {
			ok = ok && escapes[hf.Path] == ""
		}
		if ok && s.disabled {
			if userDisabled == nil {
				userDisabled = disabledByUser(o.Layout)
			}
			ok = userDisabled[s.plugin.String()]
		}
		inForce[s.plugin] = ok
	}
	for _, s := range srcs {
		if s.shadowedBy != "" && !inForce[s.plugin] {
			// An untrusted, broken or repository-disabled project
			// plugin contributes nothing, so it cannot shadow (switch
			// off) the user's own global hooks either.
			s.shadowedBy = ""
		}
		if !s.disabled && s.shadowedBy == "" {
			for _, sk := range s.contents.Skipped {
				hs.Skipped = append(hs.Skipped, SkippedFile{Path: sk.Path, Location: s.location, Plugin: s.plugin, Reason: sk.Reason})
			}
		}
		for _, it := range s.contents.Hooks {
			h := Hook{
				Name: ItemName(s.plugin, it.Name), Path: it.Path, Location: s.location,
				Plugin: s.plugin, Status: Active,
			}
			if !s.plugin.IsZero() {
				h.PluginRoot, h.DataDir = s.root, s.dataDir
			}
			h.Status, h.Reason = s.status()
			switch {
			case h.Status != Active:
			case s.project && !trusted:
				h.Status, h.Reason = Untrusted, "project hooks are not trusted; review them and run quiver trust"
			case escapes[it.Path] != "":
				h.Status, h.Reason = Invalid, escapes[it.Path]
			case s.project && rootEscapes[s.root] != "":
				h.Status, h.Reason = Invalid, rootEscapes[s.root]
			case it.Disabled:
				h.Status, h.Reason = Disabled, "file name ends in "+plugins.DisabledSuffix
			}
			if h.Status == Active {
				c := types.of(o.Layout, s.location)
				fi, err := statOf(s.contents, h.Path)
				if err == nil {
					h.Ident = safefs.IdentOf(fi)
				}
				if err != nil {
					h.Status, h.Reason = Invalid, err.Error()
				} else if e, ok := c.lookup(h.Path, fi); ok && !e.retry(now()) {
					applyType(&h, e)
					if e.Error != "" {
						in.retry(e.retryAt())
					}
				} else {
					asks = append(asks, pending{len(hs.Hooks), fi, c})
				}
			}
			hs.Hooks = append(hs.Hooks, h)
		}
		for _, hf := range s.contents.HookFiles {
			for _, h := range claudeHooks(o.Layout, s, hf, configs) {
				if st, reason := s.status(); st != Active {
					h.Status, h.Reason = st, reason
				} else if s.project && !trusted {
					h.Status, h.Reason = Untrusted, "project hooks are not trusted; review them and run quiver trust"
				} else if e := cmp.Or(escapes[hf.Path], rootEscapes[s.root]); e != "" && s.project {
					h.Status, h.Reason = Invalid, e
				}
				hs.Hooks = append(hs.Hooks, h)
			}
		}
	}
	configs.save()
	timeout := o.QueryTimeout
	if timeout <= 0 {
		timeout = DefaultQueryTimeout
	}
	// Only now is hs.Hooks complete, so pointers into it stay valid.
	queries := make([]typeQuery, len(asks))
	for i, p := range asks {
		queries[i] = typeQuery{hook: &hs.Hooks[p.index], info: p.info, cache: p.cache}
	}
	askTypes(ctx, queries, o.Layout.ProjectDir, o.Env, timeout, now)
	types.save()
	for _, q := range queries {
		if e, ok := q.cache.get(q.hook.Path); !ok {
			in.partial = true // not asked: interrupted
		} else if e.value.Error != "" {
			in.retry(e.value.retryAt())
		}
	}
	if ctx.Err() != nil {
		in.partial = true
	}
	resolveHooks(hs.Hooks)
	return hs, in, nil
}

// ProjectScopeHook is the name of the stand-in hook that reports a project
// scope discovery could not read. Parentheses are not allowed in item
// names, so no real hook can hold it.
const ProjectScopeHook = "(project .quiver)"

// hookSources reads the sources of both scopes and the project's trust.
// A project scope that cannot be read (a broken lock file, a symlink
// loop, a hook too large to fingerprint: all things a repository can
// commit) must not switch off the user's global hooks: it is dropped,
// and stands in the set as one invalid hook with the error as its
// reason, so hook run reports it, and blocks under --fail-closed, while
// the global hooks still run. An error in the global scope is the
// user's own and is returned.
func hookSources(l plugins.Layout, all, keepGoing bool) ([]source, Trust, *Hook, error) {
	srcs, err := sources(l, plugins.HookKind, true)
	var trust Trust
	if err == nil {
		trust, err = loadTrust(l, srcs, all, false)
	}
	if err == nil || l.Local == nil || !keepGoing {
		return srcs, trust, nil, err
	}
	global := l
	global.Local = nil
	srcs, gerr := sources(global, plugins.HookKind, true)
	if gerr != nil {
		return nil, Trust{}, nil, gerr
	}
	if trust, gerr = loadTrust(global, srcs, all, false); gerr != nil {
		return nil, Trust{}, nil, gerr
	}
	broken := &Hook{
		Name: ProjectScopeHook, Path: l.Local.Root, Location: plugins.Local,
		Status: Invalid, Reason: "the project's hooks cannot be read: " + err.Error(),
		Format: FormatNative,
	}
	return srcs, trust, broken, nil
}

// statOf returns the file info the scan already has, else stats the file.
func statOf(c plugins.Contents, path string) (os.FileInfo, error) {
	if fi, ok := c.Info[path]; ok {
		return fi, nil
	}
	return os.Stat(path)
}

func scopeOf(l plugins.Layout, loc plugins.Location) plugins.Scope {
	if loc == plugins.Local && l.Local != nil {
		return *l.Local
	}
	return l.Global
}

// shadow applies name shadowing to items in precedence order: the first
// active holder of a full name wins, later active holders are shadowed.
// Inactive items never claim a name, so a broken, disabled or untrusted
// item cannot switch off another one. It is the one precedence rule for
// hooks, skills and recipes.
func shadow[T any](items []T, fields func(*T) (name string, owner func() string, status *Status, reason *string)) {
	winner := make(map[string]func() string, len(items))
	for i := range items {
		name, owner, status, reason := fields(&items[i])
		if *status != Active {
			continue
		}
		if w, ok := winner[name]; ok {
			*status, *reason = Shadowed, "shadowed by "+w()
			continue
		}
		winner[name] = owner
	}
}

func resolveHooks(hooks []Hook) {
	shadow(hooks, func(h *Hook) (string, func() string, *Status, *string) {
		return h.Name, func() string { return describe(h.Location, h.Plugin) }, &h.Status, &h.Reason
	})
}

func describe(loc plugins.Location, p plugins.Name) string {
	return source{location: loc, plugin: p}.describe()
}
