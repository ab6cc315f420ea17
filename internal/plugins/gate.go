package plugins

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"github.com/quiver-cli/quiver/internal/plugins/scan"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// Gate is what decides whether something may be installed (SPEC §17: the
// team's policy, package policy). The installer asks it at each door that
// changes what is installed, before anything is written: a plugin's or
// marketplace's source before it is fetched, the staged folder before it
// is swapped in, and any change to the lock when the lock is frozen. The
// installer calls it; it never decides itself, and a nil Gate allows all.
type Gate interface {
	// Frozen is nil when the lock may change (plugin add, update and
	// remove; marketplace add, update and remove), else why not.
	Frozen() error
	// ScanMode is the content scan's mode for a command that asked for
	// requested (scan.ModeFor of its --allow-hidden-unicode).
	ScanMode(requested scan.Mode) scan.Mode
	// CheckSource is asked before anything of c is fetched.
	CheckSource(ctx context.Context, c Candidate) error
	// CheckStaged is asked once c is staged at root (the folder as it
	// would be put in place), before it is.
	CheckStaged(ctx context.Context, c Candidate, root string) error
}

// Candidate is a plugin or a marketplace about to be installed, as a Gate
// sees it.
type Candidate struct {
	Scope Scope
	// Name is the plugin's name (zero for a marketplace); Market the
	// marketplace's name (for a plugin, the one it comes from, "" for
	// none; for a marketplace being added, "" until it is fetched).
	Name   Name
	Market string
	// IsMarketplace says the candidate is a marketplace.
	IsMarketplace bool
	// Source is the source as written (a URL without credentials, or a
	// local folder's absolute path); Fetched is what is fetched after
	// the user's insteadOf rewrites (SPEC §5), equal when none applies.
	Source, Fetched string
	// Path is the folder of the repository installed ("" for all).
	Path string
	// Ref is the ref the lock records ("" for the default branch).
	Ref string
	// Link is a --link install; Local a folder of this machine.
	Link, Local bool
	// Kind says whether Ref names a branch, a tag or a commit, asking
	// the remote when it must (once); nil for local folders.
	Kind func(ctx context.Context) (RefKind, error)
}

// rewriter is a fetcher that rewrites URLs (Fetcher's insteadOf rules).
type rewriter interface{ Rewrite(url string) string }

// Rewrite is url as it is fetched, after the user's insteadOf rules,
// which the git helper reads (as it does at every fetch); url itself when
// the helper cannot say.
func (f *Fetcher) Rewrite(url string) string {
	if len(f.GitConfig) == 0 {
		return url
	}
	f.rewritten.Lock()
	defer f.rewritten.Unlock()
	if got, ok := f.rewritten.urls[url]; ok {
		return got
	}
	resp, err := f.runGit(context.Background(), GitRequest{Op: "rewrite", URL: url, GitConfig: f.GitConfig}, nil)
	if err != nil || resp.URL == "" {
		return url
	}
	if f.rewritten.urls == nil {
		f.rewritten.urls = map[string]string{}
	}
	f.rewritten.urls[url] = resp.URL
	return resp.URL
}

// candidate describes spec for the gate; ref is what the lock records.
// Its Kind asks the remote at most once, and not at all once known (a
// full SHA, the default branch, or what the fetch found: known).
func (in *Installer) candidate(spec Spec, ref string) (Candidate, *RefKind) {
	c := Candidate{Scope: in.Scope, Source: spec.Source(), Path: spec.Subdir, Ref: ref, Local: spec.IsLocal()}
	c.Fetched = c.Source
	known := new(RefKind)
	if c.Local {
		return c, known
	}
	if rw, ok := in.Fetcher.(rewriter); ok {
		c.Fetched = Redact(rw.Rewrite(spec.URL))
	}
	switch {
	case IsCommit(ref):
		*known = CommitRef
	case ref == "":
		*known = BranchRef // the default branch
	}
	source := spec.URL
	var mu sync.Mutex
	var err error
	c.Kind = func(ctx context.Context) (RefKind, error) {
		mu.Lock()
		defer mu.Unlock()
		if *known == "" && err == nil {
			_, *known, err = in.Fetcher.Latest(ctx, source, ref)
		}
		return *known, err
	}
	return c, known
}

// scanMode is the mode the gate sets for a command that asked for mode.
func (in *Installer) scanMode(mode scan.Mode) scan.Mode {
	if in.Policy == nil {
		return mode
	}
	return in.Policy.ScanMode(mode)
}

// frozen is the gate's Frozen, nil without a gate.
func (in *Installer) frozen() error {
	if in.Policy == nil {
		return nil
	}
	return in.Policy.Frozen()
}

// The ref kinds quiver learned from remotes (SPEC §17): `require.pinned`
// asks whether a ref is a tag or a branch, which its name does not tell,
// at install and update; the answer is kept in the scope's machine
// records (never in the repository, whose lock is the repository's word)
// for `quiver audit`.

// refKindsPath is the scope's record of ref kinds.
func (s Scope) refKindsPath() string { return filepath.Join(s.StateDir(), "refs.json") }

// refKey keys a ref kind by the normalised source and the ref.
func refKey(source, ref string) string { return NormalSource(source) + "@" + ref }

// recordMu serialises writes of the record within one process; commands
// that write it hold the scope lock.
var recordMu sync.Mutex

// RecordRefKind keeps what ref of source turned out to be.
func RecordRefKind(s Scope, source, ref string, kind RefKind) error {
	if ref == "" || kind == "" {
		return nil
	}
	recordMu.Lock()
	defer recordMu.Unlock()
	kinds := readRefKinds(s)
	if kinds[refKey(source, ref)] == kind {
		return nil
	}
	kinds[refKey(source, ref)] = kind
	data, err := json.MarshalIndent(kinds, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.StateDir(), 0o700); err != nil {
		return err
	}
	return WriteFileAtomic(s.refKindsPath(), append(data, '\n'), 0o600)
}

// RecordedRefKind is what RecordRefKind kept for ref of source, if any.
func RecordedRefKind(s Scope, source, ref string) (RefKind, bool) {
	k, ok := readRefKinds(s)[refKey(source, ref)]
	return k, ok
}

func readRefKinds(s Scope) map[string]RefKind {
	kinds := map[string]RefKind{}
	data, err := safefs.ReadFile(s.refKindsPath(), safefs.MaxMeta)
	if err != nil {
		return kinds
	}
	if json.Unmarshal(data, &kinds) != nil || kinds == nil {
		return map[string]RefKind{}
	}
	for k, v := range kinds {
		if v != BranchRef && v != TagRef && v != CommitRef {
			delete(kinds, k)
		}
	}
	return kinds
}

// Refusal is a Gate's refusal: which rule refused what, and the file the
// rule came from (SPEC §17: "quiver: policy (/etc/quiver/policy.yaml):
// github.com/evil/x is denied by github.com/evil/**"). Nothing was
// written.
type Refusal struct {
	// ID is the rule's stable id, as `quiver audit` reports it
	// ("quiver/policy/source-denied").
	ID string
	// File is the policy file whose rule refused; Rule the rule
	// ("sources.deny").
	File, Rule string
	// Message says what was refused and by what.
	Message string
}

func (r *Refusal) Error() string { return "policy (" + r.File + "): " + r.Message }
