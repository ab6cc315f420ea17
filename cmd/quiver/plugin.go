package main

import (
	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/term"
)

func (a *App) newPluginCmd() *cobra.Command {
	return group("plugin", "Install, list, show and remove plugins", "",
		a.newPluginAddCmd(), a.newPluginListCmd(), a.newPluginShowCmd(), a.newPluginRemoveCmd(),
		a.newPluginUpdateCmd(), a.newPluginOutdatedCmd(), a.newPluginInstallCmd(), a.newPluginVerifyCmd(),
		a.newPluginEnableCmd(false), a.newPluginEnableCmd(true), a.newPluginInitCmd(), a.newPluginValidateCmd(), a.newPluginConfigCmd(),
		a.searchAlias())
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

type pluginListOptions struct {
	Global, Local, JSON bool
}

func (a *App) newPluginListCmd() *cobra.Command {
	var o pluginListOptions
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List installed plugins",
		Long: `List the plugins installed in the project and in your home: the project's
first, then by name. -g shows only your home's, --local only the project's.`,
		Example: "  quiver plugin list\n  quiver plugin list -g --json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runPluginList(o)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&o.Global, "global", "g", false, "only plugins installed in your home")
	f.BoolVar(&o.Local, "local", false, "only plugins installed in the project")
	f.BoolVar(&o.JSON, "json", false, "print JSON")
	return cmd
}

func (a *App) runPluginList(o pluginListOptions) error {
	if o.Global && o.Local {
		return plugins.Usagef("-g and --local exclude each other")
	}
	e, err := a.env()
	if err != nil {
		return err
	}
	all, err := plugins.ListInstalled(e.Layout, o.Global, o.Local)
	if err != nil {
		return err
	}
	if o.JSON {
		return a.JSON(discovery.Infos(all))
	}
	return term.List(&a.Printer, false, all, "No plugins installed. Add one with: quiver plugin add ORG/REPO", discovery.PluginRowHeader, discovery.PluginRow)
}

// ---- plugin show ----

type pluginShowOptions struct {
	Name   string
	Global bool
	JSON   bool
}

func (a *App) newPluginShowCmd() *cobra.Command {
	var o pluginShowOptions
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Show one installed plugin with its items",
		Long: `Show an installed plugin: where it is, its source, ref, commit and content
hash, and the hooks, skills and recipes it carries. NAME is org/repo (or
org@repo). Without -g the project's install is shown, else your home's.`,
		Example:           "  quiver plugin show acme/guard\n  quiver plugin show -g acme/guard --json",
		Args:              exactArgs(1),
		ValidArgsFunction: a.fromScopes(noFiles, plugins.CompletePlugins),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return a.runPluginShow(cmd, o)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&o.Global, "global", "g", false, "show the plugin installed in your home")
	f.BoolVar(&o.JSON, "json", false, "print JSON")
	return cmd
}

func (a *App) runPluginShow(cmd *cobra.Command, o pluginShowOptions) error {
	names, e, err := a.namedIn(o.Name)
	if err != nil {
		return err
	}
	p, err := plugins.FindInstalled(e.Layout, names[0], o.Global)
	if err != nil {
		return err
	}
	out := discovery.DetailOf(p)
	if err := a.Report(o.JSON, out); err != nil || o.JSON {
		return err
	}
	for _, problem := range out.Problems {
		a.Warnf("quiver: %s: %s", out.Name, problem)
	}
	return nil
}
