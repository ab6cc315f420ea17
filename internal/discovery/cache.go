package discovery

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// fileCache remembers something learned from a file (a hook's answer to
// `hook`, a skill's parsed frontmatter, a hooks.json), keyed by the file's
// absolute path and valid while its size, mtime, mode and inode change
// time are unchanged (the change time, which nobody can set, keeps a
// cache committed beside files with chosen mtimes from ever matching).
// One file per
// scope and kind under the disposable cache/ folder; a missing or corrupt
// one is simply empty, and failing to write one is not an error.
//
// The format is one line per file, "size mtime ctime mode path value" with the
// path and the value quoted, because decoding thousands of entries with
// encoding/json cost more than the rest of a warm discovery.
type fileCache[V any] struct {
	codec codec[V]
	// The file's lines are checked when it is read but parsed again only
	// when looked up: a map of every parsed entry was the largest
	// allocation of a warm discovery (700 KB at 5,000 hooks). index says
	// which line holds a path, ends where each line ends in data, seen
	// which lines were looked up (the others are dropped at save).
	data  string
	index map[string]uint32
	ends  []uint32
	seen  []bool
	// stored is what store set, over the file's lines.
	stored map[string]cacheEntry[V]
	path   string
	scope  plugins.Scope
	dirty  bool
}

// maxCacheFile bounds a cache file: a thousand plugins' worth of entries
// fit easily. Cache folders are quiver's own (a project's lives under
// $QUIVER_HOME/projects), but what reads a file bounds it.
const maxCacheFile = safefs.MaxContent

type cacheEntry[V any] struct {
	size, mtime, ctime int64
	mode               uint32
	value              V
}

// codec turns a cached value into one string and back.
type codec[V any] struct {
	encode func(V) string
	decode func(string) (V, bool)
}

// cacheHeader starts every cache file; another header means another format
// (8: a hooks.json handler keeps its args, http fields and definition).
const cacheHeader = "quiver-cache 8"

func loadFileCache[V any](s plugins.Scope, name string, c codec[V]) *fileCache[V] {
	fc := &fileCache[V]{codec: c, path: filepath.Join(s.CacheDir(), name), scope: s}
	data, err := safefs.ReadFile(fc.path, maxCacheFile)
	if err != nil {
		return fc
	}
	// The entries keep substrings of the file: viewing the buffer, which
	// nothing else holds or ever writes, as a string spares copying the
	// whole file (hundreds of KB at N = 1,000) at every discovery.
	header, rest, _ := strings.Cut(unsafe.String(unsafe.SliceData(data), len(data)), "\n")
	if header != cacheHeader {
		fc.dirty = true
		return fc
	}
	// Sized once: growing a map of thousands of entries rehashes it
	// several times, a visible share of a warm discovery. An entry takes
	// a dozen bytes at least, so a file of blank lines reserves nothing
	// much.
	n := min(strings.Count(rest, "\n"), len(rest)/12)
	index, ends := make(map[string]uint32, n), make([]uint32, 0, n)
	off := 0
	for line := range strings.SplitSeq(rest, "\n") {
		off += len(line) + 1
		if line == "" {
			continue
		}
		_, p, ok := fc.parse(line)
		if !ok {
			fc.dirty = true // corrupt: start over
			return fc
		}
		ends = append(ends, uint32(off-1))
		index[p] = uint32(len(ends)) - 1
	}
	fc.data, fc.index, fc.ends, fc.seen = rest, index, ends, make([]bool, len(ends))
	return fc
}

// line is the file's line n.
func (fc *fileCache[V]) line(n uint32) string {
	start := uint32(0)
	if n > 0 {
		start = fc.ends[n-1] + 1
	}
	// Empty lines between entries are skipped, as at load.
	return strings.TrimLeft(fc.data[start:fc.ends[n]], "\n")
}

// get returns what the cache holds for path, stored or read.
func (fc *fileCache[V]) get(path string) (cacheEntry[V], bool) {
	if e, ok := fc.stored[path]; ok {
		return e, true
	}
	n, ok := fc.index[path]
	if !ok {
		return cacheEntry[V]{}, false
	}
	// The line must name the path: a wrong line can only be a miss.
	e, p, ok := fc.parse(fc.line(n))
	return e, ok && p == path
}

// len is how many files the cache holds.
func (fc *fileCache[V]) len() int {
	n := len(fc.index)
	for p := range fc.stored {
		if _, ok := fc.index[p]; !ok {
			n++
		}
	}
	return n
}

func (fc *fileCache[V]) parse(line string) (cacheEntry[V], string, bool) {
	var e cacheEntry[V]
	// Four fields cut off in place, then the quoted ones: no slice of
	// fields per line (this runs for every hook of a warm discovery).
	var f [4]string
	rest := line
	for i := range f {
		var ok bool
		if f[i], rest, ok = strings.Cut(rest, " "); !ok {
			return e, "", false
		}
	}
	var err1, err2, err3, err4 error
	e.size, err1 = strconv.ParseInt(f[0], 10, 64)
	e.mtime, err2 = strconv.ParseInt(f[1], 10, 64)
	e.ctime, err4 = strconv.ParseInt(f[2], 10, 64)
	mode, err3 := strconv.ParseUint(f[3], 10, 32)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return e, "", false
	}
	e.mode = uint32(mode)
	p, rest, ok := cutQuoted(rest)
	if !ok || len(rest) < 2 || rest[0] != ' ' {
		return e, "", false
	}
	v, rest, ok := cutQuoted(rest[1:])
	if !ok || rest != "" {
		return e, "", false
	}
	if e.value, ok = fc.codec.decode(v); !ok {
		return e, "", false
	}
	return e, p, true
}

