package plugins

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins/scan"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// HiddenUnicodeError refuses a plugin whose files hold critical hidden
// characters (SPEC §17); nothing was written.
type HiddenUnicodeError struct {
	Findings []scan.Finding
	// Policy says the policy refused it though the command asked to let
	// it in (a machine's scan.hidden_unicode: block).
	Policy bool
	// Verb is what --allow-hidden-unicode does anyway ("install it"
	// when empty).
	Verb string
}

func (e *HiddenUnicodeError) Error() string {
	const show = 5
	var b strings.Builder
	b.WriteString("hidden Unicode a reviewer cannot see: ")
	for i, f := range e.Findings[:min(show, len(e.Findings))] {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(f.String())
	}
	if len(e.Findings) > show {
		fmt.Fprintf(&b, "; and %d more", len(e.Findings)-show)
	}
	if e.Policy {
		b.WriteString("; refused: the policy's scan.hidden_unicode is block, which --allow-hidden-unicode cannot lower (see quiver policy show)")
	} else {
		fmt.Fprintf(&b, "; refused (%s anyway with --allow-hidden-unicode)", cmp.Or(e.Verb, "install it"))
	}
	return b.String()
}

// ScanReport is what the content scan found in one plugin that was put
// in place (Installer.OnScan): the warnings, and the critical findings
// that --allow-hidden-unicode or the policy let in.
type ScanReport struct {
	Name     Name
	Findings []scan.Finding
	// Err is set when the record for `quiver audit` could not be
	// written; the plugin is installed all the same.
	Err error
}

// Lines are what the person is told of r, one line per finding, every
// hidden character escaped, then the record's error.
func (r ScanReport) Lines() []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, fmt.Sprintf("quiver: %s: hidden Unicode in %s: %s", f.Severity, r.Name, f))
	}
	if r.Err != nil {
		out = append(out, fmt.Sprintf("quiver: %v", r.Err))
	}
	return out
}

// ScanRecord is what the content scan found when a plugin was installed,
// kept in the scope's machine records (ScanRecordPath) for `quiver audit`:
// Hash and Commit say which content it is about.
type ScanRecord struct {
	Plugin   string         `json:"plugin"`
	Commit   string         `json:"commit,omitempty"`
	Hash     string         `json:"hash,omitempty"`
	Findings []scan.Finding `json:"findings"`
}

// ScanRecordPath is where the scan record of plugin n is kept:
// <machine>/state/scan/<org@repo>.json (SPEC §17), with the scope's other
// records of this machine, never in the repository.
func (s Scope) ScanRecordPath(n Name) string {
	return filepath.Join(s.StateDir(), "scan", n.Dir()+".json")
}

// ReadScanRecord reads plugin n's scan record; ok is false when it has
// none (nothing was found, or it was installed without a scan).
func ReadScanRecord(s Scope, n Name) (rec ScanRecord, ok bool, err error) {
	data, err := safefs.ReadFile(s.ScanRecordPath(n), safefs.MaxMeta)
	if errors.Is(err, fs.ErrNotExist) {
		return ScanRecord{}, false, nil
	}
	if err != nil {
		return ScanRecord{}, false, err
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return ScanRecord{}, false, fmt.Errorf("%s: %w", s.ScanRecordPath(n), err)
	}
	return rec, true, nil
}

// scanPlugin scans the staged plugin at dir as mode says: a critical
// finding under scan.Block is a *HiddenUnicodeError.
func scanPlugin(dir string, mode scan.Mode) ([]scan.Finding, error) {
	if mode == scan.Off {
		return nil, nil
	}
	rep, err := scan.Dir(dir, 0)
	if err != nil {
		return nil, err
	}
	if crit := rep.Critical(); len(crit) > 0 && mode == scan.Block {
		return nil, &HiddenUnicodeError{Findings: crit}
	}
	return rep.Findings, nil
}

// recordScan keeps what the scan of the plugin now in place found, or
// drops the record of an earlier version when it found nothing, and
// tells OnScan.
func (in *Installer) recordScan(n Name, e LockEntry, found []scan.Finding) {
	p := in.Scope.ScanRecordPath(n)
	var err error
	if len(found) == 0 {
		if err = os.Remove(p); errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
	} else {
		data, _ := json.MarshalIndent(ScanRecord{Plugin: n.String(), Commit: e.Commit, Hash: e.Hash, Findings: found}, "", "  ")
		if err = os.MkdirAll(filepath.Dir(p), 0o700); err == nil {
			err = WriteFileAtomic(p, append(data, '\n'), 0o600)
		}
	}
	if err != nil {
		err = fmt.Errorf("record the content scan of %s for quiver audit: %w", n, err)
	}
	if in.OnScan != nil && (len(found) > 0 || err != nil) {
		in.OnScan(ScanReport{Name: n, Findings: found, Err: err})
	}
}
