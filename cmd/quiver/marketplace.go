package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/marketplace"
	"github.com/quiver-cli/quiver/internal/term"
)

func (a *App) newMarketplaceCmd() *cobra.Command {
	return group("marketplace", "Add, list, update and remove plugin marketplaces",
		`A marketplace is a git repository with .claude-plugin/marketplace.json
listing plugins and where to fetch each (Claude Code's format). Added
marketplaces are checked out into .quiver/marketplaces/NAME (or, with -g,
your home's) and locked like plugins; search finds plugins in them and
"quiver plugin add PLUGIN@MARKETPLACE" installs one.`,
		a.newMarketplaceAddCmd(), a.newMarketplaceListCmd(), a.newMarketplaceUpdateCmd(), a.newMarketplaceRemoveCmd(),
		a.searchAlias())
}

type marketplaceAddOptions struct {
	Spec, Name          string
	Global, Force, JSON bool
}

func (a *App) newMarketplaceAddCmd() *cobra.Command {
	var o marketplaceAddOptions
	cmd := &cobra.Command{
		Use:   "add SPEC",
		Short: "Add a marketplace from a git repository",
		Long: `Fetch a marketplace repository (any plugin spec: org/repo, a URL, a local
folder) into the scope's marketplaces folder and record its commit in
quiver.lock. Its name is marketplace.json's name, or --name.`,
		Example: `  quiver marketplace add anthropics/claude-plugins-official
  quiver marketplace add -g https://git.example.com/tools/market.git --name tools`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Spec = args[0]
			return a.runMarketplaceAdd(cmd, o)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&o.Global, "global", "g", false, "add it to your home instead of the project")
	f.StringVar(&o.Name, "name", "", "add it under this `name` instead of its own")
	f.BoolVar(&o.Force, "force", false, "replace a marketplace of the same name")
	f.BoolVar(&o.JSON, "json", false, "print the marketplace as JSON")
	return cmd
}

func (a *App) runMarketplaceAdd(cmd *cobra.Command, o marketplaceAddOptions) error {
	if o.Name != "" {
		if err := plugins.ValidMarketplaceName(o.Name); err != nil {
			return err
		}
	}
	e, err := a.env()
	if err != nil {
		return err
	}
	wd, err := a.Getwd()
	if err != nil {
		return err
	}
	spec, err := plugins.ParseSpec(o.Spec, a.Getenv("QUIVER_GIT_BASE"), wd)
	if err != nil {
		return &usageError{err: err, cmd: cmd}
	}
	added, err := e.Changes(o.Global).AddMarketplace(cmd.Context(), spec, o.Name, o.Force)
	if err != nil {
		return fmt.Errorf("add marketplace %s: %w", plugins.Redact(o.Spec), err)
	}
	if o.JSON {
		return a.JSON(added)
	}
	a.Warnf("%s", added.Added())
	return nil
}

func (a *App) newMarketplaceListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the added marketplaces of both scopes",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runMarketplaceList(asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}

func (a *App) runMarketplaceList(asJSON bool) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	out, err := marketplace.List(e.Layout)
	if err != nil {
		return err
	}
	return term.List(&a.Printer, asJSON, out, "No marketplaces. Add one with quiver marketplace add org/repo.", marketplace.ListingHeader, marketplace.Listing.Row)
}

type marketplaceUpdateOptions struct {
	Names  []string
	Global bool
}

func (a *App) newMarketplaceUpdateCmd() *cobra.Command {
	var o marketplaceUpdateOptions
	cmd := &cobra.Command{
		Use:   "update [NAME...]",
		Short: "Move marketplaces to the newest commit",
		Long: `Fetch the newest commit of each named marketplace (all of the scope's
when none is named). Installed plugins do not move: run quiver plugin
update for those.`,
		ValidArgsFunction: a.completeMarketplaces(false),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Names = args
			return a.runMarketplaceUpdate(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVarP(&o.Global, "global", "g", false, "update your home's marketplaces")
	a.jobsFlag(cmd)
	return cmd
}

func (a *App) runMarketplaceUpdate(ctx context.Context, o marketplaceUpdateOptions) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	updated, err := e.Changes(o.Global).UpdateMarketplaces(ctx, o.Names, a.Say)
	if err == nil && !updated {
		return errReported
	}
	return err
}

type marketplaceRemoveOptions struct {
	Name   string
	Global bool
}

func (a *App) newMarketplaceRemoveCmd() *cobra.Command {
	var o marketplaceRemoveOptions
	cmd := &cobra.Command{
		Use:               "remove NAME",
		Aliases:           []string{"rm"},
		Short:             "Remove a marketplace; plugins installed from it stay",
		Args:              exactArgs(1),
		ValidArgsFunction: a.completeMarketplaces(true),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return a.runMarketplaceRemove(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVarP(&o.Global, "global", "g", false, "remove it from your home")
	return cmd
}

func (a *App) runMarketplaceRemove(ctx context.Context, o marketplaceRemoveOptions) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	return e.Changes(o.Global).RemoveMarketplace(ctx, o.Name)
}

// ---- search ----

type searchOptions struct {
	Words       []string
	Marketplace string
	JSON        bool
}

func (a *App) newSearchCmd() *cobra.Command {
	var o searchOptions
	cmd := &cobra.Command{
		Use:   "search [TERM...]",
		Short: "Find plugins in the added marketplaces",
		Long: `List the plugins of every added marketplace (both scopes) whose name,
description, category, keywords or tags contain every word given, in any
case, whether the words come as one quoted argument or several. The best
match comes first: a name equal to a word, then a name containing one,
then keywords, category or tags, then the description; equals by name. No
words lists everything, by name. An entry quiver cannot install says why. Install one with
quiver plugin add PLUGIN@MARKETPLACE.`,
		Example: `  quiver search review
  quiver search code review --marketplace claude-plugins-official`,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Words = args
			return a.runSearch(o)
		},
	}
	cmd.Flags().StringVar(&o.Marketplace, "marketplace", "", "search only this `marketplace`")
	cmd.RegisterFlagCompletionFunc("marketplace", a.completeMarketplaces(false))
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print the entries as JSON")
	return cmd
}

func (a *App) runSearch(o searchOptions) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	hits, err := e.Marketplaces(false).Search(o.Words, o.Marketplace, func(msg string) { a.Warnf("%s", msg) })
	if err != nil {
		return err
	}
	found := marketplace.Results(e.Layout, hits)
	return term.List(&a.Printer, o.JSON, found, "No plugins match. quiver marketplace list shows what is searched.", marketplace.FoundHeader, marketplace.Found.Row)
}
