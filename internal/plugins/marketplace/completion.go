package marketplace

import (
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// Candidate is an installable entry offered to shell completion.
type Candidate struct {
	// Name is PLUGIN@MARKETPLACE, what plugin add takes.
	Name string
	// Description is the marketplace's text, as it wrote it.
	Description string
}

// Complete lists every installable entry of the marketplaces added in
// l's scopes whose PLUGIN@MARKETPLACE starts with prefix, read from the
// checked-out marketplace.json files. A project marketplace hides a
// global one of its name; a missing or unreadable one offers nothing.
func Complete(l plugins.Layout, prefix string) []Candidate {
	seen := map[string]bool{}
	var out []Candidate
	for _, s := range l.Scopes() {
		ms, err := plugins.ListMarketplaces(s)
		if err != nil {
			continue
		}
		for _, mc := range ms {
			if seen[mc.Name] || mc.Missing {
				continue
			}
			seen[mc.Name] = true
			m, err := ReadDir(mc.Dir)
			if err != nil {
				continue
			}
			for _, e := range m.Entries {
				name := e.Name + "@" + mc.Name
				if e.Problem != "" || !strings.HasPrefix(name, prefix) {
					continue
				}
				out = append(out, Candidate{Name: name, Description: e.Description})
			}
		}
	}
	return out
}

// ShellCandidates are Complete's entries as a shell's completion shows
// them: PLUGIN@MARKETPLACE, then a tab and the description, made one
// short plain line with nothing that could drive the terminal. A prefix
// that looks like a path or a URL gets none: the shell completes files.
func ShellCandidates(l plugins.Layout, prefix string) []string {
	if strings.ContainsAny(prefix, "/:~") || strings.HasPrefix(prefix, ".") {
		return nil
	}
	var out []string
	for _, c := range Complete(l, prefix) {
		name := c.Name
		if d := safefs.Visible(Truncate(c.Description, 60)); d != "" {
			name += "\t" + d
		}
		out = append(out, name)
	}
	return out
}
