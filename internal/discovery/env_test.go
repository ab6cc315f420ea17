package discovery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// TestEnvBuildsEachRoomOnce: one command's fetcher and policy are built
// once and shared by its installers (so git's configuration is read, and
// the policy's files parsed and its warnings said, once); an installer
// acts on the scope asked for, under that scope's view of the policy; a
// bad setting is said through Warn, a wait through Waiting.
func TestEnvBuildsEachRoomOnce(t *testing.T) {
	tr := newTree(t)
	os.MkdirAll(tr.layout.Global.Root, 0o755)
	os.WriteFile(filepath.Join(tr.layout.Global.Root, "policy.yaml"), []byte("version: 1\nbogus: true\n"), 0o644)
	env := map[string]string{"QUIVER_QUERY_TIMEOUT": "soon", "QUIVER_GIT_BASE": "http://127.0.0.1:1"}
	var warned, waited []string
	e := &Env{Layout: tr.layout, Getenv: func(k string) string { return env[k] },
		Warn: func(m string) { warned = append(warned, m) }, Waiting: func(m string) { waited = append(waited, m) }}
	local, global := e.Installer(false), e.Installer(true)
	if local.Fetcher != global.Fetcher || local.Fetcher != e.Fetcher() {
		t.Error("installers of one command do not share its fetcher")
	}
	if first := e.Policy(); e.Policy() != first {
		t.Error("the policy is read more than once")
	}
	if local.Scope.Location != plugins.Local || global.Scope.Location != plugins.Global || local.GitBase != "http://127.0.0.1:1" {
		t.Errorf("scopes %v, %v; git base %q", local.Scope.Location, global.Scope.Location, local.GitBase)
	}
	if n := strings.Count(strings.Join(warned, "\n"), "bogus"); n != 1 {
		t.Errorf("the policy's unknown field was said %d times: %q", n, warned)
	}
	if o := e.Options(); o.QueryTimeout != DefaultQueryTimeout || !strings.Contains(strings.Join(warned, "\n"), "QUIVER_QUERY_TIMEOUT") {
		t.Errorf("a bad QUIVER_QUERY_TIMEOUT: %v, said %q", o.QueryTimeout, warned)
	}
	local.OnWait()
	if len(waited) != 1 || !strings.Contains(waited[0], tr.layout.Local.Root) {
		t.Errorf("waiting said %q", waited)
	}
	if c := e.Changes(true); !c.Global || c.Installer == nil || c.Installer.Scope.Location != plugins.Global {
		t.Errorf("Changes(true) = %+v", c)
	}
}
