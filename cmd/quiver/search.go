package main

import (
	"github.com/quiver-cli/quiver/internal/plugins/marketplace"
	"github.com/quiver-cli/quiver/internal/term"
	"github.com/spf13/cobra"
)

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
then keywords, category or tags, then the description. No words lists
everything. An entry quiver cannot install says why. Install one with
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
