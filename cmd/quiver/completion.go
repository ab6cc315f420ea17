package main

import (
	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/hooks/agents"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
)

// Shell completion: cobra generates the scripts (quiver completion bash|
// zsh|fish); each command names its completion function, which completes
// installed plugin names, hook names, event names, marketplace names and
// PLUGIN@MARKETPLACE from the domain's lists. They read files only: no
// hook runs, no process starts, nothing is fetched.

// noFiles: the shell offers no file names besides quiver's candidates.
const noFiles = cobra.ShellCompDirectiveNoFileComp

// fromScopes completes with what list finds in this invocation's scopes
// for the word being completed (plugins.CompletePlugins,
// discovery.CompleteHooks, marketplace.ShellCandidates), and directive d;
// nothing when the scopes cannot be resolved.
func (a *App) fromScopes(d cobra.ShellCompDirective, list func(l plugins.Layout, prefix string) []string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		layout, err := a.layout()
		if err != nil {
			return nil, d
		}
		return list(layout, prefix), d
	}
}

// completeMarketplaces completes the marketplaces added in either scope,
// from the lock files, leaving out those already given; with one, only
// the first argument.
func (a *App) completeMarketplaces(one bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		layout, err := a.layout()
		if err != nil || (one && len(args) > 0) {
			return nil, noFiles
		}
		return plugins.CompleteMarketplaces(layout, prefix, args), noFiles
	}
}

func completeEvents(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	return format.EventsStarting(prefix), noFiles
}

func completeAgents(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, noFiles
	}
	return agents.Names(), noFiles
}
