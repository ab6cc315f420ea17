package discovery

import (
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// dirIndex is the directory index of docs/performance.md: each folder a
// scan lists (plugins/, a plugin's folder, its hooks/, skills/, recipe
// folders) is remembered with the folder's identity (device, inode),
// mtime and ctime, so a warm scan of an unchanged folder costs one stat
// instead of open, getdents and close. Adding, removing or renaming an
// entry changes the folder's mtime and ctime; swapping the folder
// changes its inode; the ctime, which nobody can set, keeps a listing
// committed into a repository from ever matching. It implements
// plugins.Dirs: it only lists, so the scan's results (links, skipped
// files, .disable, confinement) are exactly those of a direct read.
type dirIndex struct {
	// mu guards fc, which the views of one index (Fork) share: plugins
	// are read in parallel.
	mu  *sync.Mutex
	fc  *fileCache[dirListing]
	now func() time.Time
	// last is what the latest Lstat found, when it was a folder: the scan
	// lists the plugin folder it has just checked, so that needs no
	// second stat.
	last     string
	lastInfo fs.FileInfo
	lastNow  time.Time
}

// racyWindow: a listing read less than this after the folder last changed
// is not kept. Timestamps are coarse (a kernel tick; a second on HFS+), so
// an entry added within the same tick as the listing leaves mtime and
// ctime as they were: only a listing taken once the tick is surely over
// can be trusted to notice the next change (git's "racy clean" rule).
var racyWindow = 2 * time.Second

// readDirectory reads a folder the index does not know (a variable for
// the tests that count reads).
var readDirectory = os.ReadDir

type dirListing struct {
	dev, ino uint64
	entries  []dirEntry
}

// dirEntry is a cached fs.DirEntry: a name and its type bits.
type dirEntry struct {
	name string
	typ  fs.FileMode
}

func (e dirEntry) Name() string               { return e.name }
func (e dirEntry) IsDir() bool                { return e.typ.IsDir() }
func (e dirEntry) Type() fs.FileMode          { return e.typ }
func (e dirEntry) Info() (fs.FileInfo, error) { return nil, fs.ErrInvalid }

// dirIndexFile is the index's cache file for the kinds a scan reads: hook
// runs and listings of skills read different folders, and each would
// otherwise drop the other's entries at every save.
func dirIndexFile(k plugins.Kinds) string {
	return "dirs-" + strconv.Itoa(int(k&plugins.AllKinds))
}

func loadDirIndex(s plugins.Scope, k plugins.Kinds, now func() time.Time) *dirIndex {
	if now == nil {
		now = time.Now
	}
	return &dirIndex{mu: new(sync.Mutex), fc: loadFileCache(s, dirIndexFile(k), dirListingCodec), now: now}
}

// Fork is a view of the index for one more goroutine (plugins.SharedDirs):
// the listings are shared, the latest Lstat is the view's own.
func (ix *dirIndex) Fork() plugins.Dirs { return &dirIndex{mu: ix.mu, fc: ix.fc, now: ix.now} }

// Lstat is os.Lstat (see dirIndex.last).
func (ix *dirIndex) Lstat(p string) (fs.FileInfo, error) {
	now := ix.now()
	fi, err := os.Lstat(p)
	ix.last, ix.lastInfo, ix.lastNow = "", nil, time.Time{}
	if err == nil && fi.IsDir() {
		ix.last, ix.lastInfo, ix.lastNow = p, fi, now
	}
	return fi, err
}

// ReadDir lists dir, from the index while the folder is unchanged. A path
// that is not a folder fails with ENOTDIR and is never opened (a FIFO
// would block).
func (ix *dirIndex) ReadDir(dir string) ([]fs.DirEntry, error) {
	var fi fs.FileInfo
	var now time.Time
	if dir == ix.last {
		fi, now = ix.lastInfo, ix.lastNow
	} else {
		now = ix.now()
		var err error
		if fi, err = os.Stat(dir); err != nil {
			return nil, err
		}
	}
	ix.last, ix.lastInfo = "", nil
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "readdirent", Path: dir, Err: syscall.ENOTDIR}
	}
	dev, ino := fileID(fi)
	ix.mu.Lock()
	l, ok := ix.fc.lookup(dir, fi)
	ix.mu.Unlock()
	if ok && l.dev == dev && l.ino == ino {
		// Pointers into the listing, which is never changed once
		// stored: a dirEntry value in an interface is one allocation
		// per entry and per read.
		out := make([]fs.DirEntry, len(l.entries))
		for i := range l.entries {
			out[i] = &l.entries[i]
		}
		return out, nil
	}
	// The folder was stat'ed before it is read: a change in between makes
	// the stored key older than the folder, so it is read again next time.
	entries, err := readDirectory(dir)
	if err != nil {
		return nil, err
	}
	changed := time.Unix(0, max(fi.ModTime().UnixNano(), changeTime(fi)))
	if now.Sub(changed) >= racyWindow && dev|ino != 0 {
		l := dirListing{dev: dev, ino: ino, entries: make([]dirEntry, len(entries))}
		for i, e := range entries {
			l.entries[i] = dirEntry{e.Name(), e.Type()}
		}
		ix.mu.Lock()
		ix.fc.store(dir, fi, l)
		ix.mu.Unlock()
	}
	return entries, nil
}

