package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// LockVersion is the lock file format this quiver writes and reads.
const LockVersion = 1

const lockHeader = "# quiver.lock: written by quiver; commit it to share this plugin set\n"

// LockEntry records one installed plugin (SPEC §6).
type LockEntry struct {
	Source string `yaml:"source" json:"source"`
	// Path is the folder of the repository installed (SPEC §12).
	Path string `yaml:"path,omitempty" json:"path,omitempty"`
	// Marketplace names the marketplace the plugin was installed from.
	Marketplace string `yaml:"marketplace,omitempty" json:"marketplace,omitempty"`
	Ref         string `yaml:"ref,omitempty" json:"ref,omitempty"`
	Commit      string `yaml:"commit,omitempty" json:"commit,omitempty"`
	Hash        string `yaml:"hash,omitempty" json:"hash,omitempty"`
	Link        bool   `yaml:"link,omitempty" json:"link,omitempty"`
	Disabled    bool   `yaml:"disabled,omitempty" json:"disabled,omitempty"`
	// Manifest is the component fields of a marketplace entry with
	// "strict": false (compact JSON), which the plugin folder holds as
	// EntryManifestPath, so that the plugin installs from the lock alone.
	Manifest string `yaml:"manifest,omitempty" json:"manifest,omitempty"`
}

