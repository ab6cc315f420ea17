package marketplace

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"sync"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// Store answers which marketplace a command reads by name, under the
// rule that scopes lend nothing to each other (SPEC §9): a global command
// reads only the user's own marketplaces, so that a project can never
// decide what lands in ~/.quiver, whose hooks run without asking; a
// project command reads the project's and the user's, and a name present
// in both with different sources is an error naming both, never a silent
// choice.
type Store struct {
	Layout plugins.Layout
	// Global: the command acts on the user's scope.
	Global bool
	// GitBase is QUIVER_GIT_BASE, under which a source read from a file
	// may be plain http.
	GitBase string
	// Chosen reports a project marketplace the user added on this machine
	// from source (the user's recorded choices). A project marketplace
	// whose source no file may choose (a local folder, plain http) is
	// read only when it is: a repository could commit a checkout stamped
	// with such a source, whose path entries would then copy a folder of
	// this machine into the project.
	Chosen func(name, source string) bool
	// read memoizes Find, so a command parses each marketplace once;
	// mu guards it (plugin update plans its plugins concurrently).
	mu   sync.Mutex
	read map[string]found
}

type found struct {
	co  Checkout
	err error
}

// Checkout is a marketplace as a command reads it: where it is checked
// out, its lock entry, and its parsed index.
type Checkout struct {
	plugins.MarketplaceCheckout
	Market *Marketplace
}

// ErrNotFound is Find's error for a name no scope the command reads has.
var ErrNotFound = errors.New("no marketplace")

// Scopes are the scopes the store reads, in the order it reads them.
func (s *Store) Scopes() []plugins.Scope {
	if s.Global {
		return []plugins.Scope{s.Layout.Global}
	}
	return s.Layout.Scopes()
}

// Find looks a marketplace up by name.
func (s *Store) Find(name string) (Checkout, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.read[name]; ok {
		return f.co, f.err
	}
	co, err := s.find(name)
	if s.read == nil {
		s.read = map[string]found{}
	}
	s.read[name] = found{co, err}
	return co, err
}

func (s *Store) find(name string) (Checkout, error) {
	var hits []plugins.MarketplaceCheckout
	for _, sc := range s.Scopes() {
		ms, err := plugins.ListMarketplaces(sc)
		if err != nil {
			return Checkout{}, err
		}
		for _, mc := range ms {
			if mc.Name == name {
				hits = append(hits, mc)
			}
		}
	}
	switch {
	case len(hits) == 0 && s.Global && s.Layout.Local != nil:
		if ms, _ := plugins.ListMarketplaces(*s.Layout.Local); hasName(ms, name) {
			return Checkout{}, fmt.Errorf("%w %s in your home: the project's marketplace of that name is not used for -g (add it with quiver marketplace add -g)", ErrNotFound, name)
		}
		return Checkout{}, fmt.Errorf("%w %s in your home; add it with quiver marketplace add -g, see quiver marketplace list", ErrNotFound, name)
	case len(hits) == 0:
		return Checkout{}, fmt.Errorf("%w %s; add it with quiver marketplace add, see quiver marketplace list", ErrNotFound, name)
	case len(hits) == 2 && !plugins.SameSource(hits[0].Entry.Source, hits[1].Entry.Source):
		return Checkout{}, fmt.Errorf("marketplace %s is in the project (%s) and in your home (%s) with different sources; remove one (quiver marketplace remove [-g] %s) so it is clear which one you mean",
			name, plugins.Redact(hits[0].Entry.Source), plugins.Redact(hits[1].Entry.Source), name)
	}
	mc := hits[0] // the project's, where both agree
	if mc.Location == plugins.Local {
		if err := plugins.CheckFileSource(mc.Entry.Source, s.GitBase); err != nil && (s.Chosen == nil || !s.Chosen(name, mc.Entry.Source)) {
			return Checkout{MarketplaceCheckout: mc}, fmt.Errorf("marketplace %s came with the repository and its source %w; if you mean it, run quiver marketplace add --force %s yourself", name, err, plugins.Redact(mc.Entry.Source))
		}
	}
	if mc.Missing {
		flag := ""
		if mc.Location == plugins.Global {
			flag = " -g"
		}
		return Checkout{MarketplaceCheckout: mc}, fmt.Errorf("marketplace %s is not checked out; run quiver plugin install%s", name, flag)
	}
	if mc.Stale {
		return Checkout{MarketplaceCheckout: mc}, fmt.Errorf("marketplace %s is checked out at another commit than the lock says (the lock changed, a git pull?); run quiver plugin install to check it out", name)
	}
	m, err := ReadDir(mc.Dir)
	if err != nil {
		return Checkout{MarketplaceCheckout: mc}, fmt.Errorf("marketplace %s: %w", name, err)
	}
	return Checkout{MarketplaceCheckout: mc, Market: m}, nil
}

// EntrySpec resolves entry e of this marketplace to what quiver fetches
// (Entry.Spec); an error names the marketplace and its file.
func (co Checkout) EntrySpec(e Entry, base string) (plugins.Spec, error) {
	spec, err := e.Spec(co.Entry.Source, co.Entry.Commit, base)
	if err != nil {
		return spec, fmt.Errorf("marketplace %s (%s): %w", co.Name, filepath.Join(co.Dir, filepath.FromSlash(File)), err)
	}
	return spec, nil
}

func hasName(ms []plugins.MarketplaceCheckout, name string) bool {
	for _, m := range ms {
		if m.Name == name {
			return true
		}
	}
	return false
}

// Hit is one entry a search found.
type Hit struct {
	Entry
	Marketplace string
	Location    plugins.Location
	// Score ranks the hit (search.go); Installable is false for an entry
	// quiver cannot install, and Reason says why.
	Score       int
	Installable bool
	Reason      string
}

// Search finds the entries of every marketplace of the scopes the store
// reads (only one when only is set) that match every word, best first (see
// Score); a project's marketplace hides the user's of the same name. A
// marketplace whose index cannot be read is reported through warn and
// skipped.
func (s *Store) Search(words []string, only string, warn func(string)) ([]Hit, error) {
	words = Words(words)
	var hits []Hit
	seen := map[string]bool{}
	for _, sc := range s.Scopes() {
		ms, err := plugins.ListMarketplaces(sc)
		if err != nil {
			return nil, err
		}
		for _, mc := range ms {
			if (only != "" && mc.Name != only) || mc.Missing || seen[mc.Name] {
				continue
			}
			seen[mc.Name] = true
			m, err := ReadDir(mc.Dir)
			if err != nil {
				warn(fmt.Sprintf("quiver: marketplace %s: %v", mc.Name, err))
				continue
			}
			for _, e := range m.Entries {
				score, ok := Score(e, words)
				if !ok {
					continue
				}
				hits = append(hits, Hit{Entry: e, Marketplace: mc.Name, Location: sc.Location, Score: score,
					Installable: e.Problem == "", Reason: e.Problem})
			}
		}
	}
	if only != "" && !seen[only] {
		return nil, fmt.Errorf("%w %s; see quiver marketplace list", ErrNotFound, only)
	}
	// The best match first; among equals (all of them, with no words),
	// by name, as a list is read, then by marketplace.
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Entry.Name != b.Entry.Name {
			return a.Entry.Name < b.Entry.Name
		}
		return a.Marketplace < b.Marketplace
	})
	return hits, nil
}
