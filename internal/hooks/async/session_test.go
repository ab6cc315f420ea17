package async

import (
	"testing"

	"github.com/quiver-cli/quiver/internal/testkit"
)

// TestSafeSessionMatchesRegexp checks the loop that replaced a regexp
// (slow to compile at start-up) against it.
func TestSafeSessionMatchesRegexp(t *testing.T) {
	testkit.AgreesWithRegexp(t, `^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`, 100, safeSession)
}
