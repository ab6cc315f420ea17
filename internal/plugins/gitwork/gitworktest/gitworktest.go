// Package gitworktest lets a package's tests fetch through the git helper
// without building it: the test binary is the helper when started under
// its name, as os/exec's tests re-run themselves.
package gitworktest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/gitwork"
)

// Main is a TestMain: started as quiver-git, the test binary serves one
// git request; otherwise it links itself as quiver-git into a temporary
// folder put first on PATH, where plugins finds the helper, and runs the
// tests.
func Main(m *testing.M) int {
	if filepath.Base(os.Args[0]) == plugins.GitHelper {
		return gitwork.Main(os.Stdin, os.Stdout, os.Stderr, func() { os.Exit(3) })
	}
	dir, err := os.MkdirTemp("", "gitworktest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	self, err := os.Executable()
	if err == nil {
		err = os.Symlink(self, filepath.Join(dir, plugins.GitHelper))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return m.Run()
}