// checkEntryManifest checks a marketplace entry's manifest as it comes
// from the lock or a marketplace: a JSON object of printable ASCII within
// the metadata size limit.
func checkEntryManifest(m string) error {
	var obj map[string]json.RawMessage
	switch {
	case len(m) > safefs.MaxMeta:
		return fmt.Errorf("the marketplace entry's manifest is larger than %s", safefs.Size(safefs.MaxMeta))
	case strings.IndexFunc(m, func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0:
		return errors.New("the marketplace entry's manifest holds a character other than printable ASCII")
	case json.Unmarshal([]byte(m), &obj) != nil || obj == nil:
		return errors.New("the marketplace entry's manifest is not a JSON object")
	}
	return nil
}

// MarketplaceEntry records one added marketplace (SPEC §6, §12).
type MarketplaceEntry struct {
	Source string `yaml:"source" json:"source"`
	Ref    string `yaml:"ref,omitempty" json:"ref,omitempty"`
	Commit string `yaml:"commit,omitempty" json:"commit,omitempty"`
}

// Lock is the content of a quiver.lock file. Plugins is keyed by org/repo,
// Marketplaces by marketplace name.
type Lock struct {
	Version      int                         `yaml:"version"`
	Plugins      map[string]LockEntry        `yaml:"plugins"`
	Marketplaces map[string]MarketplaceEntry `yaml:"marketplaces,omitempty"`
}

// ValidMarketplaceName checks a marketplace name: it becomes the org of
// the plugins installed from it, and a folder name.
func ValidMarketplaceName(name string) error {
	if _, err := NewName(name, "x"); err != nil || name != strings.ToLower(name) {
		return fmt.Errorf("%w %q: a marketplace name must be 1-39 lowercase letters, digits or hyphens", ErrInvalidName, name)
	}
	return nil
}

// Names returns the locked plugin names in byte order.
func (l *Lock) Names() []string {
	names := make([]string, 0, len(l.Plugins))
	for n := range l.Plugins {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ReadLock reads a lock file. A missing file is an empty lock.
func ReadLock(path string) (*Lock, error) {
	data, err := safefs.ReadFile(path, safefs.MaxMeta)
	if errors.Is(err, fs.ErrNotExist) {
		return &Lock{Version: LockVersion, Plugins: map[string]LockEntry{}, Marketplaces: map[string]MarketplaceEntry{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read lock file: %w", err)
	}
	return ParseLock(data, path)
}

// ParseLock decodes lock file content; path is only used in errors.
func ParseLock(data []byte, path string) (*Lock, error) {
	var l Lock
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&l); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("lock file %s is corrupt (%v); fix it or restore it from version control", path, err)
	}
	if l.Version == 0 && len(l.Plugins) == 0 {
		l.Version = LockVersion
	}
	if l.Version != LockVersion {
		return nil, fmt.Errorf("lock file %s has version %d; this quiver reads version %d", path, l.Version, LockVersion)
	}
	if l.Plugins == nil {
		l.Plugins = map[string]LockEntry{}
	}
	for _, k := range l.Names() { // in order: the first broken entry is named, every time
		e := l.Plugins[k]
		// A lock written before sources were redacted may hold a token
		// (https://TOKEN@host/...): drop it on read, so it is never
		// printed, and the next write removes it from the file.
		if clean := Redact(e.Source); clean != e.Source {
			e.Source = clean
			l.Plugins[k] = e
		}
		n, err := ParseName(k)
		if err != nil || n.String() != k {
			return nil, fmt.Errorf("lock file %s is corrupt: plugin key %q is not a valid org/repo name", path, k)
		}
		if e.Source == "" {
			return nil, fmt.Errorf("lock file %s is corrupt: plugin %s has no source", path, k)
		}
		if e.Path != "" {
			if _, err := safefs.RelPath(e.Path); err != nil {
				return nil, fmt.Errorf("lock file %s is corrupt: plugin %s: path %w", path, k, err)
			}
		}
		if e.Manifest != "" {
			if err := checkEntryManifest(e.Manifest); err != nil {
				return nil, fmt.Errorf("lock file %s is corrupt: plugin %s: %w", path, k, err)
			}
		}
		for field, v := range map[string]string{"source": e.Source, "path": e.Path, "marketplace": e.Marketplace, "ref": e.Ref, "commit": e.Commit, "hash": e.Hash} {
			if strings.IndexFunc(v, safefs.Deceptive) >= 0 {
				return nil, fmt.Errorf("lock file %s is corrupt: plugin %s has a control character in its %s", path, k, field)
			}
		}
		if err := checkLockedRefs(e.Ref, e.Commit); err != nil {
			return nil, fmt.Errorf("lock file %s is corrupt: plugin %s: %w", path, k, err)
		}
	}
	if l.Marketplaces == nil {
		l.Marketplaces = map[string]MarketplaceEntry{}
	}
	for _, k := range sortedKeys(l.Marketplaces) {
		e := l.Marketplaces[k]
		if err := ValidMarketplaceName(k); err != nil {
			return nil, fmt.Errorf("lock file %s is corrupt: marketplace %w", path, err)
		}
		if clean := Redact(e.Source); clean != e.Source {
			e.Source = clean
			l.Marketplaces[k] = e
		}
		if e.Source == "" {
			return nil, fmt.Errorf("lock file %s is corrupt: marketplace %s has no source", path, k)
		}
		for field, v := range map[string]string{"source": e.Source, "ref": e.Ref, "commit": e.Commit} {
			if strings.IndexFunc(v, safefs.Deceptive) >= 0 {
				return nil, fmt.Errorf("lock file %s is corrupt: marketplace %s has a control character in its %s", path, k, field)
			}
		}
		if err := checkLockedRefs(e.Ref, e.Commit); err != nil {
			return nil, fmt.Errorf("lock file %s is corrupt: marketplace %s: %w", path, k, err)
		}
	}
	return &l, nil
}

// checkLockedRefs checks the ref and commit of a lock entry, which quiver
// passes to git: the lock may have come with the repository, so a ref is
// held to git's rules (ValidateRef) and a commit is a full SHA.
func checkLockedRefs(ref, commit string) error {
	if ref != "" && !validRef(ref) {
		return fmt.Errorf("ref %q is not a commit or a branch or tag name that git accepts", ref)
	}
	if commit != "" && !IsCommit(commit) {
		return fmt.Errorf("commit %q is not a full commit SHA (40 lowercase hex digits)", commit)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Marshal encodes the lock with its header comment, plugins in name order.
func (l *Lock) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(lockHeader)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	out := Lock{Version: LockVersion, Plugins: l.Plugins, Marketplaces: l.Marketplaces}
	if out.Plugins == nil {
		out.Plugins = map[string]LockEntry{}
	}
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteLock writes the lock atomically: a temp file beside it, fsynced, then
// renamed over the old one, so a reader or a crash never sees half a file.
func WriteLock(path string, l *Lock) error {
	data, err := l.Marshal()
	if err != nil {
		return fmt.Errorf("encode lock file: %w", err)
	}
	if err := WriteFileAtomic(path, data, 0o644); err != nil {
		return fmt.Errorf("write lock file: %w", err)
	}
	return nil
}

// WriteFileAtomic replaces path with data in one rename.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op once renamed
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
