package discovery

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// Session keeps discovery's result in memory for a long-lived process
// (hook serve) and answers with the current state at every call: what
// other quiver processes install, remove, edit, trust, enable or disable
// is seen at the next call, without a restart (SPEC §14).
//
// On Linux it watches, with inotify, every folder the last discovery
// read: the scope roots and the folders holding them, plugins/, each
// plugin's folder, hooks/ and .claude-plugin/, the folders of its hook
// configurations, and for a project every folder the trust fingerprint
// covers (trust.yaml and the lock files lie in the scope roots). The
// kernel queues an event before the change's system call returns, so a
// call that finds the queue empty (one read) may return the last result;
// a hook reached through a symlink is stat'ed at each call instead, since
// its target may lie in a folder that is not watched. Any event, a full
// queue, a watch that cannot be added, a cached `hook` failure whose
// retry is due (RetryFailedAfter), or a result that was interrupted or
// had to leave out the project makes that call a full discovery, exactly
// Hooks(ctx, o). Elsewhere, and on file systems whose changes inotify
// does not see (NFS, FUSE, 9p, SMB), every call is a full discovery.
type Session struct {
	o   Options
	now func() time.Time

	mu     sync.Mutex
	w      watcher // nil: no watching here
	last   *HookSet
	fresh  bool // last may be returned while nothing changed
	in     *inputs
	stats  map[string]statKey // paths checked by stat at each call
	closed bool
	runs   int // full discoveries, for the tests
	// events memoizes ForEvent's answers for last.
	events map[string]EventHooks
}

// watcher is the platform's change notification (see watch_linux.go).
type watcher interface {
	// watch adds a watch on dir (a folder; followed through links). With
	// only, events about other names in dir are ignored; events about
	// names in skip always are. added reports a watch that did not exist
	// before.
	watch(dir string, only, skip []string) (added bool, err error)
	// changed drains the queue without blocking and reports whether any
	// event other than an ignored one arrived (an overflow counts).
	changed() (bool, error)
	close() error
}

// NewSession starts a session; o is used for every call (its Now, when
// set, also decides when failed `hook` questions are retried).
func NewSession(o Options) *Session {
	s := &Session{o: o, now: time.Now}
	if o.Now != nil {
		s.now = o.Now
	}
	if w, err := newWatcher(); err == nil {
		s.w = w
	}
	return s
}

// Hooks returns what Hooks(ctx, o) would return now. The result is the
// caller's own: changing it changes nothing the session keeps (a hook's
// Handler and Selector are shared, and only read).
func (s *Session) Hooks(ctx context.Context) (*HookSet, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	hs, err := s.current(ctx)
	if err != nil {
		return nil, err
	}
	return hs.clone(), nil
}

// EventHooks is what a run of one event needs of discovery.
type EventHooks struct {
	// Hooks is HookSet.ForEvent(event).
	Hooks []Hook
	// Untrusted is HookSet.UntrustedCount().
	Untrusted int
}

// ForEvent is Hooks(ctx) followed by ForEvent(event) and UntrustedCount,
// without copying the whole set: what hook serve's run needs. While
// nothing changes, each event's answer is computed once.
func (s *Session) ForEvent(ctx context.Context, event string) (EventHooks, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	hs, err := s.current(ctx)
	if err != nil {
		return EventHooks{}, err
	}
	e, ok := s.events[event]
	if !ok {
		e = EventHooks{Hooks: hs.ForEvent(event), Untrusted: hs.UntrustedCount()}
		s.events[event] = e
	}
	e.Hooks = slices.Clone(e.Hooks)
	return e, nil
}

// current returns the session's set, discovering it again unless nothing
// changed.
func (s *Session) current(ctx context.Context) (*HookSet, error) {
	if s.closed {
		return nil, errors.New("discovery session is closed")
	}
	// The queue is drained at every call, so that events from before a
	// discovery do not make the next call discover again.
	if s.unchanged() && s.fresh && s.last != nil {
		return s.last, nil
	}
	s.runs++
	s.events = map[string]EventHooks{}
	hs, in, err := discoverHooks(ctx, s.o)
	if err != nil {
		s.last, s.fresh = nil, false
		return nil, err
	}
	s.last, s.in = hs, in
	s.fresh = s.arm(hs, in)
	return hs, nil
}

// Close stops watching.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed, s.last = true, nil
	if s.w == nil {
		return nil
	}
	err := s.w.close()
	s.w = nil
	return err
}

// unchanged reports whether the last result still holds: no event, no
// retry due, every stat-checked path as it was.
func (s *Session) unchanged() bool {
	if s.w == nil {
		return false
	}
	if changed, err := s.w.changed(); err != nil || changed || s.in == nil {
		return false
	}
	if !s.in.retryAt.IsZero() && !s.now().Before(s.in.retryAt) {
		return false
	}
	for p, k := range s.stats {
		if statKeyOf(p) != k {
			return false
		}
	}
	return true
}

