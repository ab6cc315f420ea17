package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// Skills and recipes are listed and shown the same way; these build both
// command groups.

// docJSON is a skill or recipe in `list --json` (SPEC §7).
type docJSON struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Path        string   `json:"path"`
	Location    string   `json:"location"`
	Plugin      string   `json:"plugin"`
	Status      string   `json:"status"`
	Reason      string   `json:"reason"`
	Warnings    []string `json:"warnings,omitempty"`
}

// docShowJSON adds the parsed file for `show --json` (SPEC §10).
type docShowJSON struct {
	docJSON
	Frontmatter map[string]any `json:"frontmatter"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Body        string         `json:"body"`
}

func toDocJSON(d discovery.Doc) docJSON {
	return docJSON{
		Name: d.Name, Description: d.Description, Path: d.Path, Location: string(d.Location),
		Plugin: pluginOrEmpty(d.Plugin), Status: string(d.Status), Reason: d.Reason, Warnings: d.Warnings,
	}
}

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
	cmd := &cobra.Command{
		Use:   string(k.kind),
		Short: fmt.Sprintf("List and show %s", k.plural),
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
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
	cmd.AddCommand(list, show)
	return cmd
}

// docListJSON is `list --json` of skills or recipes (and hook serve's list).
func docListJSON(docs []discovery.Doc, all bool) []docJSON {
	out := []docJSON{}
	for _, d := range docs {
		if all || d.Status == discovery.Active {
			out = append(out, toDocJSON(d))
		}
	}
	return out
}

func (a *App) runDocList(k docKind, all, asJSON bool) error {
	layout, err := a.layout()
	if err != nil {
		return err
	}
	docs, err := k.find(a.discoveryOptions(layout))
	if err != nil {
		return err
	}
	out := docListJSON(docs, all)
	if asJSON {
		return writeJSON(a.Stdout, out)
	}
	if len(out) == 0 {
		a.warnf("No %s.", k.plural)
		return nil
	}
	header := []string{"NAME", "LOCATION", "DESCRIPTION"}
	if all {
		header = append(header, "STATUS", "REASON")
	}
	rows := make([][]string, 0, len(out))
	for _, d := range out {
		desc := oneLine(d.Description)
		if r := []rune(desc); len(r) > 60 {
			desc = string(r[:57]) + "..."
		}
		row := []string{d.Name, d.Location, dash(desc)}
		if all {
			row = append(row, d.Status, oneLine(d.Reason))
		}
		rows = append(rows, row)
	}
	return a.writeTable(header, rows)
}

func (a *App) runDocShow(k docKind, name string, asJSON bool) error {
	layout, err := a.layout()
	if err != nil {
		return err
	}
	docs, err := k.find(a.discoveryOptions(layout))
	if err != nil {
		return err
	}
	d, ok := discovery.Find(docs, name)
	if !ok {
		return fmt.Errorf("no %s named %s; see quiver %s list", k.kind, name, k.kind)
	}
	if d.Escape != "" {
		// Its file is not the project's: never read it.
		return fmt.Errorf("%s %s is invalid: %s", k.kind, d.Name, d.Reason)
	}
	if d.Status != discovery.Active && d.Status != discovery.Invalid {
		a.warnf("quiver: %s %s is %s: %s", k.kind, d.Name, d.Status, d.Reason)
	}
	// An invalid item is still shown (the file is what needs fixing), but
	// the command fails, so a script never takes it for a good one.
	var invalid error
	if d.Status == discovery.Invalid {
		invalid = fmt.Errorf("%s %s is invalid: %s", k.kind, d.Name, d.Reason)
	}
	// Listings carry cached summaries; show parses the file itself.
	full := discovery.InspectDoc(k.kind, d.Path, d.Name)
	d.Frontmatter, d.Body = full.Frontmatter, full.Body
	if asJSON {
		out := docShowJSON{docJSON: toDocJSON(d), Frontmatter: d.Frontmatter, Body: d.Body}
		if out.Frontmatter == nil {
			out.Frontmatter = map[string]any{}
		}
		if k.kind == discovery.Skill {
			for key, v := range d.Frontmatter {
				if key != "name" && key != "description" {
					if out.Metadata == nil {
						out.Metadata = map[string]any{}
					}
					out.Metadata[key] = v
				}
			}
		}
		if err := writeJSON(a.Stdout, out); err != nil {
			return err
		}
		return invalid
	}
	data, err := safefs.ReadFile(d.Path, safefs.MaxMeta)
	if err != nil {
		return err
	}
	if _, err = a.Stdout.Write(data); err != nil {
		return err
	}
	return invalid
}
