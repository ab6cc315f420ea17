package plugins

import (
	"strings"
	"testing"
)

// TestCheckGitHelper: the helper answers when it is on PATH (the test
// binary stands for it, gitworktest); when it is neither beside quiver
// nor on PATH, the error says so and how to install it.
func TestCheckGitHelper(t *testing.T) {
	if err := CheckGitHelper(t.Context()); err != nil {
		t.Fatalf("helper on PATH: %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	err := CheckGitHelper(t.Context())
	if err == nil || !strings.Contains(err.Error(), "quiver-git is not beside") || !strings.Contains(err.Error(), "go install ./cmd/quiver ./cmd/quiver-git") {
		t.Errorf("helper missing: %v", err)
	}
}
