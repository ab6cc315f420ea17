package main

import (
	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// discoveryOptions wires discovery to the environment: hooks are asked
// their event with the caller's environment, QUIVER_TRUST_ALL=1 trusts all.
func (a *App) discoveryOptions(layout plugins.Layout) discovery.Options {
	env := append(hookEnv(), "QUIVER_PROJECT_DIR="+layout.ProjectDir)
	return discovery.Options{
		Layout:   layout,
		Env:      env,
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

// keepTrust runs a local plugin change; when the project's hooks were
// trusted (or there were none) before, the user's own change is trusted
// too and the fingerprint is recorded again (SPEC §9).
func (a *App) keepTrust(layout plugins.Layout, global bool, change func() error) error {
	if global || layout.Local == nil {
		return change()
	}
	before, err := discovery.ProjectTrust(layout, false)
	wasTrusted := err == nil && before.Trusted()
	err = change()
	if wasTrusted {
		if _, terr := discovery.RecordTrust(layout); terr != nil {
			a.warnf("quiver: could not record trust for the project's hooks: %v", terr)
		}
	}
	return err
}
