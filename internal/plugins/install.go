package plugins

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins/scan"
)

// Errors of the installer that callers explain to users.
var (
	ErrAlreadyInstalled = errors.New("already installed")
	ErrNotInstalled     = errors.New("not installed")
	ErrNotAPlugin       = errors.New("not a quiver plugin")
)

// WrongScopeError says a plugin is installed, but in the other scope.
type WrongScopeError struct {
	Name Name
	In   Location
}

func (e *WrongScopeError) Error() string {
	return fmt.Sprintf("plugin %s is not installed here but in the %s scope", e.Name, e.In)
}

// ExplainScope says, for command verb, how to reach a plugin installed in
// the other scope (the -g flag to give or drop) and where to look for one
// that is not installed; other errors stay as they are.
func ExplainScope(err error, verb string) error {
	var ws *WrongScopeError
	if errors.As(err, &ws) {
		if ws.In == Global {
			return fmt.Errorf("plugin %s is installed globally; use -g to %s it", ws.Name, verb)
		}
		return fmt.Errorf("plugin %s is installed in the project, not globally; drop -g to %s it", ws.Name, verb)
	}
	if errors.Is(err, ErrNotInstalled) {
		return fmt.Errorf("%w; see quiver plugin list", err)
	}
	return err
}

// SourceFetcher puts a spec's content into a staging path that does not yet
// exist. *Fetcher is the real one; tests may substitute another.
type SourceFetcher interface {
	Fetch(ctx context.Context, spec Spec, link bool, dst string) (Fetched, error)
	Latest(ctx context.Context, source, ref string) (string, RefKind, error)
}

// Installer changes one scope: it adds and removes plugins with the staged
// install, atomic swap, scope lock and journal of SPEC §6.
type Installer struct {
	Scope Scope
	// Other is the other scope, if there is one, so that a remove can say
	// where a plugin really is.
	Other   *Scope
	Fetcher SourceFetcher
	// GitBase is QUIVER_GIT_BASE ("" means DefaultGitBase): org/repo
	// sources resolve under it, and a source the lock names under it is
	// the user's choice (CheckFileSource).
	GitBase string
	// LockWait bounds the wait for another command (DefaultMutexWait if 0).
	LockWait time.Duration
	// OnWait is called once when the scope lock is held by someone else.
	OnWait func()
	// OnRecover is told about each leftover of an interrupted command
	// that was completed or rolled back.
	OnRecover func(msg string)
	// OnScan hears what the content scan found in each plugin put in
	// place (warnings, and critical findings let in), after it is.
	OnScan func(ScanReport)
	// Policy is asked at every door before anything is written (SPEC
	// §17); nil allows everything.
	Policy Gate
	// Jobs bounds the fetches run at once (DefaultJobs if 0).
	Jobs int
	// OnFetching hears what the concurrent fetches are doing, at each
	// change; nil for silence.
	OnFetching func(Fetching)
}

// NewInstaller is the Installer of l's scope global (Layout.Scope), which
// knows l's other scope, if there is one.
func NewInstaller(l Layout, global bool) *Installer {
	in := &Installer{Scope: l.Scope(global)}
	if other, ok := l.Other(in.Scope); ok {
		in.Other = &other
	}
	return in
}

// AddRequest is one plugin to install.
type AddRequest struct {
	Spec  Spec
	Name  Name
	Force bool
	Link  bool
	// FolderName lets a subfolder's own manifest name the plugin once it
	// is fetched (SPEC §12): a full org/repo, or a bare x for org/x.
	FolderName bool
	// Marketplace is recorded in the lock entry of a PLUGIN@MARKETPLACE
	// install.
	Marketplace string
	// EntryManifest, from a marketplace entry with "strict": false, is
	// written into the plugin as EntryManifestPath before it is scanned
	// and hashed, and recorded in the lock entry (SPEC §12).
	EntryManifest string
	// HiddenUnicode is what the content scan's critical findings do
	// (SPEC §17): the zero value refuses the plugin; the policy's
	// scan.hidden_unicode and --allow-hidden-unicode set it.
	HiddenUnicode scan.Mode

	// lockRef, when set, is the ref the lock records where the spec
	// fetches another (plugin install fetches the locked commit): the
	// policy's require.pinned judges the recorded one.
	lockRef *string
}

