package discovery

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/audit"
)

// TestHookCheck: an untrusted project hook and an invalid hook are
// warnings of their own scope's check, each at its file; a trusted or
// valid one is no finding.
func TestHookCheck(t *testing.T) {
	tr := newTree(t)
	tr.hook(plugins.Local, "hooks/guard", "before_tool_call")
	tr.hook(plugins.Global, "hooks/good", "session_start")
	tr.hook(plugins.Global, "hooks/odd", "no_such_event")
	o := tr.options()
	o.TrustAll = false
	render := func(c audit.Check, root string) string {
		var out []string
		for _, f := range audit.NewReport([]audit.Check{c}, audit.Options{Root: root}).Checks[0].Findings {
			out = append(out, fmt.Sprintf("%s %s %s", f.Severity, f.Rule, f.File))
		}
		return strings.Join(out, "\n")
	}
	local := HookCheck(t.Context(), o, plugins.Local)
	if got, want := render(local, tr.layout.ProjectDir), "warning quiver/hooks/untrusted .quiver/hooks/guard"; got != want {
		t.Errorf("project: %q, want %q", got, want)
	}
	if local.Message != "1 hook: 1 untrusted, 0 invalid" || !strings.Contains(local.Findings[0].Message, "quiver trust") {
		t.Errorf("project: %q / %q", local.Message, local.Findings[0].Message)
	}
	global := HookCheck(t.Context(), o, plugins.Global)
	if got, want := render(global, ""), "warning quiver/hooks/invalid "+filepath.Join(tr.layout.Global.Root, "hooks/odd"); got != want {
		t.Errorf("global: %q, want %q", got, want)
	}
	o.TrustAll = true
	if c := HookCheck(t.Context(), o, plugins.Local); len(c.Findings) != 0 {
		t.Errorf("trusted project: %+v", c.Findings)
	}
}
