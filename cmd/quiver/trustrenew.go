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

// pluginOrEmpty is the plugin name for JSON: org/repo or "".
func pluginOrEmpty(n plugins.Name) string {
	if n.IsZero() {
		return ""
	}
	return n.String()
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
	// Finish what an interrupted command left first: a journal committed
	// with the repository could otherwise restore a plugin between this
	// snapshot and the renewal below, and have it trusted (issue 11).
	if err := a.installer(layout, false).Repair(context.Background()); err != nil {
		return err
	}
	agent := discovery.AgentSession(a.Getenv)
	before, serr := discovery.SnapshotTrust(layout)
	err := change()
	if agent != "" {
		if t, terr := discovery.ProjectTrust(layout, false); terr == nil && !t.Trusted() {
			a.warnf("quiver: the project's hooks are not trusted, and quiver records no trust inside an agent's session (%s is set): run quiver trust yourself, in a terminal", agent)
		}
		return err
	}
	if then != nil {
		if cerr := then(); cerr != nil {
			a.warnf("quiver: could not record your choice of source: %v", cerr)
		}
	}
	if serr != nil {
		a.warnf("quiver: could not read the project's trust before the change, so it was not renewed: %v", serr)
		return err
	}
	r, terr := discovery.RenewTrust(layout, before, *ch)
	switch {
	case errors.Is(terr, discovery.ErrTrustChanged):
		a.warnf("quiver: the project's trust changed while this command ran, so it was not renewed; review with quiver hook list --all, then run quiver trust")
	case terr != nil:
		a.warnf("quiver: could not record trust for the project's hooks: %v", terr)
	case r.Trust.Trusted():
		// Nothing to say: what runs is trusted.
	case r.Stale:
		a.warnf("quiver: trust was not renewed: the project changed since you last trusted it (a pull?); quiver trust names what changed")
	case len(r.Foreign) > 0:
		shown := r.Foreign
		if len(shown) > 5 {
			shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(r.Foreign)-5))
		}
		a.warnf("quiver: trust was not renewed: %s changed without being your choice (changed meanwhile, or fetched from a source the repository's lock or marketplace chose); review with quiver hook list --all, then run quiver trust", visible(strings.Join(shown, ", ")))
	}
	return err
}
