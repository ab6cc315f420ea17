package discovery

import "github.com/quiver-cli/quiver/internal/plugins"

// ItemName is the one naming function for hooks, skills and recipes: a
// standalone item keeps its own name, a plugin's item is prefixed with the
// plugin (acme/guard/validate). Everything that shows or matches an item
// name goes through it, so allow-lists and output always agree.
func ItemName(plugin plugins.Name, item string) string {
	if plugin.IsZero() {
		return item
	}
	return plugin.String() + "/" + item
}