// begin takes the scope lock and repairs what an interrupted command left.
// The returned end releases the lock; told that the command failed, it
// first removes what this command created (scope root, plugins folder,
// lock file) if it is still empty, so a failed command leaves no trace.
func (in *Installer) begin(ctx context.Context) (end func(failed bool), err error) {
	if err := in.Scope.CheckLinks(); err != nil {
		return nil, err
	}
	wait := in.LockWait
	if wait == 0 {
		wait = DefaultMutexWait
	}
	// Removal order matters: the lock file must go last but for the root,
	// because a waiter may take a new lock file the moment it is gone.
	created := missing(in.Scope.PluginsDir(), in.Scope.mutexPath(), in.Scope.Root)
	unlock, err := holdScope(ctx, in.Scope, wait, in.OnWait)
	if err != nil {
		return nil, err
	}
	end = func(failed bool) {
		if failed {
			// Folders go only when empty; the lock file may go as
			// lockScope re-checks the file it locked.
			for _, p := range created {
				os.Remove(p)
			}
		}
		unlock()
	}
	// A lock that does not parse (a ref that is an option, say) is named
	// as such, before anything is repaired or fetched; no repair mends it.
	if _, err := ReadLock(in.Scope.LockPath()); err != nil {
		end(true)
		return nil, err
	}
	if err := os.MkdirAll(in.Scope.PluginsDir(), 0o755); err != nil {
		end(true)
		return nil, err
	}
	if err := in.recover(); err != nil {
		end(true)
		return nil, fmt.Errorf("repair after an interrupted command: %w", err)
	}
	return end, nil
}

// missing returns the paths that do not exist, in the given order.
func missing(paths ...string) []string {
	var out []string
	for _, p := range paths {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			out = append(out, p)
		}
	}
	return out
}

// Add installs one plugin. The content is fetched into a staging folder
// beside its final place, validated and hashed there, then swapped in; the
// lock file is written last. Any failure before the swap leaves nothing.
func (in *Installer) Add(ctx context.Context, req AddRequest) (Plugin, error) {
	ps, errs := in.addAll(ctx, []AddRequest{req})
	return ps[0], errs[0]
}

// ErrSomeFailed is AddAll's error when some of several requests failed;
// each failure was reported on its own.
var ErrSomeFailed = errors.New("some plugins could not be added")

// AddAll installs the requests as plugin add does, each as Add would,
// under one scope lock: fetched concurrently, put in place in turn, the
// lock file written once. A failure stops none of the others. report
// hears of each outcome in order, the plugin or why it failed. The error
// is the one request's failure, or ErrSomeFailed when some of several
// failed.
func (in *Installer) AddAll(ctx context.Context, reqs []AddRequest, report func(Plugin, error)) error {
	ps, errs := in.addAll(ctx, reqs)
	var failed error
	for i, r := range reqs {
		err := errs[i]
		var refused *Refusal
		if errors.Is(err, ErrAlreadyInstalled) {
			err = fmt.Errorf("plugin %s is already installed %s; use --force to replace it", r.Name, in.Scope.Location.Where())
		} else if err != nil && (len(reqs) > 1 || !errors.As(err, &refused)) {
			// A policy's refusal names what it refused.
			err = fmt.Errorf("add %s: %w", r.Name, err)
		}
		report(ps[i], err)
		if err != nil {
			if len(reqs) == 1 {
				return err
			}
			failed = ErrSomeFailed
		}
	}
	return failed
}

// addAll is AddAll: each request's plugin, or why it was not added.
func (in *Installer) addAll(ctx context.Context, reqs []AddRequest) ([]Plugin, []error) {
	out, errs := make([]Plugin, len(reqs)), make([]error, len(reqs))
	fail := func(err error) ([]Plugin, []error) {
		for i := range errs {
			errs[i] = err
		}
		return out, errs
	}
	if err := in.frozen(); err != nil {
		return fail(err)
	}
	end, err := in.begin(ctx)
	if err != nil {
		return fail(err)
	}
	added := false
	defer func() { end(!added) }()
	lock, err := ReadLock(in.Scope.LockPath())
	if err != nil {
		return fail(err)
	}
	if len(reqs) > 1 {
		labels := make([]string, len(reqs))
		for i, r := range reqs {
			labels[i] = r.Name.String()
		}
		in.each(labels, func(i int) {
			if _, err := os.Lstat(in.Scope.PluginDir(reqs[i].Name)); err == nil && !reqs[i].Force {
				return // refused below
			}
			in.prefetch(ctx, reqs[i], reqs[i].Spec.Ref)
		})
	}
	var b batch
	for i := range reqs {
		errs[i] = in.addLocked(ctx, lock, &reqs[i], &b)
	}
	if err := in.flush(lock, &b); err != nil {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
		return out, errs
	}
	for i, r := range reqs {
		if errs[i] == nil {
			added = true
			out[i], errs[i] = ReadPlugin(in.Scope, r.Name)
		}
	}
	return out, errs
}

