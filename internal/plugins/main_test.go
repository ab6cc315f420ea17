package plugins_test

import (
	"os"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/gitwork/gitworktest"
)

// Fetches in these tests go through the git helper, pipe and all, as in
// quiver: the test binary is the helper.
func TestMain(m *testing.M) { os.Exit(gitworktest.Main(m)) }

// Without the helper, git work fails saying what is missing and how to
// install it; nothing else needs it.
func TestGitHelperMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, _, err := plugins.NewFetcher(func(string) string { return "" }).Latest(t.Context(), t.TempDir(), "")
	if err == nil || !strings.Contains(err.Error(), "quiver-git is not beside") || !strings.Contains(err.Error(), "go install ./cmd/quiver ./cmd/quiver-git") {
		t.Errorf("Latest without the helper = %v", err)
	}
}
