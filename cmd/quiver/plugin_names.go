package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// Plugin names on the command line, and the errors about a plugin's scope.

// parseNames validates every name before anything else happens.
func parseNames(cmd *cobra.Command, raw []string) ([]plugins.Name, error) {
	var names []plugins.Name
	seen := map[plugins.Name]bool{}
	for _, r := range raw {
		n, err := plugins.ParseName(r)
		if err != nil {
			return nil, &usageError{err: err, cmd: cmd}
		}
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return names, nil
}

// scopeError explains a plugin installed in the other scope, naming the
// flag, for command verb.
func scopeError(err error, verb string) error {
	var ws *plugins.WrongScopeError
	if errors.As(err, &ws) {
		if ws.In == plugins.Global {
			return fmt.Errorf("plugin %s is installed globally; use -g to %s it", ws.Name, verb)
		}
		return fmt.Errorf("plugin %s is installed in the project, not globally; drop -g to %s it", ws.Name, verb)
	}
	if errors.Is(err, plugins.ErrNotInstalled) {
		return fmt.Errorf("%w; see quiver plugin list", err)
	}
	return err
}

// usage makes an error in what was asked (plugins.ErrUsage) a usage
// error of cmd; other errors stay as they are.
func usage(cmd *cobra.Command, err error) error {
	if errors.Is(err, plugins.ErrUsage) {
		return &usageError{err: err, cmd: cmd}
	}
	return err
}
