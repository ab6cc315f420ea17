package plugins

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Plugin is an installed plugin as found on disk, with its lock entry.
type Plugin struct {
	Name  Name
	Scope Scope
	// Dir is the plugin folder (a symlink for --link installs).
	Dir string
	// Entry is the lock entry; Locked is false when the lock has none.
	Entry  LockEntry
	Locked bool
	// Missing reports a lock entry whose folder is gone.
	Missing  bool
	Contents Contents
	Manifest Manifest
}

// Parts reads the plugin's servers, subagents and output styles (none for
// a missing folder).
func (p Plugin) Parts() Parts {
	if p.Missing {
		return Parts{}
	}
	return ReadParts(p.Dir, p.Contents.Manifest)
}

// Enabled reports whether the plugin contributes its items.
func (p Plugin) Enabled() bool { return !p.Entry.Disabled }

// ReadPlugin reads one installed plugin of scope s.
func ReadPlugin(s Scope, n Name) (Plugin, error) {
	lock, err := ReadLock(s.LockPath())
	if err != nil {
		return Plugin{}, err
	}
	p, ok, err := readPlugin(s, n, lock, AllKinds, true, nil)
	if err != nil {
		return Plugin{}, err
	}
	if !ok {
		return Plugin{}, fmt.Errorf("plugin %s is %w in the %s scope", n, ErrNotInstalled, s.Location)
	}
	return p, nil
}

func readPlugin(s Scope, n Name, lock *Lock, kinds Kinds, manifest bool, dirs Dirs) (Plugin, bool, error) {
	p := Plugin{Name: n, Scope: s, Dir: s.PluginDir(n)}
	p.Entry, p.Locked = lock.Plugins[n.String()]
	lstat := os.Lstat
	if dirs != nil {
		lstat = dirs.Lstat
	}
	if _, err := lstat(p.Dir); errors.Is(err, fs.ErrNotExist) {
		p.Missing = true
		return p, p.Locked, nil
	} else if err != nil {
		return p, false, err
	}
	var err error
	if p.Contents, err = ScanWith(p.Dir, kinds, dirs); err != nil {
		return p, false, fmt.Errorf("read plugin %s: %w", n, err)
	}
	if manifest {
		// A broken plugin.yaml does not hide the plugin; validate reports it.
		p.Manifest, _ = ReadManifest(p.Dir)
	}
	return p, true, nil
}

// ListPlugins returns the plugins of scope s by name: every folder in
// plugins/ with a valid name, and lock entries whose folder is missing.
func ListPlugins(s Scope) ([]Plugin, error) { return ListPluginsOf(s, AllKinds, true) }

// ListPluginsOf is ListPlugins scanning only the given kinds, and reading
// plugin.yaml only when manifest is set.
func ListPluginsOf(s Scope, kinds Kinds, manifest bool) ([]Plugin, error) {
	return ListPluginsWith(s, kinds, manifest, nil)
}

// ListPluginsWith is ListPluginsOf reading folders through dirs (see
// ScanWith).
func ListPluginsWith(s Scope, kinds Kinds, manifest bool, dirs Dirs) ([]Plugin, error) {
	lock, err := ReadLock(s.LockPath())
	if err != nil {
		return nil, err
	}
	readDir := os.ReadDir
	if dirs != nil {
		readDir = dirs.ReadDir
	}
	entries, err := readDir(s.PluginsDir())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	seen := map[string]bool{}
	out := make([]Plugin, 0, len(entries)) // a Plugin is large: grown by doubling, as much again was copied
	add := func(n Name) error {
		if seen[n.String()] {
			return nil
		}
		seen[n.String()] = true
		p, ok, err := readPlugin(s, n, lock, kinds, manifest, dirs)
		if err != nil {
			return err
		}
		if ok {
			out = append(out, p)
		}
		return nil
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		n, err := ParseName(e.Name())
		if err != nil || n.Dir() != e.Name() {
			continue // not ours: quiver never installs such a folder
		}
		if err := add(n); err != nil {
			return nil, err
		}
	}
	for _, k := range lock.Names() {
		n, _ := ParseName(k) // validated by ParseLock
		if err := add(n); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, nil // as before it was sized: none is nil
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name.String() < out[j].Name.String() })
	return out, nil
}

// ResolveName decides the plugin name for a spec: --name when given; for a
// local folder, a full org/repo in its plugin.yaml; else the last two path
// segments (SPEC §5).
func ResolveName(spec Spec, override string) (Name, error) {
	if override != "" {
		n, err := ParseName(override)
		if err != nil {
			return Name{}, fmt.Errorf("--name: %w", err)
		}
		return n, nil
	}
	if spec.IsLocal() {
		dir := spec.Path
		if spec.Subdir != "" {
			dir = filepath.Join(dir, filepath.FromSlash(spec.Subdir))
		}
		if m, err := ReadManifest(dir); err == nil {
			switch {
			case strings.Count(m.Name, "/") == 1:
				if n, err := ParseName(m.Name); err == nil {
					return n, nil
				}
			case spec.Subdir != "" && !spec.Name.IsZero() && m.Name != "":
				// A bare manifest name x in a subfolder gives org/x.
				if n, err := NewName(spec.Name.Org(), m.Name); err == nil {
					return n, nil
				}
			}
		}
	}
	if spec.Name.IsZero() {
		return Name{}, fmt.Errorf("%w %q: cannot derive an org/repo name from it; give one with --name org/repo", ErrInvalidSpec, Redact(spec.Raw))
	}
	return spec.Name, nil
}
