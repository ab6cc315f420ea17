package plugins

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins/scan"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// Errors of update, install and enable/disable.
var (
	ErrLocalChanges = errors.New("has local changes")
	ErrNotLocked    = errors.New("is not in the lock file")
	ErrHashMismatch = errors.New("content differs from the lock file")
)

// Update statuses.
const (
	Updated     = "updated"
	UpToDate    = "up-to-date"
	Pinned      = "pinned"
	LocalSource = "local"
	WouldUpdate = "would-update"
)

// UpdateOptions tune Update.
type UpdateOptions struct {
	// Ref moves the plugin to another branch, tag or commit.
	Ref string
	// Force discards local edits to the plugin folder.
	Force bool
	// DryRun changes nothing.
	DryRun bool
	// Resolve, when set, says what a plugin installed from a marketplace
	// (LockEntry.Marketplace) is now: the spec and entry manifest of the
	// marketplace's current entry (SPEC §12). ok false means the
	// marketplace cannot tell (removed, say): the plugin follows its own
	// lock entry like any other.
	Resolve func(n Name, e LockEntry) (spec Spec, manifest string, ok bool, err error)
	// HiddenUnicode is AddRequest.HiddenUnicode for every plugin moved.
	HiddenUnicode scan.Mode
}

// UpdateResult says what Update did, or would do, to one plugin.
type UpdateResult struct {
	Name     Name
	Ref      string
	From, To string
	Status   string
	// Err is set when this plugin could not be updated.
	Err error
}

// specFromEntry rebuilds the fetch spec of lock entry n at ref. The lock
// may have come with the repository, so its source must pass
// CheckFileSource: accept says how the user takes it deliberately.
func (in *Installer) specFromEntry(n Name, e LockEntry, ref, accept string) (Spec, error) {
	if e.Path != "" {
		accept += " --path " + e.Path
	}
	if err := in.checkLockSource("plugin "+n.String(), e.Source, accept, in.Scope.installedSource(n)); err != nil {
		return Spec{}, err
	}
	s, err := ParseSpec(e.Source, in.GitBase, "/")
	if err != nil {
		return s, fmt.Errorf("lock entry source %q: %w", e.Source, err)
	}
	s.Ref = ref
	if e.Path != "" {
		if err := s.SetSubdir(e.Path); err != nil {
			return s, fmt.Errorf("lock entry path %q: %w", e.Path, err)
		}
	}
	return s, nil
}

// Update moves branch-tracking plugins to the newest commit of their branch
// (or, with o.Ref, any plugin to another ref) through the same staged swap
// as Add. Tag and commit pins stay; local folders are left alone. A plugin
// whose folder was edited is refused unless o.Force. No names means every
// locked plugin of the scope. data/ is never touched.
func (in *Installer) Update(ctx context.Context, names []Name, o UpdateOptions) (_ []UpdateResult, err error) {
	if err := in.checkInstalled(names); err != nil {
		return nil, err
	}
	var end func(bool)
	if o.DryRun {
		end = func(bool) {}
	} else if err := in.frozen(); err != nil {
		return nil, err
	} else if end, err = in.begin(ctx); err != nil {
		return nil, err
	}
	var out []UpdateResult
	// A run that updated nothing leaves no trace, as in Sync.
	defer func() {
		end(!slices.ContainsFunc(out, func(r UpdateResult) bool { return r.Status == Updated }))
	}()
	lock, err := ReadLock(in.Scope.LockPath())
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		for _, k := range lock.Names() {
			n, _ := ParseName(k)
			names = append(names, n)
		}
	}
	// The hosts are asked concurrently; the plugins are moved in turn.
	plans := make([]updatePlan, len(names))
	labels := make([]string, len(names))
	for i, n := range names {
		labels[i] = n.String()
	}
	in.each(labels, func(i int) { plans[i] = in.planUpdate(ctx, lock, names[i], o, len(names) > 1) })
	var b batch
	for i := range plans {
		in.doUpdate(ctx, lock, &plans[i], &b)
	}
	err = in.flush(lock, &b)
	for _, p := range plans {
		if err != nil && p.r.Status == Updated {
			p.r.Status, p.r.Err = "", fmt.Errorf("update %s: %w", p.r.Name, err)
		}
		out = append(out, p.r)
	}
	return out, nil
}

