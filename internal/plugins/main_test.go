package plugins_test

import (
	"os"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins/gitwork/gitworktest"
)

// Fetches in these tests go through the git helper, pipe and all, as in
// quiver: the test binary is the helper.
func TestMain(m *testing.M) { os.Exit(gitworktest.Main(m)) }