func (ix *dirIndex) save() { ix.fc.save() }

var _ plugins.SharedDirs = (*dirIndex)(nil)

// entryTypes spells an entry's type bits as one letter in the cache file.
var entryTypes = []struct {
	c byte
	t fs.FileMode
}{{'f', 0}, {'d', fs.ModeDir}, {'l', fs.ModeSymlink}, {'p', fs.ModeNamedPipe}, {'s', fs.ModeSocket},
	{'c', fs.ModeDevice | fs.ModeCharDevice}, {'b', fs.ModeDevice}, {'?', fs.ModeIrregular}}

// dirListingCodec stores "dev/ino/" and then "<type letter><name>/" per
// entry: a name cannot hold '/'.
var dirListingCodec = codec[dirListing]{
	encode: func(l dirListing) string {
		var b strings.Builder
		b.WriteString(strconv.FormatUint(l.dev, 10) + "/" + strconv.FormatUint(l.ino, 10) + "/")
		for _, e := range l.entries {
			c := byte('?')
			for _, et := range entryTypes {
				if et.t == e.typ {
					c = et.c
					break
				}
			}
			b.WriteByte(c)
			b.WriteString(e.name)
			b.WriteByte('/')
		}
		return b.String()
	},
	decode: func(s string) (dirListing, bool) {
		// Cut in place, not split into a slice of fields: this runs for
		// every folder of a warm discovery.
		var l dirListing
		devField, rest, ok1 := strings.Cut(s, "/")
		inoField, rest, ok2 := strings.Cut(rest, "/")
		if !ok1 || !ok2 {
			return l, false
		}
		var err1, err2 error
		l.dev, err1 = strconv.ParseUint(devField, 10, 64)
		l.ino, err2 = strconv.ParseUint(inoField, 10, 64)
		if err1 != nil || err2 != nil {
			return l, false
		}
		if rest == "" {
			return l, true // an empty folder
		}
		rest, ok := strings.CutSuffix(rest, "/")
		if !ok {
			return l, false
		}
		l.entries = make([]dirEntry, 0, strings.Count(rest, "/")+1)
		for e := range strings.SplitSeq(rest, "/") {
			if l.entries, ok = appendEntry(l.entries, e); !ok {
				return l, false
			}
		}
		return l, true
	},
}

// appendEntry appends the listing entry e ("<type letter><name>") to
// entries, or reports that it is not one a folder listing can hold
// after them.
func appendEntry(entries []dirEntry, e string) ([]dirEntry, bool) {
	if len(e) < 2 || e[1:] == "." || e[1:] == ".." {
		return entries, false
	}
	if n := len(entries); n > 0 && entries[n-1].name >= e[1:] {
		return entries, false // not as os.ReadDir sorts them
	}
	for _, et := range entryTypes {
		if et.c == e[0] {
			return append(entries, dirEntry{e[1:], et.t}), true
		}
	}
	return entries, false
}
