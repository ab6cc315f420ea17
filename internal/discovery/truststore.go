package discovery

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/safefs"
	"gopkg.in/yaml.v3"
)

type trustStore struct {
	Version  int                    `yaml:"version"`
	Projects map[string]trustRecord `yaml:"projects"`
}

// trustRecord is one trusted project. It holds no list of the hooks: the
// fingerprint covers them, and a list would let one repository with
// thousands of long hook names grow the store past any bound (records
// written by older versions keep theirs until the store is next written,
// since unknown fields are dropped).
type trustRecord struct {
	// Fingerprint covers what runs, State what decides what the next
	// command installs (see fingerprint.go). A record of an earlier
	// version has no state and a fingerprint over both.
	Fingerprint string    `yaml:"fingerprint"`
	State       string    `yaml:"state,omitempty"`
	TrustedAt   time.Time `yaml:"trusted_at"`
	// Version is recordVersion for records with two fingerprints; 0 for
	// an earlier version's (whose one fingerprint covered the lock).
	Version int `yaml:"v,omitempty"`
}

// recordVersion marks records that hold both fingerprints: an empty
// State is then an empty lock, not an earlier version's record.
const recordVersion = 2

// maxTrustStore bounds the trust store: one record is about 150 bytes, so
// this is room for some 100,000 projects.
const maxTrustStore = 16 << 20

func trustPath(l plugins.Layout) string { return filepath.Join(l.Global.Root, TrustFile) }

func readTrustStore(path string) (*trustStore, error) {
	ts := &trustStore{Version: 1, Projects: map[string]trustRecord{}}
	data, err := safefs.ReadFile(path, maxTrustStore)
	if errors.Is(err, fs.ErrNotExist) {
		return ts, nil
	}
	if err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(data, ts); err != nil {
		return nil, fmt.Errorf("trust store %s is corrupt (%v); delete it and run quiver trust again", path, err)
	}
	if ts.Projects == nil {
		ts.Projects = map[string]trustRecord{}
	}
	return ts, nil
}

// RecordTrust trusts the project as it is now (quiver trust): its hooks,
// its lock and its marketplaces, whose sources become the user's own
// choice (a later update from them renews trust). Nothing is written when
// the record already matches. A person grants trust: the caller refuses
// inside an agent's session (AgentSession).
func RecordTrust(l plugins.Layout) (Trust, error) {
	t, err := ProjectTrust(l, false)
	if err != nil {
		return t, err
	}
	if err := chooseAll(l); err != nil {
		return t, err
	}
	return storeTrust(l, t, nil)
}

// storeTrust records t's fingerprints for the project, only while the
// stored record is still expected (when given): a revocation that
// happened meanwhile is never undone. Nothing is written when the record
// already matches.
func storeTrust(l plugins.Layout, t Trust, expected *trustRecord) (Trust, error) {
	if t.HasRecord && t.record.Version == recordVersion && t.record.Fingerprint == t.Fingerprint && t.record.State == t.State {
		return t, nil
	}
	rec := trustRecord{Fingerprint: t.Fingerprint, State: t.State, TrustedAt: time.Now().UTC().Truncate(time.Second), Version: recordVersion}
	err := updateTrustStore(l, func(ts *trustStore) error {
		cur, had := ts.Projects[l.ProjectDir]
		if expected != nil && (cur.Fingerprint != expected.Fingerprint || cur.State != expected.State || had != (*expected != trustRecord{})) {
			t.Recorded, t.RecordedState = cur.Fingerprint, cur.State
			return ErrTrustChanged
		}
		ts.Projects[l.ProjectDir] = rec
		return nil
	})
	if err == nil {
		t.record, t.HasRecord = rec, true
		t.Recorded, t.RecordedState = t.Fingerprint, t.State
		writeRecordedParts(l, t.parts)
	}
	return t, err
}

// RevokeTrust forgets the project's trust record; it reports whether there
// was one.
func RevokeTrust(l plugins.Layout) (bool, error) {
	had := false
	err := updateTrustStore(l, func(ts *trustStore) error {
		_, had = ts.Projects[l.ProjectDir]
		delete(ts.Projects, l.ProjectDir)
		return nil
	})
	return had, err
}

// trustLockWait bounds the wait for another quiver updating the store.
const trustLockWait = 10 * time.Second

// updateTrustStore reads, changes and writes the trust store under a file
// lock, so concurrent trusts and revocations (in this project or others)
// each see the other's result: none is lost, none undone.
func updateTrustStore(l plugins.Layout, change func(*trustStore) error) error {
	path := trustPath(l)
	unlock, err := plugins.HoldFileMutex(context.Background(), path+".lock", trustLockWait, nil)
	if err != nil {
		return fmt.Errorf("lock the trust store: %w", err)
	}
	defer unlock()
	ts, err := readTrustStore(path)
	if err != nil {
		return err
	}
	if err := change(ts); err != nil {
		return err
	}
	data, err := yaml.Marshal(ts)
	if err != nil {
		return err
	}
	return plugins.WriteFileAtomic(path, append([]byte("# quiver trust store: projects whose hooks you reviewed (quiver trust)\n"), data...), 0o600)
}

// partsFile keeps, in a project's machine folder, a digest of each line of
// its last trusted record, so that quiver trust can name what changed
// since.
const partsFile = "trusted-parts.json"

func writeRecordedParts(l plugins.Layout, parts []trustPart) {
	if l.Local == nil || parts == nil {
		return
	}
	digest := make(map[string]string, len(parts))
	for _, p := range parts {
		sum := sha256.Sum256([]byte(p.line))
		digest[p.key] = hex.EncodeToString(sum[:8])
	}
	data, err := json.Marshal(digest)
	if err == nil && os.MkdirAll(l.Local.MachineDir(), 0o700) == nil {
		plugins.WriteFileAtomic(filepath.Join(l.Local.MachineDir(), partsFile), data, 0o600)
	}
}

// ChangedSinceRecord names what differs from the project's last trusted
// record on this machine (plugins by name, files by path, "lock NAME",
// "marketplace NAME"); ok is false when no earlier record is known. t
// comes from ProjectTrust.
func ChangedSinceRecord(l plugins.Layout, t Trust) (changed []string, ok bool) {
	if l.Local == nil || !t.HasRecord {
		return nil, false
	}
	data, err := safefs.ReadFile(filepath.Join(l.Local.MachineDir(), partsFile), maxTrustStore)
	var before map[string]string
	if err != nil || json.Unmarshal(data, &before) != nil {
		return nil, false
	}
	now := map[string]bool{}
	for _, p := range t.parts {
		now[p.key] = true
		sum := sha256.Sum256([]byte(p.line))
		if before[p.key] != hex.EncodeToString(sum[:8]) {
			changed = append(changed, strings.TrimPrefix(p.key, "file "))
		}
	}
	for k := range before {
		if !now[k] {
			changed = append(changed, strings.TrimPrefix(k, "file ")+" (gone)")
		}
	}
	sort.Strings(changed)
	return changed, true
}