// arm watches what the discovery read and reports whether its result may
// be reused. Watches are added after the discovery read the folders, so
// a change in between would go unseen: a result is reused only once a
// discovery ran with every watch already in place and every stat-checked
// path as it was before (the next call after a change is therefore a
// second full discovery).
func (s *Session) arm(hs *HookSet, in *inputs) bool {
	if s.w == nil || in.partial {
		return false
	}
	dirs, stats, ok := watchSet(s.o.Layout, in.srcs, hs.Trust)
	if !ok {
		return false
	}
	inSet := make(map[string]bool, len(dirs))
	for _, d := range dirs {
		inSet[d.path] = true
	}
	reuse := true
	for _, d := range dirs {
		// A folder that does not exist (yet) is watched through the
		// nearest one that does, for the name that leads to it; one of
		// the set is watched already, with its own filter.
		for p, only, skip := d.path, d.only, d.skip; ; p, only, skip = filepath.Dir(p), []string{filepath.Base(p)}, nil {
			if p != d.path && inSet[p] {
				break
			}
			added, err := s.w.watch(p, only, skip)
			if (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) && filepath.Dir(p) != p {
				continue
			}
			if err != nil {
				return false // ENOSPC, EACCES, a remote file system: stat every time
			}
			if added {
				reuse = false
			}
			break
		}
	}
	next := make(map[string]statKey, len(stats))
	for _, p := range stats {
		next[p] = statKeyOf(p)
		if old, ok := s.stats[p]; !ok || old != next[p] {
			reuse = false
		}
	}
	s.stats = next
	return reuse
}

// watchDir is one folder to watch, with its event filter.
type watchDir struct {
	path       string
	only, skip []string
}

// maxWatches bounds the folders one session watches; a project whose
// fingerprint covers more (a vendored node_modules) is stat-validated at
// every call instead.
const maxWatches = 20000

// watchSet lists the folders whose changes can change a hook discovery's
// result, and the paths to stat at every call because a link may lead
// them elsewhere. ok is false when there are too many.
func watchSet(l plugins.Layout, srcs []source, t Trust) (dirs []watchDir, stats []string, ok bool) {
	seen := map[string]bool{}
	add := func(d watchDir) {
		if !seen[d.path] {
			seen[d.path] = true
			dirs = append(dirs, d)
		}
	}
	for _, sc := range l.Scopes() {
		// The folder holding the root sees the root come, go or be
		// relinked; in the root, cache/ and data/ are quiver's and the
		// hooks' own writes, and marketplaces/ feeds no hook.
		add(watchDir{path: filepath.Dir(sc.Root), only: []string{filepath.Base(sc.Root)}})
		add(watchDir{path: sc.Root, skip: []string{"cache", "data", "marketplaces"}})
		add(watchDir{path: filepath.Join(sc.Root, "hooks")})
		add(watchDir{path: sc.PluginsDir()})
		add(watchDir{path: filepath.Join(sc.Root, ".claude-plugin")})
	}
	link := func(p string) {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			stats = append(stats, p)
		}
	}
	for _, src := range srcs {
		add(watchDir{path: src.root})
		add(watchDir{path: filepath.Join(src.root, "hooks")})
		add(watchDir{path: filepath.Join(src.root, ".claude-plugin")})
		if !src.plugin.IsZero() {
			link(src.root)
		}
		link(filepath.Join(src.root, "hooks"))
		for _, it := range src.contents.Hooks {
			if it.Link {
				stats = append(stats, it.Path)
			}
		}
		for _, hf := range src.contents.HookFiles {
			add(watchDir{path: filepath.Dir(hf.Path)})
			link(hf.Path)
		}
	}
	for _, d := range t.walked {
		add(watchDir{path: d})
	}
	for _, ph := range slices.Concat(t.Hooks, t.Files) {
		add(watchDir{path: filepath.Dir(ph.Path)})
		// The file itself too: a write through another hard link to it
		// is reported to the file's own watch, never to its folder's.
		add(watchDir{path: ph.Path})
		// A linked file's content lives where its link leads, perhaps
		// in a folder the walk skipped (.git) or never reached: stat it
		// at every call, so what runs is what was fingerprinted.
		if ph.Linked {
			stats = append(stats, ph.Path)
		}
	}
	return dirs, stats, len(dirs) <= maxWatches
}

// statKey is what stat says of a path, followed through links: any
// change of the file, or of where the links lead, changes it.
type statKey struct {
	dev, ino, size, mtime, ctime int64
	mode                         fs.FileMode
	err                          string
}

func statKeyOf(p string) statKey {
	fi, err := os.Stat(p)
	if err != nil {
		return statKey{err: err.Error()}
	}
	dev, ino := fileID(fi)
	return statKey{dev: int64(dev), ino: int64(ino), size: fi.Size(), mtime: fi.ModTime().UnixNano(), ctime: changeTime(fi), mode: fi.Mode()}
}

// clone copies the set so that a caller cannot change the session's.
func (hs *HookSet) clone() *HookSet {
	c := *hs
	c.Hooks = slices.Clone(hs.Hooks)
	c.Skipped = slices.Clone(hs.Skipped)
	c.Trust.Hooks = slices.Clone(hs.Trust.Hooks)
	c.Trust.Files = slices.Clone(hs.Trust.Files)
	c.Trust.Replaces = slices.Clone(hs.Trust.Replaces)
	c.Trust.Shadows = slices.Clone(hs.Trust.Shadows)
	return &c
}
