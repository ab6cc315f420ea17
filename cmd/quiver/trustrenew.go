package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
// update, enable, disable; marketplace add, update, remove) and renews the
// project's trust for exactly what it changed, under discovery's rules
// (SPEC §9): only when the project matched its record before, only for
// content from a source the user chose, and never inside an agent's
// session. then runs after the change, outside agent sessions, to record
// the user's choices (a source typed, a plugin removed).
// ch may be filled in by change (a marketplace's name is known once it is
// fetched). Commands that install what the repository chose (plugin
// install) never come here.
func (a *App) keepTrust(layout plugins.Layout, global bool, ch *discovery.Change, change func() error, then func() error) error {
	if global || layout.Local == nil {
		return change()
	}
	k, err := discovery.KeepTrust(layout, discovery.UserChange{
		What: ch, Do: change, Record: then, Agent: discovery.AgentSession(a.Getenv),
		Repair: func() error { return a.installer(layout, false).Repair(context.Background()) },
	})
	switch {
	case k.Agent != "":
		if k.AgentUntrusted {
			a.warnf("quiver: the project's hooks are not trusted, and quiver records no trust inside an agent's session (%s is set): run quiver trust yourself, in a terminal", k.Agent)
		}
		return err
	case k.RecordErr != nil:
		a.warnf("quiver: could not record your choice of source: %v", k.RecordErr)
	}
	switch {
	case k.SnapshotErr != nil:
		a.warnf("quiver: could not read the project's trust before the change, so it was not renewed: %v", k.SnapshotErr)
	case errors.Is(k.RenewErr, discovery.ErrTrustChanged):
		a.warnf("quiver: the project's trust changed while this command ran, so it was not renewed; review with quiver hook list --all, then run quiver trust")
	case k.RenewErr != nil:
		a.warnf("quiver: could not record trust for the project's hooks: %v", k.RenewErr)
	case k.Trust.Trusted():
		// Nothing to say: what runs is trusted.
	case k.Stale:
		a.warnf("quiver: trust was not renewed: the project changed since you last trusted it (a pull?); quiver trust names what changed")
	case len(k.Foreign) > 0:
		shown := k.Foreign
		if len(shown) > 5 {
			shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(k.Foreign)-5))
		}
		a.warnf("quiver: trust was not renewed: %s changed without being your choice (changed meanwhile, or fetched from a source the repository's lock or marketplace chose); review with quiver hook list --all, then run quiver trust", visible(strings.Join(shown, ", ")))
	}
	return err
}