// addLocked puts req in place, as Add does, under the scope lock, its
// lock entry in lock, written with b.
func (in *Installer) addLocked(ctx context.Context, lock *Lock, req *AddRequest, b *batch) error {
	_, statErr := os.Lstat(in.Scope.PluginDir(req.Name))
	exists := statErr == nil
	if exists && !req.Force {
		return fmt.Errorf("plugin %s is %w in the %s scope", req.Name, ErrAlreadyInstalled, in.Scope.Location)
	}
	old, hadOld := lock.Plugins[req.Name.String()]
	_, err := in.put(ctx, lock, req, exists, func(e *LockEntry) error {
		if hadOld && exists {
			e.Disabled = old.Disabled
		}
		return nil
	}, b)
	return err
}

// renameFromFolder applies a fetched subfolder's manifest name to req
// (AddRequest.FolderName), moving the staging folder to match, so that
// the journal names it. It reports whether the renamed plugin exists.
func (in *Installer) renameFromFolder(req *AddRequest, stage *string, exists bool) (bool, error) {
	m, err := ReadManifest(*stage)
	if err != nil || m.Name == "" {
		return exists, nil
	}
	n, err := ParseName(m.Name)
	if strings.Count(m.Name, "/") == 0 {
		n, err = NewName(req.Name.Org(), m.Name)
	}
	if err != nil || n == req.Name {
		return exists, nil
	}
	moved := in.tempPath(".stage-", n)
	if err := os.Rename(*stage, moved); err != nil {
		return exists, err
	}
	*stage, req.Name = moved, n
	_, statErr := os.Lstat(in.Scope.PluginDir(n))
	if statErr == nil && !req.Force {
		return true, fmt.Errorf("plugin %s is %w in the %s scope", n, ErrAlreadyInstalled, in.Scope.Location)
	}
	return statErr == nil, nil
}

// put fetches req into a staging folder, validates it, lets adjust amend
// (or refuse) the new lock entry, then swaps it in and records the entry.
// The caller holds the scope lock and says whether the plugin exists. Any
// failure before the swap leaves nothing behind; after it, the journal
// lets the next command finish.
func (in *Installer) put(ctx context.Context, lock *Lock, req *AddRequest, exists bool, adjust func(*LockEntry) error, b *batch) (LockEntry, error) {
	ref := req.Spec.Ref
	if req.lockRef != nil {
		ref = *req.lockRef
	}
	c, known, err := in.checkSource(ctx, *req, ref)
	if err != nil {
		return LockEntry{}, err
	}
	staged := *req
	staged.HiddenUnicode = in.scanMode(req.HiddenUnicode)
	stage := in.tempPath(".stage-", req.Name)
	entry, fetched, found, err := in.stage(ctx, staged, stage)
	if hu := (*HiddenUnicodeError)(nil); errors.As(err, &hu) && req.HiddenUnicode != scan.Block {
		hu.Policy = true // asked to let it in, and the policy said no
	}
	if err == nil && req.FolderName {
		exists, err = in.renameFromFolder(req, &stage, exists)
	}
	if err == nil && in.Policy != nil {
		if *known == "" && ref == req.Spec.Ref {
			*known = fetched.Kind // the fetch asked the remote already
		}
		c.Name = req.Name
		root := stage
		if entry.Link {
			root = req.Spec.Path
		}
		err = in.Policy.CheckStaged(ctx, c, root)
	}
	if err == nil && adjust != nil {
		err = adjust(&entry)
	}
	if err != nil {
		os.RemoveAll(stage)
		return LockEntry{}, err
	}
	final := in.Scope.PluginDir(req.Name)
	j := journal{Op: opInstall, Stage: filepath.Base(stage), Backup: filepath.Base(in.tempPath(".backup-", req.Name)), Entry: &entry}
	if err := in.writeJournal(req.Name, j); err != nil {
		os.RemoveAll(stage)
		return LockEntry{}, err
	}
	if err := in.swapIn(stage, final, filepath.Join(in.Scope.PluginsDir(), j.Backup), exists); err != nil {
		os.RemoveAll(stage)
		in.removeJournal(req.Name)
		return LockEntry{}, fmt.Errorf("put %s in place: %w", req.Name, err)
	}
	name := req.Name
	prev, had := lock.Plugins[name.String()]
	lock.Plugins[name.String()] = entry
	// Once the lock file says so. Recorded while the journal still
	// stands: a kill before it leaves a journal (the next command
	// finishes the job, and plugin install fetches the plugin again
	// rather than take a folder nothing here recorded); a journal never
	// writes the record, since one could come with the repository.
	finish := func() {
		in.recordInstalled(name, entry)
		in.removeJournal(name)
		os.RemoveAll(stage) // the old version, if there was one
		os.RemoveAll(filepath.Join(in.Scope.PluginsDir(), j.Backup))
		if in.Scope.Location == Local {
			writeGitignore(in.Scope.Root)
		}
		in.recordScan(name, entry, found)
		if *known != "" && !c.Local {
			// What the remote said, for audit (best effort: the
			// plugin is installed either way).
			RecordRefKind(in.Scope, c.Source, ref, *known)
		}
	}
	// An entry the lock already holds as it is (plugin install) leaves
	// the file as it is.
	changed := !had || prev != entry
	if b != nil {
		b.dirty = b.dirty || changed
		b.after = append(b.after, finish)
		return entry, nil
	}
	if changed {
		if err := WriteLock(in.Scope.LockPath(), lock); err != nil {
			// The journal lets the next command finish the job.
			return LockEntry{}, err
		}
	}
	finish()
	return entry, nil
}

