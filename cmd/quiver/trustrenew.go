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
		a.Warnf("quiver: %v", err)
	}
	return o
}

// queryTimeout is discovery.QueryTimeout, warning of a bad value.
func (a *App) queryTimeout() time.Duration {
	d, err := discovery.QueryTimeout(a.Getenv)
	if err != nil {
		a.Warnf("quiver: %v", err)
	}
	return d
}

// changes makes the user's own changes to the scope (plugin add, remove,
// update, enable, disable, config; marketplace add, update, remove),
// renewing the project's trust for exactly what each changed
// (discovery.Changes), and prints what discovery has to say about it.
func (a *App) changes(layout plugins.Layout, global bool) *discovery.Changes {
	c := a.settings(layout, global)
	c.Installer = a.installer(layout, global)
	return c
}

// settings is changes without an installer, for plugin config, which
// installs nothing.
func (a *App) settings(layout plugins.Layout, global bool) *discovery.Changes {
	return &discovery.Changes{
		Layout: layout, Global: global,
		Agent:  discovery.AgentSession(a.Getenv),
		Repair: func() error { return a.installer(layout, false).Repair(context.Background()) },
		Notify: func(n string) { a.Warnf("%s", n) },
	}
}
