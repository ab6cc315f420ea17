package main

import (
	"context"
	"time"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// discoveryOptions wires discovery to the environment
// (discovery.OptionsFor), warning of a bad QUIVER_QUERY_TIMEOUT.
func (a *App) discoveryOptions(layout plugins.Layout) discovery.Options {
	o, err := discovery.OptionsFor(layout, a.Getenv)
	if err != nil {
		a.warnf("quiver: %v", err)
	}
	return o
}

// queryTimeout is discovery.QueryTimeout, warning of a bad value.
func (a *App) queryTimeout() time.Duration {
	d, err := discovery.QueryTimeout(a.Getenv)
	if err != nil {
		a.warnf("quiver: %v", err)
	}
	return d
}

// keepTrust runs a local change the user asked for (plugin add, remove,
// update, enable, disable; marketplace add, update, remove; plugin config)
// through discovery.KeepTrust, which renews the project's trust for
// exactly what it changed, and prints what discovery has to say about it.
// then records the user's choices after the change; ch may be filled in
// by change. Commands that install what the repository chose (plugin
// install) never come here.
func (a *App) keepTrust(layout plugins.Layout, global bool, ch *discovery.Change, change func() error, then func() error) error {
	return a.keepChange(layout, global, discovery.UserChange{What: ch, Do: change, Record: then})
}

// keepChange is keepTrust for a change discovery built
// (discovery.MarketplaceAdded, MarketplaceRemoved).
func (a *App) keepChange(layout plugins.Layout, global bool, u discovery.UserChange) error {
	u.Agent, u.Global = discovery.AgentSession(a.Getenv), global
	u.Repair = func() error { return a.installer(layout, false).Repair(context.Background()) }
	k, err := discovery.KeepTrust(layout, u)
	for _, n := range k.Notices() {
		a.warnf("%s", n)
	}
	return err
}
