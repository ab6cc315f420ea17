package marketplace

import (
	"errors"
	"fmt"

	"github.com/quiver-cli/quiver/internal/lazy"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// Namer reads a fetched marketplace and names it: override (--name) when
// given, else its marketplace.json's name, which must then be a valid
// marketplace name (it is the repository's choice, not a mistake in the
// command line).
func Namer(override string) plugins.MarketplaceNamer {
	return func(dir string) (string, error) {
		m, err := ReadDir(dir)
		if err != nil {
			return "", fmt.Errorf("not a marketplace: %w", err)
		}
		name := override
		if name == "" {
			name = m.Name
		}
		if name == "" {
			return "", fmt.Errorf("%s has no name; give one with --name", File)
		}
		if override == "" && plugins.ValidMarketplaceName(name) != nil {
			return "", fmt.Errorf("%s names it %q, which cannot be a marketplace name (1-39 lowercase letters, digits or hyphens); give one with --name", File, name)
		}
		return name, nil
	}
}

// specForm matches PLUGIN@MARKETPLACE; compiled on first use, not at
// every start.
var specForm = lazy.Regexp{Expr: `^([A-Za-z0-9._-]+)@([a-z0-9][a-z0-9-]*)$`}

// Job is what plugin add installs for PLUGIN@MARKETPLACE.
type Job struct {
	Spec plugins.Spec
	Name plugins.Name
	// Marketplace is the marketplace's name; Renamed the name the user
	// typed when the entry was renamed (it installs under its new name).
	Marketplace, Renamed string
	// Manifest is a "strict": false entry's component fields.
	Manifest string
}

// Job resolves raw as PLUGIN@MARKETPLACE; ok is false when raw is not of
// that form.
func (s *Store) Job(raw string) (j Job, ok bool, err error) {
	m := specForm.Get().FindStringSubmatch(raw)
	if m == nil {
		return Job{}, false, nil
	}
	plugin, mkt := m[1], m[2]
	co, err := s.Find(mkt)
	if err != nil {
		return Job{}, true, err
	}
	e, name, err := co.Market.Find(plugin)
	if err != nil {
		return Job{}, true, err
	}
	spec, err := co.EntrySpec(e, s.GitBase)
	if err != nil {
		return Job{}, true, err
	}
	n, err := plugins.NewName(mkt, name)
	if err != nil {
		return Job{}, true, err
	}
	j = Job{Spec: spec, Name: n, Marketplace: mkt, Manifest: e.Manifest}
	if name != plugin {
		j.Renamed = plugin
	}
	return j, true, nil
}

// Resolve is plugin update's and outdated's view of a plugin installed
// from a marketplace (SPEC §12): the marketplace's current entry of that
// name, in the scopes the store reads. A marketplace no longer added, or a
// plugin installed under a name of its own (--name), follows its lock
// entry (ok false).
func (s *Store) Resolve(n plugins.Name, le plugins.LockEntry) (spec plugins.Spec, manifest string, ok bool, err error) {
	if n.Org() != le.Marketplace {
		return plugins.Spec{}, "", false, nil
	}
	co, err := s.Find(le.Marketplace)
	if errors.Is(err, ErrNotFound) {
		return plugins.Spec{}, "", false, nil
	}
	if err != nil {
		return plugins.Spec{}, "", false, err
	}
	e, _, err := co.Market.Find(n.Repo())
	if err != nil {
		return plugins.Spec{}, "", false, err
	}
	spec, err = co.EntrySpec(e, s.GitBase)
	return spec, e.Manifest, err == nil, err
}
