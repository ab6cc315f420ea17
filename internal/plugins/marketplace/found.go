package marketplace

import (
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// Found is a search hit as quiver search shows it (--json).
type Found struct {
	// Name is PLUGIN@MARKETPLACE, what plugin add takes; Plugin is the
	// org/repo it installs as.
	Name        string   `json:"name"`
	Plugin      string   `json:"plugin"`
	Marketplace string   `json:"marketplace"`
	Location    string   `json:"location"`
	Version     string   `json:"version"`
	Description string   `json:"description"`
	Category    string   `json:"category"`
	Keywords    []string `json:"keywords"`
	Source      string   `json:"source"`
	// Installed is the location that has the plugin installed, "" for
	// none (the project's first).
	Installed   string `json:"installed"`
	Score       int    `json:"score"`
	Installable bool   `json:"installable"`
	Reason      string `json:"reason,omitempty"`
}

// Results are hits as search shows them, each saying where l has it
// installed. It is never nil, so JSON says [].
func Results(l plugins.Layout, hits []Hit) []Found {
	installed := map[string]string{}
	for _, s := range l.Scopes() {
		if lock, _ := plugins.ReadLock(s.LockPath()); lock != nil {
			for n := range lock.Plugins {
				if installed[n] == "" {
					installed[n] = string(s.Location)
				}
			}
		}
	}
	found := []Found{}
	for _, h := range hits {
		plugin := h.Marketplace + "/" + h.Name
		found = append(found, Found{
			Name: h.Name + "@" + h.Marketplace, Plugin: plugin, Marketplace: h.Marketplace, Location: string(h.Location),
			Version: h.Version, Description: h.Description, Category: h.Category,
			Keywords: append(append([]string{}, h.Keywords...), h.Tags...), Source: h.Source.Type,
			Installed: installed[plugin], Score: h.Score, Installable: h.Installable, Reason: h.Reason,
		})
	}
	return found
}

// FoundHeader heads the rows of Found.Row.
var FoundHeader = []string{"NAME", "VERSION", "DESCRIPTION", "INSTALLED"}

// Row is the hit's row in search's table: its description cut to 70
// characters, or why it cannot be installed.
func (f Found) Row() []string {
	desc := f.Description
	if !f.Installable {
		desc = "(cannot be installed: " + f.Reason + ")"
	}
	return []string{f.Name, orDash(f.Version), Truncate(desc, 70), orDash(f.Installed)}
}

// Truncate makes a marketplace's text (a description) one plain line of
// at most n characters, an ellipsis ending what was cut.
func Truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
