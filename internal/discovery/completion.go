package discovery

import (
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// CompleteHooks lists the names of the hooks in l's scopes (standalone
// and plugins' native hooks, as hook list names them) that start with
// prefix, for shell completion: read from the folders, no hook asked.
func CompleteHooks(l plugins.Layout, prefix string) []string {
	var out []string
	for _, s := range l.Scopes() {
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
				out = append(out, ItemName(p.Name, h.Name))
			}
		}
	}
	var match []string
	for _, n := range out {
		if strings.HasPrefix(n, prefix) {
			match = append(match, n)
		}
	}
	return match
}
