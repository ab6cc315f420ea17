package plugins

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// A marketplace is a git repository checked out (without .git) into
// <scope>/marketplaces/<name> and recorded in the lock's marketplaces
// section (SPEC §12). Changes go through the same scope lock as plugins
// and the same staged swap. Each checkout carries a stamp
// (.quiver-marketplace.json) naming what it is, written before it is
// swapped in, and the change is journaled in the scope's machine folder
// (state/marketplaces/<name>.json) until the lock records it: after a
// kill, repairMarketplaces rolls a journaled change forward, so either
// the old or the new state is what every command sees. A checkout whose
// stamp differs from the lock without a journal is not an interrupted
// change but a lock that changed under it (a git pull): the lock is the
// project's word, and the checkout is stale until plugin install.

// stampFile names a marketplace checkout's record of itself.
const stampFile = ".quiver-marketplace.json"

type marketplaceStamp struct {
	Name string `json:"name"`
	MarketplaceEntry
}

// ErrMarketplaceExists and ErrNoMarketplace are what callers explain.
var (
	ErrMarketplaceExists = errors.New("already added")
	ErrNoMarketplace     = errors.New("no such marketplace")
)

// MarketplaceNamer reads a fetched marketplace folder and returns its
// name (from marketplace.json, or --name), validated; it refuses folders
// that are not marketplaces.
type MarketplaceNamer func(dir string) (string, error)

func (in *Installer) marketplaceTemp(kind, name string) string {
	var b [6]byte
	rand.Read(b[:])
	return filepath.Join(in.Scope.MarketplacesDir(), kind+name+"-"+hex.EncodeToString(b[:]))
}

// stageMarketplace fetches spec into a staging folder without .git and
// returns it, its name and its lock entry. ref is the ref the lock
// records (spec's, but for plugin install, which fetches the locked
// commit); known, the marketplace's name when it is known before the
// fetch. The policy is asked before the fetch and before the staged
// folder is returned.
func (in *Installer) stageMarketplace(ctx context.Context, spec Spec, ref, known string, nameOf MarketplaceNamer) (string, string, MarketplaceEntry, error) {
	c, kind := in.candidate(spec, ref)
	c.IsMarketplace, c.Market = true, known
	if in.Policy != nil {
		if err := in.Policy.CheckSource(ctx, c); err != nil {
			return "", "", MarketplaceEntry{}, err
		}
	}
	if err := os.MkdirAll(in.Scope.MarketplacesDir(), 0o755); err != nil {
		return "", "", MarketplaceEntry{}, err
	}
	stage := in.marketplaceTemp(".stage-", "new")
	fetched, err := in.Fetcher.Fetch(ctx, spec, false, stage)
	if err == nil {
		err = os.RemoveAll(filepath.Join(stage, ".git"))
	}
	if err == nil {
		err = CheckSymlinks(stage)
	}
	var name string
	if err == nil {
		name, err = nameOf(stage)
	}
	if err == nil {
		err = ValidMarketplaceName(name)
	}
	if err == nil && in.Policy != nil {
		if *kind == "" && ref == spec.Ref {
			*kind = fetched.Kind
		}
		c.Market = name
		err = in.Policy.CheckStaged(ctx, c, stage)
	}
	entry := MarketplaceEntry{Source: spec.Source(), Ref: spec.Ref, Commit: fetched.Commit}
	if err == nil {
		var data []byte
		data, err = json.Marshal(marketplaceStamp{Name: name, MarketplaceEntry: entry})
		if err == nil {
			err = WriteFileAtomic(filepath.Join(stage, stampFile), data, 0o644)
		}
	}
	if err != nil {
		os.RemoveAll(stage)
		return "", "", MarketplaceEntry{}, err
	}
	if *kind != "" && !c.Local {
		RecordRefKind(in.Scope, c.Source, ref, *kind) // for audit; best effort
	}
	return stage, name, entry, nil
}

