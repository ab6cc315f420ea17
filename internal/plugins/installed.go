package plugins

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
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

// Reading plugins in parallel: a warm read is stat calls and parsing,
// which spread over the cores as git's preloaded index spreads its lstat
// calls. Below minParallel plugins one goroutine reads them all (waking a
// thread costs more than it saves); beyond maxReaders the readers would
// mostly wait on the same folders.
const (
	minParallel = 16
	maxReaders  = 8
)

// pluginRead is how one plugin's read ended: found or not, an error, or
// the panic it raised. The plugins themselves go straight into the
// result (a Plugin is large: holding each twice showed in peak memory).
type pluginRead struct {
	ok       bool
	err      error
	panicked any
}

// readPlugins reads the named plugins, in parallel when dirs allows it
// (see SharedDirs), and returns those found in names' order. The error
// is the one a sequential read would meet first: readers claim plugins in
// order and stop claiming at the first failure, so every plugin before a
// failed one has been read. A reader's panic is raised again on the
// caller's goroutine, where a caller that recovers (hook serve answering
// a request) recovers it as it did when one goroutine read everything.
func readPlugins(s Scope, names []Name, lock *Lock, kinds Kinds, manifest bool, dirs Dirs) ([]Plugin, error) {
	out := make([]Plugin, len(names))
	reads := make([]pluginRead, len(names))
	readers := 1
	if _, shared := dirs.(SharedDirs); (dirs == nil || shared) && len(names) >= minParallel {
		readers = min(runtime.GOMAXPROCS(0), maxReaders)
	}
	if readers == 1 {
		for i, n := range names {
			r := &reads[i]
			if out[i], r.ok, r.err = readPlugin(s, n, lock, kinds, manifest, dirs); r.err != nil {
				return nil, r.err
			}
		}
	} else {
		var next atomic.Int64
		var failed atomic.Bool
		var wg sync.WaitGroup
		for range readers {
			view := dirs
			if dirs != nil {
				view = dirs.(SharedDirs).Fork()
			}
			wg.Go(func() {
				for !failed.Load() {
					i := int(next.Add(1)) - 1
					if i >= len(names) {
						return
					}
					r := &reads[i]
					func() {
						defer func() {
							if v := recover(); v != nil {
								r.panicked = v
							}
						}()
						out[i], r.ok, r.err = readPlugin(s, names[i], lock, kinds, manifest, view)
					}()
					if r.err != nil || r.panicked != nil {
						failed.Store(true)
					}
				}
			})
		}
		wg.Wait()
	}
	// Those found, moved down in place.
	n := 0
	for i := range reads {
		if reads[i].panicked != nil {
			panic(reads[i].panicked)
		}
		if reads[i].err != nil {
			return nil, reads[i].err
		}
		if reads[i].ok {
			out[n] = out[i]
			n++
		}
	}
	clear(out[n:]) // nothing kept alive past the end
	return out[:n], nil
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
	// The plugins in the order a sequential read met them: the folders
	// as listed, then lock entries without one.
	seen := map[string]bool{}
	names := make([]Name, 0, len(entries))
	add := func(n Name) {
		if !seen[n.String()] {
			seen[n.String()] = true
			names = append(names, n)
		}
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		n, err := ParseName(e.Name())
		if err != nil || n.Dir() != e.Name() {
			continue // not ours: quiver never installs such a folder
		}
		add(n)
	}
	for _, k := range lock.Names() {
		n, _ := ParseName(k) // validated by ParseLock
		add(n)
	}
	out, err := readPlugins(s, names, lock, kinds, manifest, dirs)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, nil // as before it was sized: none is nil
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name.String() < out[j].Name.String() })
	return out, nil
}

// LocalOrg is the org of a plugin named by its folder's manifest alone
// (plugin init names its scaffolds so too).
const LocalOrg = "local"

// ResolveName decides the plugin name for a spec: --name when given; for a
// git URL, its last two path segments (SPEC §5); for a local folder, what
// its own files say: a full org/repo in its plugin.yaml, else the name in
// plugin.yaml or in .claude-plugin/plugin.json as local/NAME. A folder's
// path is no plugin name (./obra+superpowers, ~/src/x): one that says
// nothing of its name is refused with what to give.
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
		bare := ""
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
			bare = m.Name
		}
		if bare == "" {
			if cm, ok, err := ReadClaudeManifest(dir); err == nil && ok {
				bare = cm.Name
			}
		}
		if bare != "" && !strings.Contains(bare, "/") {
			n, err := NewName(LocalOrg, bare)
			if err != nil {
				return Name{}, fmt.Errorf("%w %q: its manifest names it %q, which is no plugin name (%v); give one with --name org/repo", ErrInvalidSpec, Redact(spec.Raw), bare, err)
			}
			return n, nil
		}
		if spec.Subdir == "" {
			return Name{}, fmt.Errorf("%w %q: a folder's path is no plugin name, and neither its plugin.yaml nor .claude-plugin/plugin.json names it; give it one with --name org/repo", ErrInvalidSpec, Redact(spec.Raw))
		}
	}
	if spec.Name.IsZero() {
		return Name{}, fmt.Errorf("%w %q: cannot derive an org/repo name from it; give one with --name org/repo", ErrInvalidSpec, Redact(spec.Raw))
	}
	return spec.Name, nil
}
