package marketplace

import (
	"errors"
	"fmt"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// Listing is an added marketplace as marketplace add --json and
// marketplace list show it.
type Listing struct {
	Name     string `json:"name"`
	Location string `json:"location"`
	Path     string `json:"path"`
	Source   string `json:"source"`
	Ref      string `json:"ref"`
	Commit   string `json:"commit"`
	Plugins  int    `json:"plugins"`
	Missing  bool   `json:"missing,omitempty"`
	Error    string `json:"error,omitempty"`
}

// ListingOf is marketplace name of scope s, locked as e, whose checkout
// reads as m (nil: none could be read).
func ListingOf(name string, s plugins.Scope, e plugins.MarketplaceEntry, m *Marketplace) Listing {
	return Listing{Name: name, Location: string(s.Location), Path: s.MarketplaceDir(name),
		Source: e.Source, Ref: e.Ref, Commit: e.Commit, Plugins: Count(m)}
}

// Count is the number of m's entries, 0 for a marketplace that could not
// be read.
func Count(m *Marketplace) int {
	if m == nil {
		return 0
	}
	return len(m.Entries)
}

// List lists the marketplaces added in l's scopes, the project's first,
// each with its number of plugins, or why its checkout is missing or
// cannot be read. It is never nil, so JSON says [].
func List(l plugins.Layout) ([]Listing, error) {
	out := []Listing{}
	for _, s := range l.Scopes() {
		ms, err := plugins.ListMarketplaces(s)
		if err != nil {
			return nil, err
		}
		for _, mc := range ms {
			j := ListingOf(mc.Name, s, mc.Entry, nil)
			j.Missing = mc.Missing
			if !mc.Missing {
				m, err := ReadDir(mc.Dir)
				if err != nil {
					j.Error = err.Error()
				}
				j.Plugins = Count(m)
			}
			out = append(out, j)
		}
	}
	return out, nil
}

// Elsewhere explains err, from removing marketplace name from scope s,
// when the marketplace is not there but in l's other scope: it names the
// command that removes it there. Other errors come back as they are.
func Elsewhere(err error, l plugins.Layout, s plugins.Scope, name string) error {
	if !errors.Is(err, plugins.ErrNoMarketplace) {
		return err
	}
	other, ok := l.Other(s)
	if !ok {
		return err
	}
	ms, _ := plugins.ListMarketplaces(other)
	for _, m := range ms {
		if m.Name == name {
			return fmt.Errorf("marketplace %s is in the %s scope; use quiver marketplace remove%s %s", name, other.Location, other.Flag(), name)
		}
	}
	return err
}
