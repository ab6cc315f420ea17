package discovery

import (
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// TestCompleteHooks: hook names complete as hook list names them, read
// from the folders, no hook asked.
func TestCompleteHooks(t *testing.T) {
	tr := newTree(t)
	tr.hook(plugins.Local, "hooks/check", "before_tool_call")
	tr.hook(plugins.Global, "hooks/audit", "after_tool_call")
	if got := CompleteHooks(tr.layout, "c"); len(got) != 1 || got[0] != "check" {
		t.Errorf("CompleteHooks: %v", got)
	}
	if asked := tr.asked(); len(asked) != 0 {
		t.Errorf("asked %v", asked)
	}
}
