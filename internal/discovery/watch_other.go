//go:build !linux

package discovery

import "errors"

// newWatcher: only Linux has a watcher; elsewhere a Session runs a full
// (stat-validated) discovery at every call.
func newWatcher() (watcher, error) { return nil, errors.New("no file watching on this system") }
