//go:build !linux && !darwin

package plugins

import "errors"

// exchange is not available here; replace falls back to two journaled
// renames.
func exchange(a, b string) error {
	return errors.ErrUnsupported
}