// AddMarketplace fetches a marketplace and records it. With force, one
// of the same name is replaced.
func (in *Installer) AddMarketplace(ctx context.Context, spec Spec, nameOf MarketplaceNamer, force bool) (_ string, _ MarketplaceEntry, err error) {
	if err := in.frozen(); err != nil {
		return "", MarketplaceEntry{}, err
	}
	end, err := in.begin(ctx)
	if err != nil {
		return "", MarketplaceEntry{}, err
	}
	defer func() { end(err != nil) }()
	defer func() {
		if err != nil {
			os.Remove(in.Scope.MarketplacesDir()) // only if this left it empty
		}
	}()
	stage, name, entry, err := in.stageMarketplace(ctx, spec, spec.Ref, "", nameOf)
	if err != nil {
		return "", MarketplaceEntry{}, err
	}
	lock, err := ReadLock(in.Scope.LockPath())
	if err != nil {
		os.RemoveAll(stage)
		return "", MarketplaceEntry{}, err
	}
	if _, ok := lock.Marketplaces[name]; ok && !force {
		os.RemoveAll(stage)
		return name, MarketplaceEntry{}, fmt.Errorf("marketplace %s is %w in the %s scope; update it with quiver marketplace update %s", name, ErrMarketplaceExists, in.Scope.Location, name)
	}
	return name, entry, in.putMarketplace(lock, name, stage, entry)
}

// marketplaceJournal is where a change of marketplace name is journaled
// until the lock records it: in the scope's machine folder, which no
// repository can write.
func (in *Installer) marketplaceJournal(name string) string {
	return filepath.Join(in.Scope.StateDir(), "marketplaces", name+".json")
}

// putMarketplace swaps a staged checkout in and records it.
func (in *Installer) putMarketplace(lock *Lock, name, stage string, entry MarketplaceEntry) error {
	final := in.Scope.MarketplaceDir(name)
	_, statErr := os.Lstat(final)
	backup := in.marketplaceTemp(".backup-", name)
	journal := in.marketplaceJournal(name)
	data, err := json.Marshal(marketplaceStamp{Name: name, MarketplaceEntry: entry})
	if err == nil {
		err = os.MkdirAll(filepath.Dir(journal), 0o700)
	}
	if err == nil {
		err = WriteFileAtomic(journal, data, 0o600)
	}
	if err != nil {
		os.RemoveAll(stage)
		return fmt.Errorf("journal marketplace %s: %w", name, err)
	}
	if err := in.swapIn(stage, final, backup, statErr == nil); err != nil {
		os.RemoveAll(stage)
		os.Remove(journal)
		return fmt.Errorf("put marketplace %s in place: %w", name, err)
	}
	lock.Marketplaces[name] = entry
	if err := WriteLock(in.Scope.LockPath(), lock); err != nil {
		return err // the journal lets the next command record it
	}
	recordCheckout(in.Scope, name, entry) // best effort: unrecorded, it is checked out again
	os.Remove(journal)
	os.RemoveAll(stage) // the old checkout, if any
	os.RemoveAll(backup)
	if in.Scope.Location == Local {
		writeGitignore(in.Scope.Root)
	}
	return nil
}

// UpdateMarketplace moves marketplace name to the newest commit of its
// ref (or the default branch); it returns the old and new commits.
func (in *Installer) UpdateMarketplace(ctx context.Context, name string, nameOf MarketplaceNamer) (from, to string, err error) {
	if err := in.frozen(); err != nil {
		return "", "", err
	}
	end, err := in.begin(ctx)
	if err != nil {
		return "", "", err
	}
	defer func() { end(err != nil) }()
	lock, err := ReadLock(in.Scope.LockPath())
	if err != nil {
		return "", "", err
	}
	old, spec, err := in.marketplaceSpec(lock, name)
	if err != nil {
		return old.Commit, "", err
	}
	stage, got, entry, err := in.stageMarketplace(ctx, spec, spec.Ref, name, func(dir string) (string, error) {
		if _, err := nameOf(dir); err != nil {
			return "", err
		}
		return name, nil // the name it was added under stays
	})
	if err != nil {
		return old.Commit, "", err
	}
	if _, err := os.Stat(in.Scope.MarketplaceDir(name)); err == nil && entry.Commit == old.Commit && entry.Commit != "" {
		os.RemoveAll(stage)
		return old.Commit, old.Commit, nil
	}
	return old.Commit, entry.Commit, in.putMarketplace(lock, got, stage, entry)
}

