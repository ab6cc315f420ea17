package marketplace

import (
	"context"
	"errors"
	"fmt"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/term"
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

// ListingHeader heads the rows of Listing.Row.
var ListingHeader = []string{"NAME", "LOCATION", "SOURCE", "COMMIT", "PLUGINS"}

// Row is the marketplace's row in marketplace list's table: its plugins
// counted, or why there are none to count.
func (l Listing) Row() []string {
	count := fmt.Sprint(l.Plugins)
	if l.Missing {
		count = "missing (quiver plugin install restores it)"
	} else if l.Error != "" {
		count = "error: " + l.Error
	}
	return []string{l.Name, l.Location, l.Source, orDash(plugins.ShortCommit(l.Commit)), count}
}

// Added is marketplace add's line for what it added.
func (l Listing) Added() string {
	commit := plugins.ShortCommit(l.Commit)
	if commit == "" {
		commit = "copied"
	}
	return fmt.Sprintf("Added marketplace %s %s (%s): %s; find them with quiver search --marketplace %s",
		l.Name, plugins.Location(l.Location).Where(), commit, term.Count(l.Plugins, "plugin"), l.Name)
}

// UpdateAll moves each named marketplace of in's scope to its newest
// commit, every one of them when names is empty; one that fails stops
// none of the others. report hears of each in turn: what happened, or
// why it failed. It reports whether all were updated.
func UpdateAll(ctx context.Context, in *plugins.Installer, names []string, report func(msg string, err error)) bool {
	ok := true
	in.PrefetchMarketplaces(ctx, names)
	for _, n := range names {
		from, to, err := in.UpdateMarketplace(ctx, n, Namer(n))
		switch {
		case err != nil:
			report("", fmt.Errorf("update marketplace %s: %w", n, err))
			ok = false
		case from == to:
			report(fmt.Sprintf("Marketplace %s is up to date (%s)", n, orDash(plugins.ShortCommit(to))), nil)
		default:
			report(fmt.Sprintf("Updated marketplace %s: %s -> %s", n, orDash(plugins.ShortCommit(from)), orDash(plugins.ShortCommit(to))), nil)
		}
	}
	return ok
}

// Names are the names of the marketplaces added in scope s.
func Names(s plugins.Scope) ([]string, error) {
	ms, err := plugins.ListMarketplaces(s)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
	}
	return names, nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
