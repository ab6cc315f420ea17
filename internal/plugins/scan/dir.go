package scan

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// MaxFile bounds a scanned file: the limit of a file quiver hashes or
// copies, so a plugin whose files can be installed can be scanned whole.
// A larger file is an error, never skipped unread.
const MaxFile = safefs.MaxContent

// Report is what Dir found.
type Report struct {
	// Files is how many files were scanned as text; Binary how many were
	// skipped as binary.
	Files, Binary int
	// Findings are in file, then position order.
	Findings []Finding
}

// Critical is the report's critical findings.
func (r Report) Critical() []Finding { return r.of(Critical) }

// Warnings is the report's warning findings.
func (r Report) Warnings() []Finding { return r.of(Warning) }

func (r Report) of(s Severity) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Severity == s {
			out = append(out, f)
		}
	}
	return out
}

// Dir scans every regular file under dir (see the package comment), each
// of at most limit bytes (MaxFile when 0). Links are not followed and
// nothing but regular files is opened; the top-level .git is not content.
func Dir(dir string, limit int64) (Report, error) {
	if limit <= 0 {
		limit = MaxFile
	}
	var rep Report
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == ".git" {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() {
			return nil // folders are walked; links and devices are not content to read
		}
		// O_NOFOLLOW: a file swapped for a link after the walk saw it
		// is refused, not followed.
		data, err := safefs.ReadFileNoFollow(p, limit)
		if err != nil {
			return fmt.Errorf("scan %s: %w", rel, err)
		}
		if Binary(data) && !textName(rel) {
			rep.Binary++
			return nil
		}
		rep.Files++
		rep.Findings = append(rep.Findings, scanText(rel, data)...)
		return nil
	})
	if err != nil {
		return Report{}, err
	}
	return rep, nil
}

// textName reports the extensions of the files an agent reads as text
// (instructions, manifests, scripts): such a file is scanned whatever
// its bytes, so that a NUL byte at its start does not pass it off as
// binary and hide it from the scan.
func textName(rel string) bool {
	switch strings.ToLower(path.Ext(rel)) {
	case ".md", ".mdx", ".markdown", ".txt", ".rst", ".json", ".jsonc", ".yaml", ".yml", ".toml", ".sh", ".bash", ".py", ".js", ".mjs", ".cjs", ".ts":
		return true
	}
	return false
}
