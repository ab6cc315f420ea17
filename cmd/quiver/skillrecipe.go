package main

import (
	"cmp"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/safefs"
	"github.com/quiver-cli/quiver/internal/term"
)

// Skills and recipes are listed and shown the same way; these build both
// command groups.

type docKind struct {
	kind    discovery.Kind
	plural  string
	find    func(discovery.Options) ([]discovery.Doc, error)
	where   string
	example string
}

var (
	skillKind = docKind{discovery.Skill, "skills", discovery.Skills,
		"skills/<name>/SKILL.md", "acme/guard/review"}
	recipeKind = docKind{discovery.Recipe, "recipes", discovery.Recipes,
		"recipes/**/<name>.md", "acme/guard/ops/deploy"}
)

func (a *App) newDocCmd(k docKind) *cobra.Command {
	var all, listJSON, showJSON bool
	list := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   fmt.Sprintf("List %s in precedence order", k.plural),
		Long: fmt.Sprintf(`List the %s in effect: the project's own (.quiver/%s), the project's
plugins, yours (~/.quiver), your plugins. Plugin items are prefixed with the
plugin's name. --all adds shadowed, disabled and invalid ones with the reason.`, k.plural, k.where),
		Example: fmt.Sprintf("  quiver %s list\n  quiver %s list --all --json", k.kind, k.kind),
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runDocList(k, all, listJSON)
		},
	}
	list.Flags().BoolVar(&all, "all", false, "include shadowed, disabled and invalid items")
	list.Flags().BoolVar(&listJSON, "json", false, "print JSON")
	show := &cobra.Command{
		Use:     "show NAME",
		Short:   fmt.Sprintf("Print one of the %s", k.plural),
		Long:    fmt.Sprintf("Print the file of the %s in effect under NAME; --json adds its parsed frontmatter.", k.kind),
		Example: fmt.Sprintf("  quiver %s show %s\n  quiver %s show %s --json", k.kind, k.example, k.kind, k.example),
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runDocShow(k, args[0], showJSON)
		},
	}
	show.Flags().BoolVar(&showJSON, "json", false, "print JSON")
	return group(string(k.kind), fmt.Sprintf("List and show %s", k.plural), "", list, show)
}

// docs finds the skills or recipes of this invocation's scopes.
func (a *App) docs(k docKind) ([]discovery.Doc, error) {
	e, err := a.env()
	if err != nil {
		return nil, err
	}
	return k.find(e.Options())
}

func (a *App) runDocList(k docKind, all, asJSON bool) error {
	docs, err := a.docs(k)
	if err != nil {
		return err
	}
	out := discovery.DocEntries(docs, all)
	return term.List(&a.Printer, asJSON, out, fmt.Sprintf("No %s.", k.plural), discovery.DocHeader(all), func(d discovery.DocEntry) []string { return d.Row(all) })
}

// runDocShow prints the item's file as it is, or its JSON; an invalid
// item is shown, then its error.
func (a *App) runDocShow(k docKind, name string, asJSON bool) error {
	docs, err := a.docs(k)
	if err != nil {
		return err
	}
	d, notice, invalid, err := discovery.Shown(k.kind, docs, name)
	if err != nil {
		return err
	}
	if notice != "" {
		a.Warnf("quiver: %s", notice)
	}
	if asJSON {
		return cmp.Or(a.JSON(discovery.ShowOf(k.kind, d)), invalid)
	}
	data, err := safefs.ReadFile(d.Path, safefs.MaxMeta)
	if err == nil {
		err = a.Text(data)
	}
	return cmp.Or(err, invalid)
}
