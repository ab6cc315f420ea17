package main

import (
	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
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
func (a *App) namedIn(raw ...string) ([]plugins.Name, *discovery.Env, error) {
	names, err := plugins.ParseNames(raw)
	if err != nil {
		return nil, nil, err
	}
	e, err := a.env()
	return names, e, err
}