// checkSource is the policy's word on req's source before anything is
// downloaded (SPEC §17), and the candidate it judged, whose ref kind the
// fetch may tell (known); ref is what the lock will record.
func (in *Installer) checkSource(ctx context.Context, req AddRequest, ref string) (Candidate, *RefKind, error) {
	c, known := in.candidate(req.Spec, ref)
	c.Name, c.Market, c.Link = req.Name, req.Marketplace, req.Link
	if in.Policy != nil {
		if err := in.Policy.CheckSource(ctx, c); err != nil {
			return c, known, err
		}
	}
	return c, known, nil
}

// stage fetches, validates and scans the plugin at path stage and returns
// its lock entry and what the content scan found.
func (in *Installer) stage(ctx context.Context, req AddRequest, stage string) (LockEntry, Fetched, []scan.Finding, error) {
	entry, fetched, err := in.fetchStage(ctx, req, stage)
	if err != nil {
		return LockEntry{}, fetched, nil, err
	}
	root := stage
	if entry.Link {
		root = req.Spec.Path
	}
	// Scanned while staged: a refusal leaves the scope as it was.
	found, err := scanPlugin(root, req.HiddenUnicode)
	if err != nil {
		return LockEntry{}, fetched, nil, err
	}
	return entry, fetched, found, nil
}

// fetchStage fetches and validates the plugin at path stage and returns its
// lock entry.
func (in *Installer) fetchStage(ctx context.Context, req AddRequest, stage string) (LockEntry, Fetched, error) {
	fetched, err := in.Fetcher.Fetch(ctx, req.Spec, req.Link, stage)
	if err != nil {
		return LockEntry{}, fetched, err
	}
	checkRoot := stage
	if fetched.Link {
		checkRoot = req.Spec.Path
	}
	if req.EntryManifest != "" {
		if fetched.Link {
			return LockEntry{}, fetched, fmt.Errorf("%w: a marketplace entry's manifest cannot be written into a linked folder", ErrInvalidSpec)
		}
		if err := checkEntryManifest(req.EntryManifest); err != nil {
			return LockEntry{}, fetched, err
		}
		p := filepath.Join(stage, EntryManifestPath)
		if err := os.RemoveAll(p); err != nil { // the repository's own, whatever it is
			return LockEntry{}, fetched, err
		}
		if err := os.WriteFile(p, []byte(req.EntryManifest+"\n"), 0o644); err != nil {
			return LockEntry{}, fetched, err
		}
	}
	if err := CheckSymlinks(checkRoot); err != nil {
		return LockEntry{}, fetched, err
	}
	contents, err := ScanDir(stage)
	if err != nil {
		return LockEntry{}, fetched, err
	}
	if req.EntryManifest != "" && contents.ManifestErr != nil {
		// The entry's lists say which parts the plugin is: one that
		// cannot be read must not widen it to the default folders.
		return LockEntry{}, fetched, fmt.Errorf("%w: the marketplace entry's manifest: %v", ErrInvalidSpec, contents.ManifestErr)
	}
	if contents.Empty() && ReadFolderParts(stage).Empty() {
		// A plugin that carries only MCP or LSP servers, agents or
		// output styles installs like any other (SPEC §2, §16).
		return LockEntry{}, fetched, fmt.Errorf("%s is %w: it carries no hook, skill, recipe, command, agent, MCP or LSP server or output style", req.Spec.Shown(), ErrNotAPlugin)
	}
	entry := LockEntry{Source: req.Spec.Source(), Path: req.Spec.Subdir, Marketplace: req.Marketplace, Ref: req.Spec.Ref, Commit: fetched.Commit, Link: fetched.Link, Manifest: req.EntryManifest}
	if !fetched.Link {
		d, err := HashDir(stage)
		if err != nil {
			return LockEntry{}, fetched, err
		}
		entry.Hash = d.Sum
	}
	return entry, fetched, nil
}

