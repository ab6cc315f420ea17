package gitwork

import (
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// A request of another protocol version (an old quiver-git on PATH, or a
// newer one) is refused with what to do, never misread.
func TestDoRefusesAnotherProtocol(t *testing.T) {
	resp := Do(t.Context(), plugins.GitRequest{Protocol: plugins.GitProtocol + 1, Op: "latest", URL: t.TempDir()}, nil)
	if resp.Error == nil || !strings.Contains(resp.Error.Message, "install quiver and quiver-git from one checkout") {
		t.Errorf("answer = %+v, want a refusal naming the fix", resp.Error)
	}
	resp = Do(t.Context(), plugins.GitRequest{Protocol: plugins.GitProtocol, Op: "nosuch"}, nil)
	if resp.Error == nil || !strings.Contains(resp.Error.Message, `no such work "nosuch"`) {
		t.Errorf("answer = %+v, want an unknown op refused", resp.Error)
	}
}
