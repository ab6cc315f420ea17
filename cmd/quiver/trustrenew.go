package main

import (
	"context"
	"time"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/timeouts"
)

// discoveryOptions wires discovery to the environment: hooks are asked
// their event in the environment every hook gets (proc.Environ), with
// QUIVER_PROJECT_DIR; QUIVER_TRUST_ALL=1 trusts all.
func (a *App) discoveryOptions(layout plugins.Layout) discovery.Options {
	return discovery.Options{
		Layout:       layout,
		Env:          []string{"QUIVER_PROJECT_DIR=" + layout.ProjectDir},
		TrustAll:     a.Getenv("QUIVER_TRUST_ALL") == "1",
		QueryTimeout: a.queryTimeout(),
	}
}

// queryTimeout is how long a hook may take to answer `hook` (its event):
// QUIVER_QUERY_TIMEOUT, a Go duration from 1ms to 1h, else 5 s. A slow
// interpreter (a pyenv shim on a busy machine) may need more; tests of
// hooks that never answer need less.
func (a *App) queryTimeout() time.Duration {
	v := a.Getenv("QUIVER_QUERY_TIMEOUT")
	if v == "" {
		return discovery.DefaultQueryTimeout
	}
	d, err := timeouts.Parse(v)
	if err != nil {
		a.warnf("quiver: QUIVER_QUERY_TIMEOUT %v; using %s", err, discovery.DefaultQueryTimeout)
		return discovery.DefaultQueryTimeout
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
