package claude

import "testing"

func TestCommand(t *testing.T) {
	vars := map[string]string{"CLAUDE_PLUGIN_ROOT": "/p/.quiver/plugins/acme@x", "CLAUDE_PROJECT_DIR": `/tmp/a"; rm -rf ~; "`}
	got := Command(`python3 "${CLAUDE_PLUGIN_ROOT}/hooks/a.py" "${CLAUDE_PROJECT_DIR}" ${CLAUDE_PLUGIN_DATA}`, vars)
	want := `python3 "/p/.quiver/plugins/acme@x/hooks/a.py" "${CLAUDE_PROJECT_DIR}" ${CLAUDE_PLUGIN_DATA}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
