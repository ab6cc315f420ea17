package main

import (
	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/agents"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
	"github.com/quiver-cli/quiver/internal/plugins/marketplace"
)

// Shell completion: cobra generates the scripts (quiver completion bash|
// zsh|fish); each command names its completion function, one of these,
// which complete installed plugin names, hook names, event names,
// marketplace names and PLUGIN@MARKETPLACE from the domain's lists. They
// read files only: no hook runs, no process starts, nothing is fetched.

// fromScopes completes with what list finds in this invocation's
// scopes, and directive d (nothing when the scopes cannot be resolved).
func (a *App) fromScopes(d cobra.ShellCompDirective, list func(l plugins.Layout, args []string, prefix string) []string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		layout, err := a.layout()
		if err != nil {
			return nil, d
		}
		return list(layout, args, prefix), d
	}
}

// completePlugins completes the names of installed plugins.
func (a *App) completePlugins() cobra.CompletionFunc {
	return a.fromScopes(cobra.ShellCompDirectiveNoFileComp, func(l plugins.Layout, _ []string, prefix string) []string {
		return plugins.CompletePlugins(l, prefix)
	})
}

// completeHooks lists hook names from the disk (no process started) and
// still lets the shell complete file paths.
func (a *App) completeHooks() cobra.CompletionFunc {
	return a.fromScopes(cobra.ShellCompDirectiveDefault, func(l plugins.Layout, _ []string, prefix string) []string {
		return discovery.CompleteHooks(l, prefix)
	})
}

// completeMarketplaces completes the marketplaces added in either scope,
// from the lock files, leaving out those already given; with one, only
// the first argument.
func (a *App) completeMarketplaces(one bool) cobra.CompletionFunc {
	names := a.fromScopes(cobra.ShellCompDirectiveNoFileComp, func(l plugins.Layout, args []string, prefix string) []string {
		return plugins.CompleteMarketplaces(l, prefix, args)
	})
	return func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if one && len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return names(cmd, args, prefix)
	}
}

// completeMarketplacePlugins offers plugin add every installable entry
// of the added marketplaces as PLUGIN@MARKETPLACE, with its description,
// and leaves paths and URLs to the shell.
func (a *App) completeMarketplacePlugins() cobra.CompletionFunc {
	return a.fromScopes(cobra.ShellCompDirectiveDefault, func(l plugins.Layout, _ []string, prefix string) []string {
		return marketplace.ShellCandidates(l, prefix)
	})
}

func completeEvents(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	return format.EventsStarting(prefix), cobra.ShellCompDirectiveNoFileComp
}

func completeAgents(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return agents.Names(), cobra.ShellCompDirectiveNoFileComp
}