// marketplaceSpec is what marketplace update fetches for marketplace
// name of lock: its source at its ref, once the source passes
// CheckFileSource (what the lock names may have come with the
// repository, SPEC §5).
func (in *Installer) marketplaceSpec(lock *Lock, name string) (MarketplaceEntry, Spec, error) {
	old, ok := lock.Marketplaces[name]
	if !ok {
		return old, Spec{}, fmt.Errorf("%w %s in the %s scope", ErrNoMarketplace, name, in.Scope.Location)
	}
	if err := in.checkLockSource("marketplace "+name, old.Source, "quiver marketplace add --force", in.Scope.checkoutSource(name)); err != nil {
		return old, Spec{}, err
	}
	spec, err := ParseSpec(old.Source, in.GitBase, "/")
	if err != nil {
		return MarketplaceEntry{}, spec, fmt.Errorf("marketplace %s: source %q: %w", name, old.Source, err)
	}
	spec.Ref = old.Ref
	return old, spec, nil
}

// PrefetchMarketplaces puts the newest commit of each named
// marketplace's ref into the machine's store, concurrently, so that the
// UpdateMarketplace of each that follows (marketplace update of several)
// asks no host. A marketplace the policy refuses is not fetched; what
// fails is UpdateMarketplace's to say.
func (in *Installer) PrefetchMarketplaces(ctx context.Context, names []string) {
	pf, ok := in.Fetcher.(prefetcher)
	if !ok || len(names) < 2 {
		return
	}
	lock, err := ReadLock(in.Scope.LockPath())
	if err != nil {
		return
	}
	in.each(names, func(i int) {
		_, spec, err := in.marketplaceSpec(lock, names[i])
		if err != nil {
			return
		}
		c, _ := in.candidate(spec, spec.Ref)
		c.IsMarketplace, c.Market = true, names[i]
		if in.Policy != nil && in.Policy.CheckSource(ctx, c) != nil {
			return
		}
		pf.Prefetch(ctx, spec)
	})
}

// RemoveMarketplace forgets a marketplace; the plugins installed from it
// stay, with their own lock entries.
func (in *Installer) RemoveMarketplace(ctx context.Context, name string) (err error) {
	if err := in.frozen(); err != nil {
		return err
	}
	end, err := in.begin(ctx)
	if err != nil {
		return err
	}
	defer func() { end(err != nil) }()
	lock, err := ReadLock(in.Scope.LockPath())
	if err != nil {
		return err
	}
	if _, ok := lock.Marketplaces[name]; !ok {
		return fmt.Errorf("%w %s in the %s scope", ErrNoMarketplace, name, in.Scope.Location)
	}
	trash := in.marketplaceTemp(".trash-", name)
	if err := os.Rename(in.Scope.MarketplaceDir(name), trash); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	delete(lock.Marketplaces, name)
	if err := WriteLock(in.Scope.LockPath(), lock); err != nil {
		return err
	}
	return os.RemoveAll(trash)
}