// cutQuoted reads one field from the start of s: a Go-quoted string, or,
// when it does not start with a quote, everything up to the next space.
func cutQuoted(s string) (string, string, bool) {
	if !strings.HasPrefix(s, `"`) {
		v, _, _ := strings.Cut(s, " ")
		return v, s[len(v):], v != "" // the rest keeps its space
	}
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", "", false
	}
	v, err := strconv.Unquote(q)
	return v, s[len(q):], err == nil
}

// quoteField writes s bare when it can be read back by cutQuoted (the usual
// path or event), else Go-quoted.
func quoteField(s string) string {
	if s == "" || strings.HasPrefix(s, `"`) {
		return strconv.Quote(s)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f {
			return strconv.Quote(s)
		}
	}
	return s
}

// lookup returns the cached value when the file is unchanged.
func (fc *fileCache[V]) lookup(path string, fi os.FileInfo) (V, bool) {
	if n, ok := fc.index[path]; ok {
		fc.seen[n] = true
	}
	e, ok := fc.get(path)
	if !ok || e.size != fi.Size() || e.mtime != fi.ModTime().UnixNano() || e.mode != uint32(fi.Mode()) || e.ctime != changeTime(fi) {
		var zero V
		return zero, false
	}
	return e.value, true
}

func (fc *fileCache[V]) store(path string, fi os.FileInfo, v V) {
	if fc.stored == nil {
		fc.stored = map[string]cacheEntry[V]{}
	}
	fc.stored[path] = cacheEntry[V]{size: fi.Size(), mtime: fi.ModTime().UnixNano(), ctime: changeTime(fi), mode: uint32(fi.Mode()), value: v}
	fc.dirty = true
}

// save writes the cache when something changed, dropping files that were
// not looked up (gone, or no longer in effect).
func (fc *fileCache[V]) save() {
	if slices.Contains(fc.seen, false) || len(fc.index) < len(fc.ends) {
		fc.dirty = true // a line is dropped: not looked up, or a path given twice
	}
	if !fc.dirty || fc.scope.CheckLinks() != nil {
		return // nothing new, or a project whose cache/ leads elsewhere
	}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	w.WriteString(cacheHeader + "\n")
	for p, n := range fc.index {
		if _, ok := fc.stored[p]; !ok && fc.seen[n] {
			w.WriteString(fc.line(n) + "\n") // as it was read
		}
	}
	for p, e := range fc.stored {
		w.WriteString(strconv.FormatInt(e.size, 10) + " " + strconv.FormatInt(e.mtime, 10) + " " + strconv.FormatInt(e.ctime, 10) + " " +
			strconv.FormatUint(uint64(e.mode), 10) + " " + quoteField(p) + " " + quoteField(fc.codec.encode(e.value)) + "\n")
	}
	w.Flush()
	if os.MkdirAll(filepath.Dir(fc.path), 0o755) == nil {
		plugins.WriteFileAtomic(fc.path, buf.Bytes(), 0o644)
	}
}

// caches holds one cache per scope location for one kind of value.
type caches[V any] struct {
	name  string
	codec codec[V]
	by    map[plugins.Location]*fileCache[V]
}

func newCaches[V any](name string, c codec[V]) *caches[V] {
	return &caches[V]{name: name, codec: c, by: map[plugins.Location]*fileCache[V]{}}
}

func (cs *caches[V]) of(l plugins.Layout, loc plugins.Location) *fileCache[V] {
	c := cs.by[loc]
	if c == nil {
		c = loadFileCache(scopeOf(l, loc), cs.name, cs.codec)
		cs.by[loc] = c
	}
	return c
}

func (cs *caches[V]) save() {
	for _, c := range cs.by {
		c.save()
	}
}

// hookTypeCodec stores a declaration as the hook gave it
// ("before_tool_call" or "before_tool_call persistent") and a failure as
// "!<asked, Unix seconds> <reason>".
var hookTypeCodec = codec[hookType]{
	encode: func(h hookType) string {
		if h.Error != "" {
			return "!" + strconv.FormatInt(h.Asked, 10) + " " + h.Error
		}
		return h.Declared.String()
	},
	decode: func(s string) (hookType, bool) {
		if failure, ok := strings.CutPrefix(s, "!"); ok {
			asked, reason, _ := strings.Cut(failure, " ")
			t, err := strconv.ParseInt(asked, 10, 64)
			return hookType{Error: reason, Asked: t}, err == nil && reason != ""
		}
		// Only the form encode writes, "<event>" or "<event>
		// persistent", is read back (what parseDeclared takes, written
		// as Declared.String writes it), without splitting into words.
		ev, word, spaced := strings.Cut(s, " ")
		if spaced && word != wordPersistent {
			return hookType{}, false
		}
		return hookType{Declared: Declared{Event: ev, Persistent: spaced}}, format.ValidEvent(ev)
	},
}

// jsonCodec stores any value as JSON, for the less frequent kinds.
func jsonCodec[V any]() codec[V] {
	return codec[V]{
		encode: func(v V) string {
			b, _ := json.Marshal(v)
			return string(b)
		},
		decode: func(s string) (V, bool) {
			var v V
			return v, json.Unmarshal([]byte(s), &v) == nil
		},
	}
}

// changeTime is the inode change time in nanoseconds, which no program
// can set: a cache file shipped with a repository (or a tarball whose
// files carry chosen mtimes) cannot predict it. Zero where the system
// does not say (caches then key on size, mtime and mode only).
func changeTime(fi os.FileInfo) int64 { return safefs.IdentOf(fi).Ctime }

// fileID is the file's device and inode number (zero where unknown: the
// directory index then keeps nothing).
func fileID(fi os.FileInfo) (dev, ino uint64) {
	id := safefs.IdentOf(fi)
	return id.Dev, id.Ino
}
