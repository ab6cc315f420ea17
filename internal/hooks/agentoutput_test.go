package hooks

import (
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins/format"
	"github.com/quiver-cli/quiver/internal/proc"
)

// A native hook's agent_output is held to what Claude reads on the event,
// as a Claude handler's is: keys with no effect there are dropped and
// noted, a PermissionRequest decision that Claude would reject fails the
// hook, and only keys Claude knows reach the agent.
func TestNativeAgentOutput(t *testing.T) {
	h := discovery.Hook{Name: "native"}
	for _, c := range []struct {
		event, stdout string
		status        Status
		kept, note    string
	}{
		{format.PermissionRequest, `{"agent_output": {"decision": {"behavior": "deny", "message": "no"}}}`, OK, `{"behavior":"deny","message":"no"}`, ""},
		{format.PermissionRequest, `{"agent_output": {"decision": "allow"}}`, Failed, "", ""},
		{format.PermissionRequest, `{"agent_output": {"decision": {"behavior": "maybe"}}}`, Failed, "", ""},
		{format.AgentStop, `{"agent_output": {"sessionTitle": "x"}}`, OK, "", "agent_output.sessionTitle has no effect on agent_stop"},
		{format.AgentStop, `{"agent_output": {"hookSpecificOutput": {"decision": "block"}}}`, OK, "", "agent_output.hookSpecificOutput has no effect"},
		{format.SessionStart, `{"agent_output": {"continue": true}}`, OK, "", "agent_output.continue has no effect"},
	} {
		o := nativeOutcome(h, c.event, proc.Result{Stdout: []byte(c.stdout)}, DefaultTimeout)
		if o.Status != c.status {
			t.Errorf("%s %s: status %s (%s), want %s", c.event, c.stdout, o.Status, o.Error, c.status)
			continue
		}
		if o.Response == nil {
			continue
		}
		if got := string(o.Response.AgentOutput["decision"]); got != c.kept {
			t.Errorf("%s %s: decision %q, want %q", c.event, c.stdout, got, c.kept)
		}
		if c.note != "" && !strings.Contains(strings.Join(o.Response.notes, "; "), c.note) {
			t.Errorf("%s %s: notes %q, want %q", c.event, c.stdout, o.Response.notes, c.note)
		}
		if c.note != "" && len(o.Response.AgentOutput) > 0 {
			t.Errorf("%s %s: kept %v", c.event, c.stdout, o.Response.AgentOutput)
		}
	}
}