// repairMarketplaces is the marketplace part of recover: a backup whose
// checkout is gone is put back; leftovers of staging go; a checkout whose
// stamp the lock does not match is recorded (the command that swapped it
// in was killed before writing the lock); a checkout the lock does not
// know and no stamp names is removed; a trash folder completes its
// remove.
func (in *Installer) repairMarketplaces(lock *Lock) (changed bool, err error) {
	dir := in.Scope.MarketplacesDir()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, ".backup-") {
			continue
		}
		mkt := strings.TrimPrefix(name, ".backup-")
		if i := strings.LastIndex(mkt, "-"); i > 0 {
			mkt = mkt[:i]
		}
		if ValidMarketplaceName(mkt) == nil {
			if _, err := os.Lstat(in.Scope.MarketplaceDir(mkt)); errors.Is(err, fs.ErrNotExist) {
				os.Rename(filepath.Join(dir, name), in.Scope.MarketplaceDir(mkt))
				in.notify(fmt.Sprintf("restored marketplace %s after an interrupted update", mkt))
			}
		}
	}
	entries, _ = os.ReadDir(dir)
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		if strings.HasPrefix(name, ".") {
			if strings.HasPrefix(name, ".trash-") {
				mkt := strings.TrimPrefix(name, ".trash-")
				if i := strings.LastIndex(mkt, "-"); i > 0 {
					mkt = mkt[:i]
				}
				if _, ok := lock.Marketplaces[mkt]; ok {
					if _, err := os.Lstat(in.Scope.MarketplaceDir(mkt)); errors.Is(err, fs.ErrNotExist) {
						delete(lock.Marketplaces, mkt)
						changed = true
						in.notify(fmt.Sprintf("completed an interrupted remove of marketplace %s", mkt))
					}
				}
			}
			os.RemoveAll(p)
			continue
		}
		if ValidMarketplaceName(name) != nil || !e.IsDir() {
			continue // not quiver's: leave it
		}
		st, err := readStamp(p)
		if err != nil || st.Name != name {
			if _, ok := lock.Marketplaces[name]; !ok {
				os.RemoveAll(p)
				in.notify(fmt.Sprintf("removed leftover marketplace folder %s", p))
			}
			continue
		}
		cur, ok := lock.Marketplaces[name]
		if ok && cur == st.MarketplaceEntry {
			os.Remove(in.marketplaceJournal(name))
			continue
		}
		if j, err := readStampFile(in.marketplaceJournal(name)); err == nil && j == st {
			// This machine swapped the checkout in and was stopped
			// before it wrote the lock: finish the change.
			lock.Marketplaces[name] = st.MarketplaceEntry
			recordCheckout(in.Scope, name, st.MarketplaceEntry)
			changed = true
			in.notify(fmt.Sprintf("completed an interrupted change of marketplace %s", name))
		} else if !ok {
			// The lock no longer names it (a pull removed it): the
			// checkout is a leftover.
			os.RemoveAll(p)
			in.notify(fmt.Sprintf("removed marketplace folder %s, which the lock no longer names", p))
		}
		// Else the lock changed under the checkout (a pull): the lock
		// is the project's word; plugin install checks it out.
		os.Remove(in.marketplaceJournal(name))
	}
	return changed, nil
}

func readStamp(dir string) (marketplaceStamp, error) {
	return readStampFile(filepath.Join(dir, stampFile))
}

// readStampFile reads a stamp, or a journal (which has a stamp's shape).
func readStampFile(path string) (marketplaceStamp, error) {
	var st marketplaceStamp
	data, err := safefs.ReadFile(path, safefs.MaxMeta)
	if err == nil {
		err = json.Unmarshal(data, &st)
	}
	if err == nil && st.Source == "" {
		err = errors.New("no source")
	}
	return st, err
}

// MarketplaceCheckout is an added marketplace as on disk.
type MarketplaceCheckout struct {
	Name    string
	Scope   Scope
	Dir     string
	Entry   MarketplaceEntry
	Missing bool
	// Stale: the checkout is not what the lock names (the lock changed
	// under it, as a git pull does); plugin install checks it out.
	Stale    bool
	Location Location
}

