package plugins

import "fmt"

// ListInstalled lists the plugins of both scopes, the project's first, as
// plugin list shows them; global or local keeps only that scope's (local
// without a project lists nothing).
func ListInstalled(l Layout, global, local bool) ([]Plugin, error) {
	var scopes []Scope
	switch {
	case global:
		scopes = []Scope{l.Global}
	case local:
		if l.Local != nil {
			scopes = []Scope{*l.Local}
		}
	default:
		scopes = l.Scopes()
	}
	var all []Plugin
	for _, s := range scopes {
		ps, err := ListPlugins(s)
		if err != nil {
			return nil, err
		}
		all = append(all, ps...)
	}
	return all, nil
}

// FindInstalled reads plugin n where plugin show looks for it: the
// project's install before the user's, only the user's when global. Not
// found, the error says where it is instead, or what to run.
func FindInstalled(l Layout, n Name, global bool) (Plugin, error) {
	scopes := l.Scopes()
	if global {
		scopes = []Scope{l.Global}
	}
	for _, s := range scopes {
		if Installed(s, n) {
			return ReadPlugin(s, n)
		}
	}
	if global && l.Local != nil && Installed(*l.Local, n) {
		return Plugin{}, fmt.Errorf("plugin %s is installed in the project, not globally; drop -g to show it", n)
	}
	return Plugin{}, fmt.Errorf("plugin %s is not installed; see quiver plugin list", n)
}
