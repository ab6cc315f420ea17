package discovery

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// fileCache remembers something learned from a file (a hook's answer to
// `hook`, a skill's parsed frontmatter), keyed by the file's absolute path
// and valid while its size, mtime and mode are unchanged. One JSON file per
// scope and kind under the disposable cache/ folder; a missing or corrupt
// one is simply empty, and failing to write one is not an error.
type fileCache[V any] struct {
	Version int                      `json:"version"`
	Files   map[string]cacheEntry[V] `json:"files"`

	path  string
	seen  map[string]bool
	dirty bool
}

type cacheEntry[V any] struct {
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime_ns"`
	Mode  uint32 `json:"mode"`
	Value V      `json:"value"`
}

const cacheVersion = 2

func loadFileCache[V any](s plugins.Scope, name string) *fileCache[V] {
	c := &fileCache[V]{path: filepath.Join(s.CacheDir(), name), seen: map[string]bool{}}
	if data, err := os.ReadFile(c.path); err == nil {
		if json.Unmarshal(data, c) != nil || c.Version != cacheVersion {
			*c = fileCache[V]{path: c.path, seen: c.seen, dirty: true}
		}
	}
	if c.Files == nil {
		c.Files = map[string]cacheEntry[V]{}
	}
	c.Version = cacheVersion
	return c
}

// lookup returns the cached value when the file is unchanged.
func (c *fileCache[V]) lookup(path string, fi os.FileInfo) (V, bool) {
	c.seen[path] = true
	e, ok := c.Files[path]
	if !ok || e.Size != fi.Size() || e.Mtime != fi.ModTime().UnixNano() || e.Mode != uint32(fi.Mode()) {
		var zero V
		return zero, false
	}
	return e.Value, true
}

func (c *fileCache[V]) store(path string, fi os.FileInfo, v V) {
	c.Files[path] = cacheEntry[V]{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Mode: uint32(fi.Mode()), Value: v}
	c.seen[path] = true
	c.dirty = true
}

// save writes the cache when something changed, dropping files that were
// not looked up (gone, or no longer in effect).
func (c *fileCache[V]) save() {
	for p := range c.Files {
		if !c.seen[p] {
			delete(c.Files, p)
			c.dirty = true
		}
	}
	if !c.dirty {
		return
	}
	data, err := json.Marshal(c)
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(c.path), 0o755) == nil {
		plugins.WriteFileAtomic(c.path, data, 0o644)
	}
}

// caches holds one cache per scope location for one kind of value.
type caches[V any] struct {
	name string
	by   map[plugins.Location]*fileCache[V]
}

func newCaches[V any](name string) *caches[V] {
	return &caches[V]{name: name, by: map[plugins.Location]*fileCache[V]{}}
}

func (cs *caches[V]) of(l plugins.Layout, loc plugins.Location) *fileCache[V] {
	c := cs.by[loc]
	if c == nil {
		c = loadFileCache[V](scopeOf(l, loc), cs.name)
		cs.by[loc] = c
	}
	return c
}

func (cs *caches[V]) save() {
	for _, c := range cs.by {
		c.save()
	}
}
