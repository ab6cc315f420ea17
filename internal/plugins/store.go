package plugins

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
)

// The machine's store (SPEC §1, v4): $QUIVER_HOME/store/git holds one bare
// git repository per source, named by the hash of the source as policies
// read it (NormalSource), with every commit this machine fetched from
// it. Fetches go through it (quiver-git's storeFetch), so a commit is
// fetched once per machine and installs offline after; what it holds is
// checked on every use (every object hashed again, the lock's content
// hash after), never believed. It lives in the user's home, readable by
// the user alone, and holds no credential. Deleting it is always safe.

// StoreSourceFile, in a store repository, names the source it holds (no
// credential), for quiver cache.
const StoreSourceFile = "quiver-source"

// StoreDir is the store's folder under the global root.
func StoreDir(globalRoot string) string { return filepath.Join(globalRoot, "store") }

// StoreRepo is the store repository of source under the store store.
func StoreRepo(store, source string) string {
	sum := sha256.Sum256([]byte(NormalSource(source)))
	return filepath.Join(store, "git", hex.EncodeToString(sum[:12]))
}

// storable reports whether spec is fetched with git, so through the
// store: a remote, or a local git repository (a plain folder is copied,
// a link linked).
func storable(spec Spec, link bool) bool {
	return !link && (!spec.IsLocal() || isGitRepo(spec.Path))
}

// answer is what the host said of a ref in this command: the commit and
// kind it resolved to, and, for a fetch into the store, whether the
// store had the commit already. done closes once it is known.
type answer struct {
	done      chan struct{}
	commit    string
	kind      RefKind
	fromStore bool
	err       error
}

// once returns the answer for key, asking do only the first time: a
// caller that asks while do runs waits for its answer. An answer is the
// command's (a Fetcher lives as long as one), so a ref is resolved once,
// and an error is not retried.
func (f *Fetcher) once(key string, do func() answer) answer {
	f.answers.Lock()
	if f.answers.m == nil {
		f.answers.m = map[string]*answer{}
	}
	a, asked := f.answers.m[key]
	if !asked {
		a = &answer{done: make(chan struct{})}
		f.answers.m[key] = a
	}
	f.answers.Unlock()
	if asked {
		<-a.done
		return *a
	}
	got := do()
	a.commit, a.kind, a.fromStore, a.err = got.commit, got.kind, got.fromStore, got.err
	close(a.done)
	return *a
}

// known returns the answer for key when one has been given.
func (f *Fetcher) known(key string) (answer, bool) {
	f.answers.Lock()
	a, ok := f.answers.m[key]
	f.answers.Unlock()
	if !ok {
		return answer{}, false
	}
	select {
	case <-a.done:
		return *a, true
	default:
		return answer{}, false
	}
}

// storeKey keys the answer of fetching ref of spec's source into the
// store.
func (f *Fetcher) storeKey(spec Spec) string {
	return "store " + StoreRepo(f.Store, spec.Source()) + "@" + spec.Ref
}

// Prefetch puts the commit spec names into the machine's store, once per
// command whatever the number of plugins or folders that come from it,
// so that the Fetch of spec that follows reads it from there. It does
// nothing for a spec the store does not hold (a folder, a link) or
// when there is no store; what went wrong is Fetch's to say.
func (f *Fetcher) Prefetch(ctx context.Context, spec Spec) {
	if f.Store == "" || !storable(spec, false) {
		return
	}
	if spec.Subdir != "" && f.Checkout != nil && fullCommit(spec.Ref) && f.Checkout(spec.Source(), spec.Ref) != "" {
		return // copied from the marketplace's checkout
	}
	f.once(f.storeKey(spec), func() answer {
		resp, err := f.runGit(ctx, f.storeRequest(spec, ""), nil)
		return answer{commit: resp.Commit, kind: resp.Kind, fromStore: resp.FromStore, err: err}
	})
}

// storeRequest is the git helper's request to fetch spec through the
// store into dst ("": into the store alone). A ref this command resolved
// already (Latest, a prefetch) is asked for as its commit: the host is
// not asked again, and every plugin of a command gets what one answer
// said.
func (f *Fetcher) storeRequest(spec Spec, dst string) GitRequest {
	url, config := spec.URL, f.GitConfig
	if spec.IsLocal() {
		url, config = spec.Path, nil
	}
	source := spec.Source()
	ref := spec.Ref
	if a, ok := f.known("ref " + refKey(source, ref)); ok && a.err == nil && a.commit != "" {
		ref = a.commit
	}
	return GitRequest{Op: "fetch", URL: url, GitConfig: config, Ref: ref, Dst: dst,
		Store: StoreRepo(f.Store, source), Source: Redact(source), Sub: spec.Subdir}
}

// fetchStored puts spec's files (its subfolder's, when it names one) at
// dst through the machine's store, in the git helper: from the store
// alone when it holds the commit a full commit ref names, or one this
// command prefetched.
func (f *Fetcher) fetchStored(ctx context.Context, spec Spec, dst string) (Fetched, error) {
	req := f.storeRequest(spec, dst)
	pre, prefetched := f.known(f.storeKey(spec))
	if prefetched {
		if pre.err != nil {
			return Fetched{}, f.storeError(spec, pre.err)
		}
		req.Ref = pre.commit
	}
	resp, err := f.runGit(ctx, req, f.Progress)
	if err != nil {
		return Fetched{}, f.storeError(spec, err)
	}
	got := Fetched{Commit: resp.Commit, Kind: resp.Kind, FromStore: resp.FromStore}
	if a, ok := f.known("ref " + refKey(spec.Source(), spec.Ref)); ok && a.err == nil && a.commit == resp.Commit {
		got.Kind = a.kind
	}
	if prefetched {
		got.Kind, got.FromStore = cmp.Or(pre.kind, got.Kind), pre.fromStore
	}
	return got, nil
}

// storeError is err of fetching spec, which names the folder's commit
// when the folder, not the host, is what failed.
func (f *Fetcher) storeError(spec Spec, err error) error {
	for _, of := range []error{ErrUnreachable, ErrRepoNotFound, ErrAuthRequired, ErrAuthFailed, ErrRefNotFound} {
		if errors.Is(err, of) {
			return err
		}
	}
	if spec.Subdir == "" {
		return err
	}
	at := cmp.Or(spec.Ref, "its default branch")
	if IsCommit(at) {
		at = at[:7]
	}
	return fmt.Errorf("%s at %s: %w", spec.Source(), at, err)
}
