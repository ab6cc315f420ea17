package discovery

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// A project's trusted record has two fingerprints (SPEC §9):
//
//   - the hooks fingerprint covers what runs: path (relative to the
//     project), exec bit and content of each project hook and of every
//     file of a source with hooks, reading only regular files (with the
//     content limit: a file that escapes its root is hashed by its link
//     target, never followed, and a FIFO or device by its kind, never
//     opened), and the project's plugins that replace a global install.
//     Hooks run while it matches.
//   - the state fingerprint covers what decides what the next command
//     installs: every lock entry (source, ref, commit, hash, the folder
//     inside the source, the marketplace), every locked marketplace and
//     the content of its checkout. A pull that changes them does not stop
//     the hooks, but no later command renews trust in the user's name
//     until the user looked (quiver trust).

// trustPart is one line of a fingerprint, keyed by what it is about:
// "lock NAME", "marketplace NAME", "replaces NAME" or "file PATH"
// (relative to the project).
type trustPart struct {
	key, line string
	// content is the line without the disabled flag, and disabled that
	// flag, for "file" parts: renewal tells a plugin being disabled
	// (always the user's to do) from its content changing.
	content  string
	disabled bool
}

// hashParts is the fingerprint of its lines, in order; "" for none.
func hashParts(parts []trustPart) string {
	if len(parts) == 0 {
		return ""
	}
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p.line))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// field writes one line with every field's length first, so no value can
// imitate a field boundary: two different states never hash alike.
func field(key string, fields ...string) trustPart {
	var b strings.Builder
	for _, p := range fields {
		fmt.Fprintf(&b, "%d:%s", len(p), p)
	}
	b.WriteByte('\n')
	return trustPart{key: key, line: b.String()}
}

// hooksParts lists the hooks fingerprint's lines: the plugins that
// replace a global install, then every file.
func hooksParts(project string, t Trust, hc *hashCache) ([]trustPart, error) {
	var parts []trustPart
	for _, name := range t.Replaces {
		parts = append(parts, field("replaces "+name, "replaces", name))
	}
	for _, ph := range slices.Concat(t.Hooks, t.Files) {
		line, err := fingerprintLine(ph, hc)
		// A plugin being replaced or removed right now may take a file
		// away between the scan and here: it then simply is not part of
		// the fingerprint (which therefore differs: untrusted, the safe
		// side), rather than failing the agent's hook run.
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(project, ph.Path)
		rel = filepath.ToSlash(rel)
		p := field("file "+rel, "file", rel, line, strconv.FormatBool(ph.Disabled))
		p.content, p.disabled = field("", "file", rel, line).line, ph.Disabled
		parts = append(parts, p)
	}
	return parts, nil
}

// lockParts lists a lock's plugin entries as fingerprint lines, exactly
// as the fingerprint of earlier versions wrote them (legacyMatch).
func lockParts(lock *plugins.Lock) []trustPart {
	var parts []trustPart
	for _, name := range lock.Names() {
		e := lock.Plugins[name]
		fields := []string{"lock", name, e.Source, e.Ref, e.Commit, e.Hash, strconv.FormatBool(e.Link)}
		// The folder inside the source, and the marketplace it came
		// from, decide what an update fetches just as the source does.
		// They are added only when set, so the records of projects whose
		// lock has neither stay valid; the length prefixes keep the two
		// shapes apart.
		if e.Path != "" || e.Marketplace != "" {
			fields = append(fields, e.Path, e.Marketplace)
		}
		parts = append(parts, field("lock "+name, fields...))
	}
	return parts
}

// stateParts lists the state fingerprint's lines: the lock's plugins,
// then each locked marketplace with its entry and the content hash of its
// checkout ("missing" when it is not checked out).
func stateParts(s plugins.Scope, lock *plugins.Lock) ([]trustPart, error) {
	parts := lockParts(lock)
	names := make([]string, 0, len(lock.Marketplaces))
	for n := range lock.Marketplaces {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		e := lock.Marketplaces[n]
		sum := "missing"
		if plugins.ValidMarketplaceName(n) == nil {
			if d, err := plugins.HashDir(s.MarketplaceDir(n)); err == nil {
				sum = d.Sum
			} else if !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("marketplace %s: %w", n, err)
			}
		}
		parts = append(parts, field("marketplace "+n, "marketplace", n, e.Source, e.Ref, e.Commit, sum))
	}
	return parts, nil
}

// fingerprintLine is "<x|->\x00<sha256 of content>" for a regular file (a
// plugin's hooks before contract v2 hash exactly so), "l\x00<target>" for a
// link that escapes, "?\x00<kind>" for anything else.
func fingerprintLine(ph ProjectHook, hc *hashCache) (string, error) {
	if ph.Escape != "" {
		target, err := os.Readlink(ph.Path)
		if err != nil {
			target = ph.Escape
		}
		return "l\x00" + target, nil
	}
	now := time.Now() // before the stat: see hashCache.sum
	fi, err := os.Stat(ph.Path)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "?\x00" + safefs.Kind(fi.Mode()), nil
	}
	sum, err := hc.sum(ph.Path, fi, now)
	if err != nil {
		return "", err
	}
	mode := "-"
	if fi.Mode()&0o111 != 0 {
		mode = "x"
	}
	return mode + "\x00" + sum, nil
}