// updatePlan is what Update will do to one plugin: r, when there is
// nothing to move, or the put of req over the lock entry e.
type updatePlan struct {
	r      UpdateResult
	req    *AddRequest
	exists bool
	e      LockEntry
	moved  bool
}

// planUpdate decides what Update does to plugin n, asking its host what
// its ref is now; it changes nothing but the machine's store, which it
// fills ahead of the put when prefetch (several plugins are updated).
// Plans of several plugins run concurrently.
func (in *Installer) planUpdate(ctx context.Context, lock *Lock, n Name, o UpdateOptions, prefetch bool) updatePlan {
	p := updatePlan{r: UpdateResult{Name: n}}
	r := &p.r
	e, ok := lock.Plugins[n.String()]
	if !ok {
		r.Err = fmt.Errorf("plugin %s %w; reinstall it with plugin add --force", n, ErrNotLocked)
		return p
	}
	p.e = e
	r.Ref, r.From, r.To = e.Ref, e.Commit, e.Commit
	if e.Link || e.Commit == "" {
		if o.Ref != "" {
			r.Err = fmt.Errorf("plugin %s is a local folder and has no refs", n)
		}
		r.Status = LocalSource
		return p
	}
	ref := e.Ref
	if o.Ref != "" {
		ref = o.Ref
	}
	// want is what the plugin should come from: its own lock entry, or
	// the marketplace's current entry, which may name another source,
	// folder, pin or manifest. Either is checked before anything is
	// fetched: the lock by specFromEntry, the marketplace's entry by
	// Resolve.
	want := e
	var spec Spec
	resolved := false
	if o.Resolve != nil && e.Marketplace != "" && o.Ref == "" {
		rspec, manifest, ok, err := o.Resolve(n, e)
		if err != nil {
			r.Err = fmt.Errorf("update %s: %w", n, err)
			return p
		}
		if ok {
			spec, resolved = rspec, true
			want.Source, want.Path, want.Manifest, ref = spec.Source(), spec.Subdir, manifest, spec.Ref
		}
	}
	if !resolved {
		var err error
		if spec, err = in.specFromEntry(n, e, ref, "quiver plugin add --force"); err != nil {
			r.Err = fmt.Errorf("update %s: %w", n, err)
			return p
		}
	}
	p.moved = want.Source != e.Source || want.Path != e.Path || want.Manifest != e.Manifest || ref != e.Ref
	latest, kind, err := in.Fetcher.Latest(ctx, want.Source, ref)
	if err != nil {
		r.Err = fmt.Errorf("update %s: %w", n, err)
		return p
	}
	r.Ref = ref
	if o.Ref == "" && kind != BranchRef && !p.moved {
		r.Status = Pinned
		return p
	}
	if latest == e.Commit && !p.moved {
		r.Status = UpToDate
		return p
	}
	final := in.Scope.PluginDir(n)
	_, statErr := os.Lstat(final)
	p.exists = statErr == nil
	if !p.exists && !o.DryRun {
		// Update moves what is installed. A lock entry with no folder
		// is what the lock file (maybe a pull) asks for, which only
		// plugin install puts in place, never trusting it for the user.
		r.Err = fmt.Errorf("plugin %s is in the lock file but not installed; plugin install puts it in place", n)
		return p
	}
	if p.exists && !o.Force {
		if changed, modified := LocalChanges(in.Scope, final, e); modified {
			r.Err = fmt.Errorf("plugin %s %w (%s); use --force to discard them", n, ErrLocalChanges, describeChanged(changed))
			return p
		}
	}
	r.To = latest
	if o.DryRun {
		r.Status = WouldUpdate
		return p
	}
	p.req = &AddRequest{Spec: spec, Name: n, Marketplace: e.Marketplace, EntryManifest: want.Manifest, HiddenUnicode: o.HiddenUnicode}
	if prefetch {
		in.prefetch(ctx, *p.req, p.req.Spec.Ref)
	}
	return p
}

// doUpdate carries out plan p, if it moves the plugin, its lock entry
// written with b.
func (in *Installer) doUpdate(ctx context.Context, lock *Lock, p *updatePlan, b *batch) {
	if p.req == nil {
		return
	}
	r := &p.r
	entry, err := in.put(ctx, lock, p.req, p.exists, func(ne *LockEntry) error {
		ne.Disabled = p.e.Disabled
		return nil
	}, b)
	if err != nil {
		r.Err = fmt.Errorf("update %s: %w", r.Name, err)
		return
	}
	r.To, r.Status = entry.Commit, Updated
	if entry.Commit == p.e.Commit && entry.Hash == p.e.Hash && !p.moved {
		r.Status = UpToDate
	}
}

