package main

import (
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/marketplace"
)

// Shell completion: cobra generates the scripts (quiver completion bash|
// zsh|fish); these functions complete installed plugin names, hook names,
// event names, marketplace names and PLUGIN@MARKETPLACE. They read files
// only: no hook runs, no process starts, nothing is fetched.

func (a *App) completePluginNames(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	layout, err := a.layout()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return plugins.CompletePlugins(layout, toComplete), cobra.ShellCompDirectiveNoFileComp
}

func completeEvents(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, e := range format.Events {
		if strings.HasPrefix(e, toComplete) {
			out = append(out, e)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeHookNames lists hook names from the disk (no process started)
// and still lets the shell complete file paths.
func (a *App) completeHookNames(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	layout, err := a.layout()
	if err != nil {
		return nil, cobra.ShellCompDirectiveDefault
	}
	return discovery.CompleteHooks(layout, toComplete), cobra.ShellCompDirectiveDefault
}

// completeMarketplaceNames lists the marketplaces added in either scope,
// from the lock files, leaving out those already given.
func (a *App) completeMarketplaceNames(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	layout, err := a.layout()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return plugins.CompleteMarketplaces(layout, toComplete, args), cobra.ShellCompDirectiveNoFileComp
}

// completeMarketplacePlugins offers plugin add every installable entry
// of the added marketplaces as PLUGIN@MARKETPLACE, with its description.
// Anything that looks like a path or a URL is left to the shell's file
// completion.
func (a *App) completeMarketplacePlugins(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if strings.ContainsAny(toComplete, "/:~") || strings.HasPrefix(toComplete, ".") {
		return nil, cobra.ShellCompDirectiveDefault
	}
	layout, err := a.layout()
	if err != nil {
		return nil, cobra.ShellCompDirectiveDefault
	}
	var out []string
	for _, c := range marketplace.Complete(layout, toComplete) {
		name := c.Name
		// Names are validated; a description is the marketplace's
		// text, made one plain line.
		if d := visible(truncate(c.Description, 60)); d != "" {
			name += "\t" + d
		}
		out = append(out, name)
	}
	return out, cobra.ShellCompDirectiveDefault
}

// wireCompletions attaches the completion functions to the commands.
func (a *App) wireCompletions(root *cobra.Command) {
	for _, path := range [][]string{
		{"plugin", "show"}, {"plugin", "remove"}, {"plugin", "update"},
		{"plugin", "enable"}, {"plugin", "disable"},
	} {
		if c := lookup(root, path...); c != nil {
			c.ValidArgsFunction = a.completePluginNames
		}
	}
	if c := lookup(root, "marketplace", "update"); c != nil {
		c.ValidArgsFunction = a.completeMarketplaceNames
	}
	if c := lookup(root, "marketplace", "remove"); c != nil {
		c.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return a.completeMarketplaceNames(cmd, args, toComplete)
		}
	}
	if c := lookup(root, "plugin", "add"); c != nil {
		c.ValidArgsFunction = a.completeMarketplacePlugins
	}
	if c := lookup(root, "search"); c != nil {
		c.RegisterFlagCompletionFunc("marketplace", a.completeMarketplaceNames)
		c.ValidArgsFunction = cobra.NoFileCompletions
	}
	if c := lookup(root, "hook", "run"); c != nil {
		c.ValidArgsFunction = completeEvents
	}
	if c := lookup(root, "hook", "test"); c != nil {
		c.ValidArgsFunction = a.completeHookNames
		c.RegisterFlagCompletionFunc("event", completeEvents)
	}
}
