package plugins

import (
	"testing"

	"github.com/quiver-cli/quiver/internal/testkit"
)

// TestNameLoopsMatchRegexps checks the byte loops that replaced regexps
// (slow to compile at start-up) against those regexps.
func TestNameLoopsMatchRegexps(t *testing.T) {
	t.Run("partName", func(t *testing.T) {
		testkit.AgreesWithRegexp(t, `^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`, 64, partName)
	})
	t.Run("configKeyName", func(t *testing.T) {
		testkit.AgreesWithRegexp(t, `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`, 64, configKeyName)
	})
}
