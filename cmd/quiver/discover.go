package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// discoveryOptions wires discovery to the environment: hooks are asked
// their event in the environment every hook gets (proc.Environ), with
// QUIVER_PROJECT_DIR; QUIVER_TRUST_ALL=1 trusts all.
func (a *App) discoveryOptions(layout plugins.Layout) discovery.Options {
	return discovery.Options{
		Layout:   layout,
		Env:      []string{"QUIVER_PROJECT_DIR=" + layout.ProjectDir},
		TrustAll: a.Getenv("QUIVER_TRUST_ALL") == "1",
	}
}

// pluginOrEmpty is the plugin name for JSON: org/repo or "".
func pluginOrEmpty(n plugins.Name) string {
	if n.IsZero() {
		return ""
	}
	return n.String()
}

// keepTrust runs a local plugin change the user asked for by name (add,
// remove, update, enable, disable); when the project's hooks were trusted
// (or there were none) before, the user's own change is trusted too and
// the fingerprint is recorded again (SPEC §9), unless the trust record
// changed meanwhile (a revocation is never undone) or something besides
// the named plugins changed while the command ran (a pull that added a
// hook is not the user's choice). names nil means any plugin (update
// --all). Commands that install what the repository chose (plugin
// install) never come here.
func (a *App) keepTrust(layout plugins.Layout, global bool, names []plugins.Name, change func() error) error {
	if global || layout.Local == nil {
		return change()
	}
	// Finish what an interrupted command left first: a journal committed
	// with the repository could otherwise restore a plugin between this
	// snapshot and the renewal below, and have it trusted (issue 11).
	if err := a.installer(layout, false).Repair(context.Background()); err != nil {
		return err
	}
	before, err := discovery.SnapshotTrust(layout)
	wasTrusted := err == nil && before.Trusted()
	err = change()
	if wasTrusted {
		foreign, terr := discovery.RenewTrust(layout, before, names)
		switch {
		case len(foreign) > 0:
			shown := foreign
			if len(shown) > 5 {
				shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(foreign)-5))
			}
			a.warnf("quiver: trust was not renewed: besides this command's plugins, %s changed while it ran; review with quiver hook list --all, then run quiver trust", strings.Join(shown, ", "))
		case errors.Is(terr, discovery.ErrTrustChanged):
			a.warnf("quiver: the project's trust changed while this command ran, so it was not renewed; review with quiver hook list --all, then run quiver trust")
		case terr != nil:
			a.warnf("quiver: could not record trust for the project's hooks: %v", terr)
		}
	}
	return err
}