func describeChanged(changed []string) string {
	if len(changed) == 0 {
		return "its content differs from the lock file"
	}
	return "changed: " + ChangedList(changed)
}

// ChangedList names the first few changed files for a message:
// "a, b, c, d, e and 3 more".
func ChangedList(changed []string) string {
	const show = 5
	s := strings.Join(changed[:min(show, len(changed))], ", ")
	if len(changed) > show {
		s += fmt.Sprintf(" and %d more", len(changed)-show)
	}
	return s
}

// LocalChanges reports whether the plugin folder differs from its lock
// entry and, when the folder is a git checkout, which files changed
// (compared with the tree of the checked-out commit). Links never drift.
func LocalChanges(s Scope, dir string, e LockEntry) (changed []string, modified bool) {
	if e.Link {
		target, err := os.Readlink(dir)
		return nil, err != nil || target != e.Source
	}
	d, err := HashDir(dir)
	if err != nil {
		return nil, true
	}
	if d.Sum == e.Hash {
		return nil, false
	}
	if committed, err := gitDigest(dir); err == nil {
		return d.Changed(committed), true
	}
	if committed, err := storedDigest(s, e); err == nil {
		changed = slices.DeleteFunc(d.Changed(committed), func(p string) bool { return e.Manifest != "" && p == EntryManifestPath })
		return changed, true
	}
	return nil, true
}

// storedDigest is gitDigest for a folder installed from the machine's
// store (which has no .git): the files of the locked commit's folder
// there, when the store still has it.
func storedDigest(s Scope, e LockEntry) (Digest, error) {
	if s.Store == "" || !IsCommit(e.Commit) {
		return Digest{}, ErrNotLocked
	}
	repo := StoreRepo(s.Store, e.Source)
	if _, err := os.Stat(repo); err != nil {
		return Digest{}, err
	}
	resp, err := runGit(context.Background(), GitRequest{Op: "digest", Store: repo, Ref: e.Commit, Sub: e.Path}, nil)
	if err != nil {
		return Digest{}, err
	}
	if resp.Files == nil {
		resp.Files = map[string]string{}
	}
	return Digest{Files: resp.Files}, nil
}

// gitDigest computes the per-file lines of HashDir for the files of the
// commit checked out in dir, straight from the git objects (in the git
// helper, gitwork), once its .git is known to hold nothing but folders
// and regular files.
func gitDigest(dir string) (Digest, error) {
	if err := checkGitDir(filepath.Join(dir, ".git")); err != nil {
		return Digest{}, err
	}
	resp, err := runGit(context.Background(), GitRequest{Op: "digest", Dir: dir}, nil)
	if err != nil {
		return Digest{}, err
	}
	if resp.Files == nil {
		resp.Files = map[string]string{}
	}
	return Digest{Files: resp.Files}, nil
}

// checkGitDir refuses a .git that quiver did not make: go-git reads its
// files without asking what they are, so a .git folder committed into a
// project's plugin could hold a FIFO or a link to /dev/zero and hang every
// command that looks at the plugin's history. A clone quiver made holds
// only folders and regular files.
func checkGitDir(gitDir string) error {
	fi, err := os.Lstat(gitDir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is %s, not a git folder", gitDir, safefs.Kind(fi.Mode()))
	}
	return filepath.WalkDir(gitDir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() && !e.Type().IsRegular() {
			return fmt.Errorf("%s is %s; quiver reads no such file", p, safefs.Kind(e.Type()))
		}
		return nil
	})
}

// SyncResult says what Sync did to one plugin, or to one marketplace
// (then Marketplace is its name and Name is zero).
type SyncResult struct {
	Name        Name
	Marketplace string
	Status      string // ok, installed, repaired, pruned, unlocked, failed
	Err         error
}

// SyncOptions tune Sync.
type SyncOptions struct {
	// HiddenUnicode is AddRequest.HiddenUnicode for every plugin put in
	// place: the lock came with the repository, so its plugins are
	// scanned as any other (SPEC §17).
	HiddenUnicode scan.Mode
}

