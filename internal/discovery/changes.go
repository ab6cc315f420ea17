package discovery

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/marketplace"
)

// Changes makes the user's own changes to one scope (plugin add, remove,
// update, enable, disable and config; marketplace add, update and
// remove), each through KeepTrust: the project's trust is renewed for
// exactly what the change changed, and the user's choices are recorded.
// Commands that install what the repository chose (plugin install) never
// come here.
type Changes struct {
	Layout plugins.Layout
	// Installer changes the scope; Global says it is the user's own,
	// which has no trust to keep.
	Installer *plugins.Installer
	Global    bool
	// Agent is AgentSession's answer: inside an agent's session nothing
	// is recorded.
	Agent string
	// Repair finishes what an interrupted command left in the project's
	// scope (UserChange.Repair).
	Repair func() error
	// Notify hears what KeepTrust has to say (Kept.Notices), then what
	// the change did; nil says nothing.
	Notify func(string)
}

// keep runs u through KeepTrust and passes on its notices.
func (c *Changes) keep(u UserChange) error {
	u.Agent, u.Global, u.Repair = c.Agent, c.Global, c.Repair
	k, err := KeepTrust(c.Layout, u)
	for _, n := range k.Notices() {
		c.notify("%s", n)
	}
	return err
}

func (c *Changes) notify(format string, a ...any) {
	if c.Notify != nil {
		c.Notify(fmt.Sprintf(format, a...))
	}
}

// onPlugins is a change to the named plugins: do, then, once it worked,
// record.
func (c *Changes) onPlugins(names []plugins.Name, do func() error, record func() error) error {
	done := false
	return c.keep(UserChange{What: &Change{Plugins: names}, Do: func() error {
		err := do()
		done = err == nil
		return err
	}, Record: func() error {
		if !done || record == nil {
			return nil
		}
		return record()
	}})
}

// Add installs reqs in turn (plugins.Installer.AddAll), report hearing of
// each; the sources of those installed are the user's choice.
func (c *Changes) Add(ctx context.Context, reqs []plugins.AddRequest, report func(plugins.Plugin, error)) error {
	var names, chosen []plugins.Name
	for _, r := range reqs {
		names = append(names, r.Name)
	}
	return c.keep(UserChange{What: &Change{Plugins: names}, Do: func() error {
		return c.Installer.AddAll(ctx, reqs, func(p plugins.Plugin, err error) {
			if err == nil {
				chosen = append(chosen, p.Name)
			}
			report(p, err)
		})
	}, Record: func() error { return ChoosePlugins(c.Layout, chosen) }})
}

// AddSaying installs reqs as Add does and says each outcome through say:
// each plugin installed (unless quietly: plugin add --json prints the
// list instead) and, when there are several requests, each one's error.
// It returns what was installed, as plugin add --json prints it.
func (c *Changes) AddSaying(ctx context.Context, reqs []plugins.AddRequest, quietly bool, say func(string, error)) ([]PluginInfo, error) {
	added := []PluginInfo{}
	err := c.Add(ctx, reqs, func(p plugins.Plugin, err error) {
		switch {
		case err != nil && len(reqs) > 1:
			say("", err)
		case err == nil:
			added = append(added, InfoOf(p))
			if !quietly {
				say(Added(p), nil)
			}
		}
	})
	return added, err
}

// Remove uninstalls names; once it worked, the user's choice of them is
// forgotten, and each is said removed.
func (c *Changes) Remove(ctx context.Context, names []plugins.Name, keepData bool) error {
	err := c.onPlugins(names, func() error { return c.Installer.Remove(ctx, names, keepData) },
		func() error { return Forget(c.Layout, names, nil) })
	return c.done(err, names, "Removed")
}

// SetDisabled disables (or enables) names; once it worked, that is
// recorded as the user's choice, and each is said disabled (enabled).
func (c *Changes) SetDisabled(ctx context.Context, names []plugins.Name, disabled bool) error {
	err := c.onPlugins(names, func() error { return c.Installer.SetDisabled(ctx, names, disabled) },
		func() error { return ChooseDisabled(c.Layout, names, disabled) })
	if disabled {
		return c.done(err, names, "Disabled")
	}
	return c.done(err, names, "Enabled")
}

// done says, when a change worked, what it did to each of names.
func (c *Changes) done(err error, names []plugins.Name, did string) error {
	if err == nil {
		for _, n := range names {
			c.notify("%s %s %s", did, n, c.Installer.Scope.Location.Where())
		}
	}
	return err
}

// Update moves names (every plugin of the scope when there are none,
// update --all). A dry run changes nothing, so it has no trust to keep.
func (c *Changes) Update(ctx context.Context, names []plugins.Name, o plugins.UpdateOptions) (res []plugins.UpdateResult, err error) {
	update := func() error {
		res, err = c.Installer.Update(ctx, names, o)
		return err
	}
	if o.DryRun {
		return res, update()
	}
	err = c.onPlugins(names, update, nil)
	return res, err
}

// SetConfig sets (or unsets) values of p's settings
// (plugins.SetUserConfig), and says which.
func (c *Changes) SetConfig(p plugins.Plugin, set map[string]string) error {
	err := c.keep(UserChange{What: &Change{Config: true}, Do: func() error { return plugins.SetUserConfig(p, set) }})
	if err == nil {
		c.notify("Set %s of %s %s", strings.Join(slices.Sorted(maps.Keys(set)), ", "), p.Name, p.Scope.Location.Where())
	}
	return err
}

// AddMarketplace fetches the marketplace of spec and adds it under its
// own name, or name when given (marketplace.Namer), replacing one of
// that name with force. It says what it added.
func (c *Changes) AddMarketplace(ctx context.Context, spec plugins.Spec, name string, force bool) (marketplace.Listing, error) {
	var added string
	var entry plugins.MarketplaceEntry
	err := c.keep(MarketplaceAdded(c.Layout, func() (_ string, err error) {
		added, entry, err = c.Installer.AddMarketplace(ctx, spec, marketplace.Namer(name), force)
		return added, err
	}))
	if err != nil {
		return marketplace.Listing{}, err
	}
	m, _ := marketplace.ReadDir(c.Installer.Scope.MarketplaceDir(added))
	return marketplace.ListingOf(added, c.Installer.Scope, entry, m), nil
}

// UpdateMarketplaces moves the named marketplaces (every one of the
// scope when none is named) to their newest commit, report hearing of
// each (marketplace.UpdateAll). It reports whether all were updated.
func (c *Changes) UpdateMarketplaces(ctx context.Context, names []string, report func(msg string, err error)) (bool, error) {
	if len(names) == 0 {
		var err error
		if names, err = marketplace.Names(c.Installer.Scope); err != nil {
			return false, err
		}
	}
	updated := true
	err := c.keep(UserChange{What: &Change{Marketplaces: names}, Do: func() error {
		updated = marketplace.UpdateAll(ctx, c.Installer, names, report)
		return nil
	}})
	return updated, err
}

// RemoveMarketplace removes marketplace name; once it worked, the user's
// choice of it is forgotten, and that is said. A marketplace added in the
// other scope says so (marketplace.Elsewhere).
func (c *Changes) RemoveMarketplace(ctx context.Context, name string) error {
	err := c.keep(MarketplaceRemoved(c.Layout, name, func() error { return c.Installer.RemoveMarketplace(ctx, name) }))
	if err != nil {
		return marketplace.Elsewhere(err, c.Layout, c.Installer.Scope, name)
	}
	c.notify("Removed marketplace %s; the plugins installed from it stay installed", name)
	return nil
}
