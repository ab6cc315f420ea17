package agents

import "testing"

// TestWrites: quiver recognises exactly the commands it writes, so a
// user's own quiver command (other flags) is never taken over.
func TestWrites(t *testing.T) {
	for cmd, want := range map[string]bool{
		"quiver hook run --format claude before_tool_call":                         true,
		"/usr/local/bin/quiver hook run --format claude agent_stop":                true,
		"'/my dir/quiver' hook run --format claude --allow-rewrites session_start": true,
		Claude.Command("/it's/quiver", Claude.Events()[0], false):                  true,
		"quiver hook run --format claude --fail-closed before_tool_call":           false,
		"echo 'quiver hook run --format claude before_tool_call'":                  false,
		"quiver hook run --format claude turn_end":                                 false,
		"quiver hook run --format gemini before_tool_call":                         false,
		"quiver hook run --format claude before_tool_call; rm -rf ~":               false,
	} {
		if got := Claude.Writes(cmd); got != want {
			t.Errorf("Writes(%q) = %v, want %v", cmd, got, want)
		}
	}
}