// Sync makes the scope's plugins match its lock file exactly, like npm
// ci: missing plugins are installed and differing ones replaced, each at
// its locked commit, scanned and checked against its locked content hash
// before the swap, and plugins the lock does not name are removed (their
// data kept): the lock is what a teammate's pull says the set is, and
// plugin add writes every plugin the user adds into it. One entry's
// failure does not stop the others. The lock file is not changed.
func (in *Installer) Sync(ctx context.Context, o SyncOptions) (_ []SyncResult, err error) {
	// A policy that cannot be read refuses everything (fail closed); a
	// frozen lock (require.lock) changes nothing here: install is the one
	// command it allows.
	var frozen *Refusal
	if err := in.frozen(); err != nil && !errors.As(err, &frozen) {
		return nil, err
	}
	end, err := in.begin(ctx)
	if err != nil {
		return nil, err
	}
	var out []SyncResult
	// A run that changed nothing (a lock whose every entry is refused,
	// say) leaves no trace: what begin created goes again.
	defer func() { end(!changedAny(out)) }()
	lock, err := ReadLock(in.Scope.LockPath())
	if err != nil {
		return nil, err
	}
	// Marketplaces first: a plugin whose policy rule names its
	// marketplace (marketplace:SOURCE) is checked against the
	// marketplace at its locked commit.
	markets := in.syncMarketplaces(ctx, lock)
	// The plugins to fetch are fetched concurrently, then put in place
	// in the lock's order.
	keys := lock.Names()
	plans := make([]syncPlan, len(keys))
	for i, k := range keys {
		n, _ := ParseName(k)
		plans[i] = in.planSync(lock, n, o.HiddenUnicode)
	}
	var fetch []int
	for i, p := range plans {
		if p.req != nil {
			fetch = append(fetch, i)
		}
	}
	if len(fetch) > 1 {
		labels := make([]string, len(fetch))
		for j, i := range fetch {
			labels[j] = plans[i].r.Name.String()
		}
		in.each(labels, func(j int) {
			p := plans[fetch[j]]
			in.prefetch(ctx, *p.req, *p.req.lockRef)
		})
	}
	for i := range plans {
		out = append(out, in.doSync(ctx, lock, &plans[i]))
	}
	out = append(out, markets...)
	entries, err := os.ReadDir(in.Scope.PluginsDir())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return out, err
	}
	for _, de := range entries {
		n, err := ParseName(de.Name())
		if err != nil || n.Dir() != de.Name() {
			continue
		}
		if _, ok := lock.Plugins[n.String()]; ok {
			continue
		}
		r := SyncResult{Name: n, Status: "failed"}
		if r.Err = in.removeOne(n, true); r.Err == nil {
			r.Status = "pruned"
		} else {
			r.Err = fmt.Errorf("remove %s, which the lock no longer names: %w", n, r.Err)
		}
		out = append(out, r)
	}
	return out, nil
}

// syncPlan is what Sync does to one plugin: r, when its folder is the
// lock's already or its entry cannot be fetched, else the put of req.
type syncPlan struct {
	r      SyncResult
	req    *AddRequest
	exists bool
	want   LockEntry
}

// planSync decides what Sync does to plugin n; it reads, and changes
// nothing.
func (in *Installer) planSync(lock *Lock, n Name, mode scan.Mode) syncPlan {
	p := syncPlan{r: SyncResult{Name: n}, want: lock.Plugins[n.String()]}
	want := p.want
	final := in.Scope.PluginDir(n)
	_, statErr := os.Lstat(final)
	p.exists = statErr == nil
	// A folder is kept only as the install this machine made of exactly
	// this entry: a folder the repository brought with an entry of its
	// own hash certifies nothing, and is fetched again.
	if p.exists && matchesEntry(final, want) && InstalledHere(in.Scope, n, want) {
		p.r.Status = "ok"
		return p
	}
	accept := "quiver plugin add"
	if want.Link {
		accept += " --link"
	}
	spec, err := in.specFromEntry(n, want, want.Commit, accept) // the locked commit, whatever the ref says now
	if err != nil {
		p.r.Status, p.r.Err = "failed", err
		return p
	}
	ref := want.Ref
	p.req = &AddRequest{Spec: spec, Name: n, Link: want.Link, Marketplace: want.Marketplace, EntryManifest: want.Manifest, HiddenUnicode: mode, lockRef: &ref}
	return p
}