// ListMarketplaces returns the scope's marketplaces from its lock, by name.
func ListMarketplaces(s Scope) ([]MarketplaceCheckout, error) {
	lock, err := ReadLock(s.LockPath())
	if err != nil {
		return nil, err
	}
	var out []MarketplaceCheckout
	for name, e := range lock.Marketplaces {
		m := MarketplaceCheckout{Name: name, Scope: s, Dir: s.MarketplaceDir(name), Entry: e, Location: s.Location}
		if fi, err := os.Lstat(m.Dir); err != nil || !fi.IsDir() {
			m.Missing = true
		} else if st, err := readStamp(m.Dir); err != nil || st.Name != name || st.MarketplaceEntry != e {
			m.Stale = true
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// syncMarketplaces checks out every locked marketplace that is missing or
// at another commit, at its locked commit (plugin install). The lock is
// not changed.
func (in *Installer) syncMarketplaces(ctx context.Context, lock *Lock) []SyncResult {
	names := make([]string, 0, len(lock.Marketplaces))
	for name := range lock.Marketplaces {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []SyncResult
	for _, name := range names {
		want := lock.Marketplaces[name]
		r := SyncResult{Marketplace: name, Status: "ok"}
		dir := in.Scope.MarketplaceDir(name)
		st, err := readStamp(dir)
		if err == nil && st.Name == name && st.Commit == want.Commit && st.Source == want.Source && CheckoutVerified(in.Scope, name, want) {
			out = append(out, r)
			continue
		}
		_, statErr := os.Lstat(dir)
		// The lock may have come with the repository: its source is
		// checked before anything is fetched (SPEC §5).
		err = in.checkLockSource("marketplace "+name, want.Source, "quiver marketplace add", in.Scope.checkoutSource(name))
		var spec Spec
		if err == nil {
			spec, err = ParseSpec(want.Source, in.GitBase, "/")
		}
		if err == nil {
			spec.Ref = want.Commit
			if want.Commit == "" {
				spec.Ref = want.Ref
			}
			var stage string
			stage, _, _, err = in.stageMarketplace(ctx, spec, want.Ref, name, func(string) (string, error) { return name, nil })
			if err == nil {
				// The stamp records the lock's entry, which stays as it is.
				data, _ := json.Marshal(marketplaceStamp{Name: name, MarketplaceEntry: want})
				if err = WriteFileAtomic(filepath.Join(stage, stampFile), data, 0o644); err == nil {
					err = in.putMarketplace(lock, name, stage, want)
				} else {
					os.RemoveAll(stage)
				}
			}
		}
		switch {
		case err != nil:
			r.Status, r.Err = "failed", fmt.Errorf("install marketplace %s: %w", name, err)
		case statErr == nil:
			r.Status = "repaired"
		default:
			r.Status = "installed"
		}
		out = append(out, r)
	}
	return out
}

// The machine's record of each marketplace checkout it put in place: the
// lock entry it was checked out for and the content hash of the folder.
// The checkout lives in the scope (.quiver/marketplaces/NAME), where a
// repository can commit one, stamp included, or a pull can overwrite the
// ignored files; only this record, under the scope's machine folder,
// says the folder is the marketplace at its locked commit (SPEC §17: a
// marketplace:SOURCE claim is honoured only against that).

type checkoutRecord struct {
	MarketplaceEntry
	Hash string `json:"hash"`
}

// checkoutRecordPath is where the record of checkout name is kept.
func (s Scope) checkoutRecordPath(name string) string {
	return filepath.Join(s.StateDir(), "checkouts", name+".json")
}

// recordCheckout records that the checkout of name, as it is now, is
// entry's; an error leaves it unrecorded (then unverified).
func recordCheckout(s Scope, name string, entry MarketplaceEntry) error {
	d, err := HashDir(s.MarketplaceDir(name))
	if err != nil {
		return err
	}
	data, err := json.Marshal(checkoutRecord{MarketplaceEntry: entry, Hash: d.Sum})
	if err != nil {
		return err
	}
	p := s.checkoutRecordPath(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return WriteFileAtomic(p, data, 0o600)
}

// CheckoutVerified reports whether the checkout of marketplace name is
// what this machine put in place for lock entry entry, unchanged since.
// checkoutSource is the source of marketplace name as this machine's
// checkout of it recorded, "" for none.
func (s Scope) checkoutSource(name string) string {
	if ValidMarketplaceName(name) != nil {
		return ""
	}
	data, err := safefs.ReadFile(s.checkoutRecordPath(name), safefs.MaxMeta)
	if err != nil {
		return ""
	}
	var rec checkoutRecord
	if json.Unmarshal(data, &rec) != nil {
		return ""
	}
	return rec.Source
}

// VerifiedCheckout is the folder of a marketplace checkout, in one of
// scopes, that this machine put in place for source at commit and that
// is unchanged since (CheckoutVerified); "" when there is none.
func VerifiedCheckout(scopes []Scope, source, commit string) string {
	for _, s := range scopes {
		lock, err := ReadLock(s.LockPath())
		if err != nil {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(lock.Marketplaces)) {
			me := lock.Marketplaces[name]
			if me.Commit == commit && SameSource(me.Source, source) && CheckoutVerified(s, name, me) {
				return s.MarketplaceDir(name)
			}
		}
	}
	return ""
}

func CheckoutVerified(s Scope, name string, entry MarketplaceEntry) bool {
	if ValidMarketplaceName(name) != nil {
		return false
	}
	data, err := safefs.ReadFile(s.checkoutRecordPath(name), safefs.MaxMeta)
	if err != nil {
		return false
	}
	var rec checkoutRecord
	if json.Unmarshal(data, &rec) != nil || rec.MarketplaceEntry != entry || rec.Hash == "" {
		return false
	}
	d, err := HashDir(s.MarketplaceDir(name))
	return err == nil && d.Sum == rec.Hash
}
