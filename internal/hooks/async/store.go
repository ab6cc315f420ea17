package async

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// A session's folder, <state>/async/<session>, holds:
//
//	tmp/      records being written by an owner
//	results/  finished records, <run>-<order>.json, taken in name order
//	claimed/  records a run took and is reading (then removes)
//
// Only a hook run creates the folder; an owner writes into it only while
// it exists, so that a session ended (End) stays ended.
const (
	tmpDir     = "tmp"
	resultsDir = "results"
	claimedDir = "claimed"
)

// safeSession reports whether a session id is usable as a folder name as
// it is: `^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`, as a loop, since that regexp
// takes a millisecond to compile and every run would pay it.
func safeSession(s string) bool {
	if len(s) == 0 || len(s) > 100 || s[0] == '.' || s[0] == '_' || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// SessionDir is the folder of a session's background results under a
// scope's state folder: the session id itself when it is a plain name
// (Claude's are UUIDs), else a hash of it, so that no payload names a
// path outside. "" when there is no session (results are dropped).
func SessionDir(stateDir, sessionID string) string {
	if stateDir == "" || sessionID == "" {
		return ""
	}
	name := sessionID
	if !safeSession(name) || strings.Contains(name, "..") {
		sum := sha256.Sum256([]byte(sessionID))
		name = "h-" + hex.EncodeToString(sum[:16])
	}
	return filepath.Join(stateDir, "async", name)
}

// prepare creates a session's folder for an owner's results.
func prepare(session string) error {
	for _, d := range []string{tmpDir, resultsDir} {
		if err := os.MkdirAll(filepath.Join(session, d), 0o700); err != nil {
			return err
		}
	}
	return nil
}

// RunKey orders the results of one run after those of runs that started
// before it (and apart from a run started at the same time).
func RunKey(start time.Time) string {
	return fmt.Sprintf("%020d-%d", start.UnixNano(), os.Getpid())
}

// put writes a record where the session's next event takes it, at once:
// written aside, then renamed in. It never creates the session's folder.
func put(session, run string, rec Record) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Join(session, tmpDir), "rec-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(session, resultsDir, fmt.Sprintf("%s-%04d.json", run, rec.Order)))
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// maxRecordFile bounds what is read of a record: one holds two texts of
// MaxText, escaped, and a few names.
const maxRecordFile = 8*MaxText + 4<<10

// Take takes the session's finished records, in the order of the runs
// that started them, each in its event's precedence order. Each record is
// taken by one caller only, however many run at once: a record is
// claimed by renaming it, which one rename wins. A missing folder has
// none.
func Take(session string) ([]Record, error) {
	if session == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(filepath.Join(session, resultsDir))
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(entries) == 0) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	claimed := filepath.Join(session, claimedDir)
	if err := os.MkdirAll(claimed, 0o700); err != nil {
		return nil, err
	}
	var recs []Record
	var errs []error
	for _, e := range entries { // ReadDir sorts by name
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		mine := filepath.Join(claimed, fmt.Sprintf("%s.%d", e.Name(), os.Getpid()))
		if err := os.Rename(filepath.Join(session, resultsDir, e.Name()), mine); err != nil {
			if !errors.Is(err, fs.ErrNotExist) { // another run took it
				errs = append(errs, err)
			}
			continue
		}
		rec, err := readRecord(mine)
		os.Remove(mine)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", e.Name(), err))
			continue
		}
		recs = append(recs, rec)
	}
	return recs, errors.Join(errs...)
}

func readRecord(path string) (Record, error) {
	var rec Record
	f, err := os.Open(path)
	if err != nil {
		return rec, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRecordFile+1))
	if err != nil {
		return rec, err
	}
	if len(data) > maxRecordFile {
		return rec, errors.New("record too large")
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return rec, err
	}
	rec.Context, rec.Notice = safefs.Cut(rec.Context, MaxText), safefs.Cut(rec.Notice, MaxText)
	return rec, nil
}

// End ends a session: its folder is moved aside at once (each owner of
// its pending handlers sees that, kills them and writes nothing more),
// then removed with what it held.
func End(session string) error {
	if session == "" {
		return nil
	}
	gone := filepath.Join(filepath.Dir(session), fmt.Sprintf(".ended-%s-%d-%d", filepath.Base(session), os.Getpid(), time.Now().UnixNano()))
	if err := os.Rename(session, gone); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	err := os.RemoveAll(gone)
	sweep(filepath.Dir(session), time.Now())
	return err
}

// staleAfter is how long a session's folder may go untouched before the
// end of another session removes it: an agent that crashed or was killed
// never sends session_end, and its folder would stay forever. A session
// idle that long loses only results nobody came for; its next event makes
// the folder again.
const staleAfter = 7 * 24 * time.Hour

// sweep removes the session folders under dir that nothing touched for
// staleAfter, and what an End interrupted between its rename and its
// removal left. Errors are ignored: the next sweep tries again.
func sweep(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		limit := staleAfter
		if strings.HasPrefix(e.Name(), ".ended-") {
			limit = time.Hour // unless an End is still removing it
		}
		if path := filepath.Join(dir, e.Name()); now.Sub(lastTouched(path)) >= limit {
			os.RemoveAll(path)
		}
	}
}

// lastTouched is the newest modification time of a session's folder and
// its own folders (a record put, taken or being written changes one).
func lastTouched(session string) time.Time {
	var newest time.Time
	for _, d := range []string{"", tmpDir, resultsDir, claimedDir} {
		if fi, err := os.Lstat(filepath.Join(session, d)); err == nil && fi.ModTime().After(newest) {
			newest = fi.ModTime()
		}
	}
	return newest
}