// doSync carries out plan p: the plugin at its locked commit, checked
// against its locked hash. The lock file is not written: the entry is
// the lock's already.
func (in *Installer) doSync(ctx context.Context, lock *Lock, p *syncPlan) SyncResult {
	r, want := p.r, p.want
	if p.req == nil {
		return r
	}
	_, err := in.put(ctx, lock, p.req, p.exists, func(got *LockEntry) error {
		if !want.Link && got.Hash != want.Hash {
			return fmt.Errorf("%w: %s at %s hashes to %s, the lock says %s", ErrHashMismatch, want.Source, shortOr(want.Commit, "the folder"), ShortHash(got.Hash), ShortHash(want.Hash))
		}
		*got = want
		return nil
	}, nil)
	switch {
	case err != nil:
		r.Status, r.Err = "failed", fmt.Errorf("install %s: %w", r.Name, err)
	case p.exists:
		r.Status = "repaired"
	default:
		r.Status = "installed"
	}
	return r
}

// changedAny reports whether Sync changed a plugin or a marketplace.
func changedAny(res []SyncResult) bool {
	for _, r := range res {
		switch r.Status {
		case "installed", "repaired", "pruned":
			return true
		}
	}
	return false
}

func shortOr(commit, otherwise string) string {
	if commit == "" {
		return otherwise
	}
	return commit[:min(7, len(commit))]
}

// SetDisabled records plugins as disabled (or enabled again) in the lock
// file; a disabled plugin contributes no hook, skill or recipe.
func (in *Installer) SetDisabled(ctx context.Context, names []Name, disabled bool) (err error) {
	if err := in.checkInstalled(names); err != nil {
		return err
	}
	end, err := in.begin(ctx)
	if err != nil {
		return err
	}
	defer func() { end(false) }()
	lock, err := ReadLock(in.Scope.LockPath())
	if err != nil {
		return err
	}
	for _, n := range names {
		e, ok := lock.Plugins[n.String()]
		if !ok {
			return fmt.Errorf("plugin %s %w; reinstall it with plugin add --force", n, ErrNotLocked)
		}
		e.Disabled = disabled
		lock.Plugins[n.String()] = e
	}
	return WriteLock(in.Scope.LockPath(), lock)
}

// VerifyResult is the state of one plugin compared with the lock, as
// plugin verify --json prints it.
type VerifyResult struct {
	Name     string   `json:"name"`
	Location string   `json:"location"`
	Status   string   `json:"status"` // ok, modified, missing, unverified, unlocked, leftover
	Changed  []string `json:"changed,omitempty"`
	// Source is the entry's source, for messages about an unverified
	// folder.
	Source string `json:"-"`
}

// Verify recomputes content hashes and compares them with the lock file:
// ok, modified (with the changed files where the folder is a git
// checkout), missing, unverified (the hash matches, but no install on
// this machine put that content there: a folder a repository committed
// with an entry of its own hash; plugin install fetches it), unlocked,
// and leftovers of interrupted commands. It changes nothing.
func Verify(s Scope) ([]VerifyResult, error) {
	lock, err := ReadLock(s.LockPath())
	if err != nil {
		return nil, err
	}
	var out []VerifyResult
	for _, k := range lock.Names() {
		n, _ := ParseName(k)
		e := lock.Plugins[k]
		dir := s.PluginDir(n)
		r := VerifyResult{Name: k, Location: string(s.Location), Status: "ok", Source: e.Source}
		if _, err := os.Lstat(dir); err != nil {
			r.Status = "missing"
		} else if changed, modified := LocalChanges(s, dir, e); modified {
			r.Status, r.Changed = "modified", changed
		} else if !InstalledHere(s, n, e) {
			r.Status = "unverified"
		}
		out = append(out, r)
	}
	entries, err := os.ReadDir(s.PluginsDir())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, de := range entries {
		name := de.Name()
		if strings.HasPrefix(name, ".") {
			out = append(out, VerifyResult{Name: name, Location: string(s.Location), Status: "leftover"})
			continue
		}
		n, err := ParseName(name)
		if err != nil || n.Dir() != name {
			continue
		}
		if _, ok := lock.Plugins[n.String()]; !ok {
			out = append(out, VerifyResult{Name: n.String(), Location: string(s.Location), Status: "unlocked"})
		}
	}
	return out, nil
}
