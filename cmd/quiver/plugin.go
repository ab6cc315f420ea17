package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
)

func (a *App) newPluginCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugin",
		Short: "Install, list, show and remove plugins",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.newPluginAddCmd(), a.newPluginListCmd(), a.newPluginShowCmd(), a.newPluginRemoveCmd(),
		a.newPluginUpdateCmd(), a.newPluginOutdatedCmd(), a.newPluginInstallCmd(), a.newPluginVerifyCmd(),
		a.newPluginEnableCmd(false), a.newPluginEnableCmd(true), a.newPluginInitCmd(), a.newPluginValidateCmd(), a.newPluginConfigCmd())
	return cmd
}

// pluginJSON is the shape of a plugin in --json output (SPEC §7).
type pluginJSON = discovery.PluginInfo

// installer builds the installer for the chosen scope, wired to stderr.
func (a *App) installer(layout plugins.Layout, global bool) *plugins.Installer {
	scope := layout.Scope(global)
	in := &plugins.Installer{
		Scope: scope,
		OnWait: func() {
			fmt.Fprintf(a.Stderr, "quiver: waiting for another quiver command to finish in %s (up to %s)...\n", scope.Root, plugins.DefaultMutexWait)
		},
		OnRecover: func(msg string) { a.warnf("quiver: %s", msg) },
		Fetcher:   a.fetcher(),
		GitBase:   a.Getenv("QUIVER_GIT_BASE"),
	}
	if other, ok := layout.Other(scope); ok {
		in.Other = &other
	}
	return in
}

func (a *App) fetcher() *plugins.Fetcher {
	token := a.Getenv("QUIVER_GIT_TOKEN")
	if token == "" {
		token = a.Getenv("GITHUB_TOKEN")
	}
	f := &plugins.Fetcher{Credentials: plugins.Credentials{Token: token, Base: a.Getenv("QUIVER_GIT_BASE")}}
	rw, err := plugins.LoadRewrites(plugins.GitConfigPaths(a.Getenv))
	if err != nil {
		a.warnf("quiver: %v; fetching without its url.insteadOf rewrites", err)
	}
	f.Rewrites = rw
	if a.StderrIsTTY && !a.quiet {
		f.Progress = a.Stderr
	}
	return f
}

// scopeWord says where a scope's plugins are: "globally", "in the project".
func scopeWord(l plugins.Location) string { return l.Where() }
