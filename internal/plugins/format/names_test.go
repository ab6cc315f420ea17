package format

import (
	"testing"

	"github.com/quiver-cli/quiver/internal/testkit"
)

// TestEnvNameMatchesRegexp checks the loop that replaced a regexp (slow to
// compile at start-up) against it.
func TestEnvNameMatchesRegexp(t *testing.T) {
	testkit.AgreesWithRegexp(t, `^[A-Za-z_][A-Za-z0-9_]{0,127}$`, 128, envName)
}
