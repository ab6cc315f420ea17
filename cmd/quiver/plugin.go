package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/plugins"
)

func (a *App) newPluginCmd() *cobra.Command {
	return group("plugin", "Install, list, show and remove plugins", "",
		a.newPluginAddCmd(), a.newPluginListCmd(), a.newPluginShowCmd(), a.newPluginRemoveCmd(),
		a.newPluginUpdateCmd(), a.newPluginOutdatedCmd(), a.newPluginInstallCmd(), a.newPluginVerifyCmd(),
		a.newPluginEnableCmd(false), a.newPluginEnableCmd(true), a.newPluginInitCmd(), a.newPluginValidateCmd(), a.newPluginConfigCmd())
}

// namedIn parses the plugin names a command was given, before anything
// else happens, then resolves the scopes it acts in.
func (a *App) namedIn(raw ...string) ([]plugins.Name, plugins.Layout, error) {
	names, err := plugins.ParseNames(raw)
	if err != nil {
		return nil, plugins.Layout{}, err
	}
	layout, err := a.layout()
	return names, layout, err
}

// installer builds the installer for the chosen scope, wired to stderr.
func (a *App) installer(layout plugins.Layout, global bool) *plugins.Installer {
	in := plugins.NewInstaller(layout, global)
	in.OnWait = func() {
		fmt.Fprintf(a.Stderr, "quiver: waiting for another quiver command to finish in %s (up to %s)...\n", in.Scope.Root, plugins.DefaultMutexWait)
	}
	in.OnRecover = func(msg string) { a.Warnf("quiver: %s", msg) }
	in.OnScan = a.printScan
	in.Fetcher, in.GitBase = a.fetcher(), a.Getenv("QUIVER_GIT_BASE")
	in.Policy = a.policy(layout).Scope(global)
	return in
}

// printScan prints, one line each, what the content scan found in a
// plugin that was installed (SPEC §17), every hidden character escaped.
func (a *App) printScan(r plugins.ScanReport) {
	for _, f := range r.Findings {
		a.Warnf("quiver: %s: hidden Unicode in %s: %s", f.Severity, r.Name, f)
	}
	if r.Err != nil {
		a.Warnf("quiver: %v", r.Err)
	}
}

// fetcher is plugins.NewFetcher, showing git's progress on a terminal.
func (a *App) fetcher() *plugins.Fetcher {
	f := plugins.NewFetcher(a.Getenv)
	f.OnConfigError = func(err error) { a.Warnf("quiver: %v; fetching without its url.insteadOf rewrites", err) }
	if a.StderrIsTTY && !a.Quiet {
		f.Progress = a.Stderr
	}
	return f
}
