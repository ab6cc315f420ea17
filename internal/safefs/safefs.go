// Package safefs reads files that other people wrote (a cloned repository's
// lock file, manifests, journals, SKILL.md, hooks; a project's .quiver
// folder) without letting them hang or exhaust quiver, and validates the
// paths such files name before they are joined to anything on disk.
//
// Every read of such a file goes through Open or ReadFile: only regular
// files are opened (a FIFO, a device or a symlink to one is an error naming
// the file, never a hang), and nothing is read past a size limit. Every
// path read from such a file goes through RelPath or Name, and text from
// them is shown through Visible.
package safefs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// Size limits (SPEC §9).
const (
	// MaxMeta bounds metadata: lock files, manifests, journals, trust
	// store, caches, SKILL.md and recipes.
	MaxMeta = 1 << 20
	// MaxContent bounds a file whose content is hashed or copied.
	MaxContent = 64 << 20
)

// ErrNotRegular is wrapped by the error for a file that is not a regular
// file (a FIFO, a socket, a device, a folder).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error for a file over its size limit.
var ErrTooLarge = errors.New("file too large")

// Open opens path for reading only if it is a regular file (symlinks are
// followed, so a link to /dev/zero is refused too). The file type is checked
// before the open, so no device is ever opened, and again on the open file,
// so a swap in between is caught; O_NONBLOCK makes even that swap unable to
// block the open of a FIFO.
func Open(path string) (*os.File, error) {
	f, _, err := openInfo(path)
	return f, err
}

// openInfo is Open, also returning what the open file's Stat said.
func openInfo(path string) (*os.File, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if err := regular(path, fi); err != nil {
		return nil, nil, err
	}
	return openRegularInfo(path, os.O_RDONLY, 0)
}

// openRegular opens path with flag (and O_NONBLOCK, so that a FIFO swapped
// in after the caller's check cannot block the open) and keeps the file
// only if what was opened is a regular file.
func openRegular(path string, flag int, perm fs.FileMode) (*os.File, error) {
	f, _, err := openRegularInfo(path, flag, perm)
	return f, err
}

// openRegularInfo is openRegular, also returning what the open file's
// Stat said (its size sizes a read).
func openRegularInfo(path string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK, perm)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = regular(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// regular returns the error for a file that is not a regular file.
func regular(path string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, Kind(fi.Mode()))}
}

// Kind names a file type for messages: "a named pipe", "a device".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m.IsRegular():
		return "a regular file"
	}
	return "an unusual file"
}

// ReadFile reads a regular file of at most limit bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, fi, err := openInfo(path) // Open's checks, and the size
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readSized(f, path, limit, fi.Size())
}

// ReadFileNoFollow is ReadFile for a file that must not be a link, even
// one swapped in after the caller checked: the last element is opened
// with O_NOFOLLOW (another program's configuration, which a repository
// could race to point at a credentials file).
func ReadFileNoFollow(path string, limit int64) ([]byte, error) {
	f, fi, err := openRegularInfo(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symbolic link; quiver does not read or write through links", path)
		}
		return nil, err
	}
	defer f.Close()
	return readSized(f, path, limit, fi.Size())
}

// ReadAll reads r to the end, failing (not truncating) when it holds more
// than limit bytes; name is only used in the error.
func ReadAll(r io.Reader, name string, limit int64) ([]byte, error) {
	return readSized(r, name, limit, -1)
}

// readSized is ReadAll of a file whose size a Stat gave: the buffer is
// allocated once at that size (plus one byte, to see the end or a file
// that grew) instead of grown by doubling from 512 bytes, which for the
// caches a warm discovery reads was two to three times their size in
// garbage, each new page a fault. The size is only a hint: a file that
// grew is still read to the end, and the limit still holds.
func readSized(r io.Reader, name string, limit, size int64) ([]byte, error) {
	var data []byte
	var err error
	if size >= 0 && size < limit {
		data = make([]byte, 0, size+1)
		lr := io.LimitReader(r, limit+1)
		for {
			if len(data) == cap(data) {
				data = append(data, 0)[:len(data)]
			}
			var n int
			n, err = lr.Read(data[len(data):cap(data)])
			data = data[:len(data)+n]
			if err != nil {
				if err == io.EOF {
					err = nil
				}
				break
			}
		}
	} else {
		data, err = io.ReadAll(io.LimitReader(r, limit+1))
	}
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: more than %s", ErrTooLarge, Size(limit))}
	}
	return data, nil
}

// Size writes a byte count the way limits are stated: "1 MiB", "64 MiB".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// HashFile returns the hex sha256 of a regular file of at most limit
// bytes.
func HashFile(path string, limit int64) (string, error) {
	f, err := Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, limit+1))
	if err != nil {
		return "", err
	}
	if n > limit {
		return "", &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: more than %s", ErrTooLarge, Size(limit))}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Deceptive reports runes that must never reach a name or a terminal as
// they are: control characters (terminal escapes, line breaks, NUL),
// invisible formatting characters (bidi overrides such as U+202E, which
// display "fmt\u202Ehs.kcehc" as "fmt" + "check.sh" reversed, and
// zero-width ones such as U+200B, which make two different names look the
// same), the line and paragraph separators, and invalid UTF-8.
func Deceptive(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) ||
		r == '\u2028' || r == '\u2029' || r == utf8.RuneError
}

// ErrBadPath is wrapped by every refusal of a path read from a file.
var ErrBadPath = errors.New("unsafe path")

// RelPath validates a relative, slash-separated path read from a file (a
// manifest's component path, a marketplace source, a lock entry's
// subfolder) before it is joined to a folder: not empty, not absolute, no
// "." or ".." segment, no empty segment, no backslash, no control
// character. A leading "./" is allowed and removed; the cleaned path is
// returned.
func RelPath(p string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("%w %q: %s", ErrBadPath, p, why)
	}
	if strings.HasPrefix(p, "/") {
		return bad("absolute")
	}
	clean := p
	for strings.HasPrefix(clean, "./") {
		clean = clean[2:]
	}
	clean = strings.TrimSuffix(clean, "/")
	switch {
	case clean == "" || clean == ".":
		return bad("empty")
	case strings.Contains(clean, `\`):
		return bad("contains a backslash")
	}
	if strings.IndexFunc(clean, Deceptive) >= 0 {
		return bad("contains a control or invisible formatting character")
	}
	for _, seg := range strings.Split(clean, "/") {
		switch seg {
		case "":
			return bad("has an empty segment")
		case ".", "..":
			return bad("has a " + seg + " segment")
		}
	}
	return clean, nil
}

// Name validates a single file name read from a file (a journal's staging
// folder): a RelPath with no separator.
func Name(s string) error {
	clean, err := RelPath(s)
	if err != nil {
		return err
	}
	if clean != s {
		return fmt.Errorf("%w %q: not a plain file name", ErrBadPath, s)
	}
	if strings.Contains(s, "/") {
		return fmt.Errorf("%w %q: a file name may not contain /", ErrBadPath, s)
	}
	return nil
}

// OpenAppend opens path for appending, creating it if needed, only when it
// is (or becomes) a regular file: a FIFO or a device in its place is an
// error, never a hang.
func OpenAppend(path string, perm fs.FileMode) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil {
		if err := regular(path, fi); err != nil {
			return nil, err
		}
	}
	return openRegular(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
}
