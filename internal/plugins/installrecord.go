package plugins

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// A plugin folder is what its lock entry says only when it is the named
// commit's content fetched from the named source: a lock entry carries the
// folder's hash, so a repository that commits both a folder and an entry
// carrying that folder's own hash would certify itself (SPEC §9: what a
// repository chose never counts as the user's). So each install that this
// machine's quiver puts in place is recorded in the scope's machine
// records, never in the repository; plugin install keeps a folder only
// when the record says this machine put exactly that entry there, and
// fetches it again otherwise; verify and audit name the folders no install
// here produced.

// installRecord is what quiver put in place for one plugin: the fields of
// its lock entry that say which content it is.
type installRecord struct {
	Source string `json:"source"`
	Path   string `json:"path,omitempty"`
	Commit string `json:"commit,omitempty"`
	Hash   string `json:"hash,omitempty"`
	Link   bool   `json:"link,omitempty"`
}

func recordOf(e LockEntry) installRecord {
	return installRecord{Source: e.Source, Path: e.Path, Commit: e.Commit, Hash: e.Hash, Link: e.Link}
}

// installRecordPath is where the record of plugin n is kept:
// <machine>/state/installed/<org@repo>.json.
func (s Scope) installRecordPath(n Name) string {
	return filepath.Join(s.StateDir(), "installed", n.Dir()+".json")
}

// recordInstalled records that entry e of plugin n was put in place by
// this machine. A record that cannot be written costs a fetch at the next
// plugin install, never a wrong answer: it is not an error.
func (in *Installer) recordInstalled(n Name, e LockEntry) {
	p := in.Scope.installRecordPath(n)
	data, _ := json.Marshal(recordOf(e))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return
	}
	if err := WriteFileAtomic(p, append(data, '\n'), 0o600); err != nil {
		os.Remove(p)
	}
}

// forgetInstalled drops plugin n's record.
func (s Scope) forgetInstalled(n Name) {
	if err := os.Remove(s.installRecordPath(n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return
	}
}

// InstalledHere reports whether this machine's quiver put plugin n of
// scope s in place as lock entry e says: the same source, folder, commit
// and content hash.
func InstalledHere(s Scope, n Name, e LockEntry) bool {
	r, ok := s.readInstalled(n)
	return ok && r == recordOf(e)
}

// readInstalled reads plugin n's record; ok is false for none.
func (s Scope) readInstalled(n Name) (installRecord, bool) {
	data, err := safefs.ReadFile(s.installRecordPath(n), safefs.MaxMeta)
	if err != nil {
		return installRecord{}, false
	}
	var r installRecord
	if json.Unmarshal(data, &r) != nil {
		return installRecord{}, false
	}
	return r, true
}

// installedSource is the source this machine's install of plugin n of
// scope s recorded, "" for none.
func (s Scope) installedSource(n Name) string {
	r, _ := s.readInstalled(n)
	return r.Source
}