// swapIn puts stage at final. A replace is one atomic exchange where the
// filesystem offers it; elsewhere it is two renames that the journal can
// undo. Afterwards stage holds the old version, if any.
func (in *Installer) swapIn(stage, final, backup string, exists bool) error {
	if !exists {
		if err := os.Rename(stage, final); err != nil {
			return err
		}
		return syncDir(filepath.Dir(final))
	}
	if err := exchange(stage, final); err == nil {
		return syncDir(filepath.Dir(final))
	}
	if err := os.Rename(final, backup); err != nil {
		return err
	}
	if err := os.Rename(stage, final); err != nil {
		os.Rename(backup, final)
		return err
	}
	return syncDir(filepath.Dir(final))
}

// Repair takes the scope lock and completes or rolls back whatever an
// interrupted command left (OnRecover hears about each), as every mutating
// command does first. A scope that does not exist needs nothing.
func (in *Installer) Repair(ctx context.Context) error {
	if _, err := os.Stat(in.Scope.PluginsDir()); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	end, err := in.begin(ctx)
	if err != nil {
		return err
	}
	end(false)
	return nil
}

// Remove uninstalls plugins: each folder is renamed away (one atomic step),
// the lock entry dropped, then the folder and, unless keepData, its data
// deleted. Every name is checked before anything changes.
func (in *Installer) Remove(ctx context.Context, names []Name, keepData bool) error {
	if err := in.checkInstalled(names); err != nil {
		return err
	}
	if err := in.frozen(); err != nil {
		return err
	}
	end, err := in.begin(ctx)
	if err != nil {
		return err
	}
	defer end(false)
	if err := in.checkInstalled(names); err != nil { // may have changed while waiting
		return err
	}
	for _, n := range names {
		if err := in.removeOne(n, keepData); err != nil {
			return fmt.Errorf("remove %s: %w", n, err)
		}
	}
	return nil
}

func (in *Installer) checkInstalled(names []Name) error {
	for _, n := range names {
		if Installed(in.Scope, n) {
			continue
		}
		if in.Other != nil && Installed(*in.Other, n) {
			return &WrongScopeError{Name: n, In: in.Other.Location}
		}
		return fmt.Errorf("plugin %s is %w in the %s scope", n, ErrNotInstalled, in.Scope.Location)
	}
	return nil
}

func (in *Installer) removeOne(n Name, keepData bool) error {
	lock, err := ReadLock(in.Scope.LockPath())
	if err != nil {
		return err
	}
	trash := in.tempPath(".trash-", n)
	if err := in.writeJournal(n, journal{Op: opRemove, Stage: filepath.Base(trash), KeepData: keepData}); err != nil {
		return err
	}
	final := in.Scope.PluginDir(n)
	if err := os.Rename(final, trash); err != nil && !errors.Is(err, fs.ErrNotExist) {
		in.removeJournal(n)
		return err
	}
	delete(lock.Plugins, n.String())
	if err := WriteLock(in.Scope.LockPath(), lock); err != nil {
		return err
	}
	os.Remove(in.Scope.ScanRecordPath(n))
	in.Scope.forgetInstalled(n)
	if !keepData {
		os.RemoveAll(in.Scope.DataDir(n))
	}
	in.removeJournal(n)
	return os.RemoveAll(trash)
}

// Installed reports whether n has a folder or a lock entry in scope s.
func Installed(s Scope, n Name) bool {
	if _, err := os.Lstat(s.PluginDir(n)); err == nil {
		return true
	}
	lock, err := ReadLock(s.LockPath())
	if err != nil {
		return false
	}
	_, ok := lock.Plugins[n.String()]
	return ok
}

// tempPath names a staging, backup or trash entry beside the plugins; the
// leading dot keeps it out of every listing.
func (in *Installer) tempPath(kind string, n Name) string {
	var b [6]byte
	rand.Read(b[:])
	return filepath.Join(in.Scope.PluginsDir(), kind+n.Dir()+"-"+hex.EncodeToString(b[:]))
}

func writeGitignore(root string) {
	p := filepath.Join(root, ".gitignore")
	if _, err := os.Lstat(p); err == nil {
		return
	}
	const body = "# written by quiver: plugins are reproduced from quiver.lock (commit that)\nplugins/\nmarketplaces/\ndata/\ncache/\n.lock\n"
	WriteFileAtomic(p, []byte(body), 0o644)
}
