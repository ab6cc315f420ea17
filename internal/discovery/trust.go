package discovery

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// TrustFile is the name of the trust store in the global root.
const TrustFile = "trust.yaml"

// ProjectHook is one file that counts as a project hook for trust: every
// non-hidden regular file directly in .quiver/hooks/ or in the hooks/ of a
// local plugin, executable or not (making one executable is a change).
type ProjectHook struct {
	Name string // full item name, as hook list shows it
	Path string
}

// Trust is the trust state of a project.
type Trust struct {
	// Project is the project directory the record is keyed by.
	Project string
	// Hooks are the project's hooks, by path.
	Hooks []ProjectHook
	// Fingerprint covers path, exec bit and content of every project hook;
	// "" when there are none.
	Fingerprint string
	// Recorded is the fingerprint in the trust store, "" if none.
	Recorded string
	// All is set by QUIVER_TRUST_ALL=1.
	All bool
}

// Trusted reports whether the project's hooks may be queried and run: the
// user trusts everything, or the project has no hooks, or they are exactly
// the ones the user reviewed.
func (t Trust) Trusted() bool {
	return t.All || len(t.Hooks) == 0 || (t.Recorded != "" && t.Recorded == t.Fingerprint)
}

type trustStore struct {
	Version  int                    `yaml:"version"`
	Projects map[string]trustRecord `yaml:"projects"`
}

type trustRecord struct {
	Fingerprint string    `yaml:"fingerprint"`
	Hooks       []string  `yaml:"hooks,omitempty"`
	TrustedAt   time.Time `yaml:"trusted_at"`
}

func trustPath(l plugins.Layout) string { return filepath.Join(l.Global.Root, TrustFile) }

func readTrustStore(path string) (*trustStore, error) {
	ts := &trustStore{Version: 1, Projects: map[string]trustRecord{}}
	data, err := os.ReadFile(path)
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

// projectHooks lists the project's hook files from the local sources.
func projectHooks(srcs []source) []ProjectHook {
	var out []ProjectHook
	for _, s := range srcs {
		if !s.project {
			continue
		}
		for _, it := range s.contents.Hooks {
			name := it.Name
			if it.Disabled {
				name += plugins.DisabledSuffix
			}
			out = append(out, ProjectHook{Name: ItemName(s.plugin, name), Path: it.Path})
		}
		for _, sk := range s.contents.Skipped {
			out = append(out, ProjectHook{Name: ItemName(s.plugin, filepath.Base(sk.Path)), Path: sk.Path})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// fingerprint hashes path (relative to the project), exec bit and content
// of each project hook.
func fingerprint(project string, hooks []ProjectHook) (string, error) {
	if len(hooks) == 0 {
		return "", nil
	}
	h := sha256.New()
	for _, ph := range hooks {
		// A plugin being replaced or removed right now may take a file
		// away between the scan and here: it then simply is not part of
		// the fingerprint (which therefore differs: untrusted, the safe
		// side), rather than failing the agent's hook run.
		fi, err := os.Stat(ph.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		f, err := os.Open(ph.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		ch := sha256.New()
		_, err = io.Copy(ch, f)
		f.Close()
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(project, ph.Path)
		mode := "-"
		if fi.Mode()&0o111 != 0 {
			mode = "x"
		}
		fmt.Fprintf(h, "%s\x00%s\x00%s\n", filepath.ToSlash(rel), mode, hex.EncodeToString(ch.Sum(nil)))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// loadTrust computes the project's trust state from the local sources.
func loadTrust(l plugins.Layout, srcs []source, all bool) (Trust, error) {
	t := Trust{Project: l.ProjectDir, All: all, Hooks: projectHooks(srcs)}
	if l.Local == nil || len(t.Hooks) == 0 || all {
		return t, nil
	}
	var err error
	if t.Fingerprint, err = fingerprint(l.ProjectDir, t.Hooks); err != nil {
		return t, fmt.Errorf("fingerprint project hooks: %w", err)
	}
	ts, err := readTrustStore(trustPath(l))
	if err != nil {
		return t, err
	}
	t.Recorded = ts.Projects[l.ProjectDir].Fingerprint
	return t, nil
}

// ProjectTrust returns the trust state of the layout's project.
func ProjectTrust(l plugins.Layout, trustAll bool) (Trust, error) {
	srcs, err := localSources(l, plugins.HookKind)
	if err != nil {
		return Trust{}, err
	}
	return loadTrust(l, srcs, trustAll)
}

// RecordTrust trusts the project's hooks as they are now (quiver trust).
// Nothing is written when the record already matches.
func RecordTrust(l plugins.Layout) (Trust, error) {
	t, err := ProjectTrust(l, false)
	if err != nil || t.Recorded == t.Fingerprint {
		return t, err
	}
	err = updateTrustStore(l, func(ts *trustStore) {
		if len(t.Hooks) == 0 {
			delete(ts.Projects, l.ProjectDir)
			return
		}
		rec := trustRecord{Fingerprint: t.Fingerprint, TrustedAt: time.Now().UTC().Truncate(time.Second)}
		for _, h := range t.Hooks {
			rel, _ := filepath.Rel(l.ProjectDir, h.Path)
			rec.Hooks = append(rec.Hooks, filepath.ToSlash(rel))
		}
		ts.Projects[l.ProjectDir] = rec
	})
	t.Recorded = t.Fingerprint
	return t, err
}

// RevokeTrust forgets the project's trust record; it reports whether there
// was one.
func RevokeTrust(l plugins.Layout) (bool, error) {
	had := false
	err := updateTrustStore(l, func(ts *trustStore) {
		_, had = ts.Projects[l.ProjectDir]
		delete(ts.Projects, l.ProjectDir)
	})
	return had, err
}

func updateTrustStore(l plugins.Layout, change func(*trustStore)) error {
	path := trustPath(l)
	ts, err := readTrustStore(path)
	if err != nil {
		return err
	}
	change(ts)
	data, err := yaml.Marshal(ts)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return plugins.WriteFileAtomic(path, append([]byte("# quiver trust store: projects whose hooks you reviewed (quiver trust)\n"), data...), 0o600)
}
