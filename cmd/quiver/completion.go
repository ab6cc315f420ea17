package main

import (
	"slices"
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
	return a.completeScopeNames(toComplete, nil, func(s plugins.Scope) ([]string, error) {
		ps, err := plugins.ListPlugins(s)
		names := make([]string, len(ps))
		for i, p := range ps {
			names[i] = p.Name.String()
		}
		return names, err
	})
}

// completeScopeNames offers the names each scope lists that start with
// toComplete, once each, leaving out those in skip.
func (a *App) completeScopeNames(toComplete string, skip []string, list func(plugins.Scope) ([]string, error)) ([]string, cobra.ShellCompDirective) {
	layout, err := a.layout()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	seen := map[string]bool{}
	var out []string
	for _, s := range layout.Scopes() {
		names, err := list(s)
		if err != nil {
			continue
		}
		for _, n := range names {
			if !seen[n] && strings.HasPrefix(n, toComplete) && !slices.Contains(skip, n) {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
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
	var out []string
	for _, s := range layout.Scopes() {
		standalone, err := plugins.ScanDir(s.Root)
		if err == nil {
			for _, h := range standalone.Hooks {
				out = append(out, h.Name)
			}
		}
		ps, err := plugins.ListPlugins(s)
		if err != nil {
			continue
		}
		for _, p := range ps {
			for _, h := range p.Contents.Hooks {
				out = append(out, discovery.ItemName(p.Name, h.Name))
			}
		}
	}
	var match []string
	for _, n := range out {
		if strings.HasPrefix(n, toComplete) {
			match = append(match, n)
		}
	}
	return match, cobra.ShellCompDirectiveDefault
}

// completeMarketplaceNames lists the marketplaces added in either scope,
// from the lock files.
func (a *App) completeMarketplaceNames(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return a.completeScopeNames(toComplete, args, func(s plugins.Scope) ([]string, error) {
		ms, err := plugins.ListMarketplaces(s)
		names := make([]string, len(ms))
		for i, m := range ms {
			names[i] = m.Name
		}
		return names, err
	})
}

// completeMarketplacePlugins offers plugin add every installable entry
// of the added marketplaces as PLUGIN@MARKETPLACE, with its description,
// read from the checked-out marketplace.json files. Anything that looks
// like a path or a URL is left to the shell's file completion.
func (a *App) completeMarketplacePlugins(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if strings.ContainsAny(toComplete, "/:~") || strings.HasPrefix(toComplete, ".") {
		return nil, cobra.ShellCompDirectiveDefault
	}
	layout, err := a.layout()
	if err != nil {
		return nil, cobra.ShellCompDirectiveDefault
	}
	seen := map[string]bool{} // a project marketplace hides a global one of its name
	var out []string
	for _, s := range layout.Scopes() {
		ms, err := plugins.ListMarketplaces(s)
		if err != nil {
			continue
		}
		for _, mc := range ms {
			if seen[mc.Name] || mc.Missing {
				continue
			}
			seen[mc.Name] = true
			m, err := marketplace.ReadDir(mc.Dir)
			if err != nil {
				continue
			}
			for _, e := range m.Entries {
				name := e.Name + "@" + mc.Name
				if e.Problem != "" || !strings.HasPrefix(name, toComplete) {
					continue
				}
				// Names are validated; a description is the
				// marketplace's text, made one plain line.
				if d := visible(truncate(e.Description, 60)); d != "" {
					name += "\t" + d
				}
				out = append(out, name)
			}
		}
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
