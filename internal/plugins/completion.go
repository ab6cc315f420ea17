package plugins

import (
	"slices"
	"strings"
)

// Shell completion's candidates that the lock files and plugin folders
// give: read from files only, no process started, nothing fetched.

// CompletePlugins lists the plugins installed in l's scopes whose names
// start with prefix, once each.
func CompletePlugins(l Layout, prefix string) []string {
	return completeNames(l, prefix, nil, func(s Scope) ([]string, error) {
		ps, err := ListPlugins(s)
		names := make([]string, len(ps))
		for i, p := range ps {
			names[i] = p.Name.String()
		}
		return names, err
	})
}

// CompleteMarketplaces lists the marketplaces added in l's scopes whose
// names start with prefix, once each, leaving out those in skip (named
// already on the command line).
func CompleteMarketplaces(l Layout, prefix string, skip []string) []string {
	return completeNames(l, prefix, skip, func(s Scope) ([]string, error) {
		ms, err := ListMarketplaces(s)
		names := make([]string, len(ms))
		for i, m := range ms {
			names[i] = m.Name
		}
		return names, err
	})
}

// completeNames offers the names each scope lists that start with
// prefix, once each, leaving out those in skip; a scope that cannot be
// read offers none.
func completeNames(l Layout, prefix string, skip []string, list func(Scope) ([]string, error)) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range l.Scopes() {
		names, err := list(s)
		if err != nil {
			continue
		}
		for _, n := range names {
			if !seen[n] && strings.HasPrefix(n, prefix) && !slices.Contains(skip, n) {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}
