package plugins

import (
	"crypto/sha256"
	"encoding/hex"
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
