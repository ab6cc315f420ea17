package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// Shell completion: cobra generates the scripts (quiver completion bash|
// zsh|fish); these functions complete installed plugin names, hook names
// and event names. They read the disk only and never run a hook.

func (a *App) completePluginNames(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	layout, err := a.layout()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	seen := map[string]bool{}
	var out []string
	for _, s := range layout.Scopes() {
		ps, err := plugins.ListPlugins(s)
		if err != nil {
			continue
		}
		for _, p := range ps {
			n := p.Name.String()
			if !seen[n] && strings.HasPrefix(n, toComplete) {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

func completeEvents(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, e := range discovery.Events {
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

// wireCompletions attaches the completion functions to the commands.
func (a *App) wireCompletions(root *cobra.Command) {
	for _, path := range [][]string{
		{"plugin", "show"}, {"plugin", "remove"}, {"plugin", "update"},
		{"plugin", "enable"}, {"plugin", "disable"},
	} {
		if c, _, err := root.Find(path); err == nil {
			c.ValidArgsFunction = a.completePluginNames
		}
	}
	if c, _, err := root.Find([]string{"hook", "run"}); err == nil {
		c.ValidArgsFunction = completeEvents
	}
	if c, _, err := root.Find([]string{"hook", "test"}); err == nil {
		c.ValidArgsFunction = a.completeHookNames
		c.RegisterFlagCompletionFunc("event", completeEvents)
	}
}
