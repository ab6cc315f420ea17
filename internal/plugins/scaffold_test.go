package plugins

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCreate: plugin init's choices and name are checked before anything
// is written, and the name defaults to local/ and the folder's name.
func TestCreate(t *testing.T) {
	for _, tc := range []struct {
		name, rawName string
		o             ScaffoldOptions
		want          error
	}{
		{name: "unknown format", o: ScaffoldOptions{Format: "cursor"}, want: ErrUnknownFormat},
		{name: "empty format", o: ScaffoldOptions{Format: ""}, want: ErrUnknownFormat},
		{name: "persistent claude", o: ScaffoldOptions{Format: FormatClaude, Persistent: true}, want: ErrNotPersistent},
		{name: "bad name", rawName: "no-slash", o: ScaffoldOptions{Format: FormatNative}, want: ErrInvalidName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "Guard")
			_, _, err := Create(dir, tc.rawName, tc.o)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Create: %v; want %v", err, tc.want)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a refused plugin init wrote %s: %v", dir, err)
			}
		})
	}
	t.Run("default name", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "My-Guard")
		name, written, err := Create(dir, "", ScaffoldOptions{Format: FormatNative})
		if err != nil || name.String() != "local/my-guard" {
			t.Fatalf("Create: %v, %v; want local/my-guard", name, err)
		}
		if !slices.Contains(written, "plugin.yaml") {
			t.Fatalf("written %q lacks plugin.yaml", written)
		}
	})
	t.Run("given name, claude", func(t *testing.T) {
		dir := t.TempDir()
		name, written, err := Create(dir, "acme/cc", ScaffoldOptions{Format: FormatClaude})
		if err != nil || name.String() != "acme/cc" || !slices.Contains(written, "hooks/hooks.json") {
			t.Fatalf("Create: %v, %q, %v", name, written, err)
		}
	})
}

func TestNextSteps(t *testing.T) {
	for dir, want := range map[string]string{
		"guard":    "quiver plugin validate --run guard && quiver plugin add ./guard",
		"./guard":  "quiver plugin validate --run ./guard && quiver plugin add ./guard",
		"/tmp/g":   "quiver plugin validate --run /tmp/g && quiver plugin add /tmp/g",
		".":        "quiver plugin validate --run . && quiver plugin add ./.",
		"../guard": "quiver plugin validate --run ../guard && quiver plugin add ./../guard",
	} {
		if got := NextSteps(dir, FormatNative); got != want {
			t.Errorf("NextSteps(%q) = %q; want %q", dir, got, want)
		}
	}
	if got, want := NextSteps("g", FormatClaude), "quiver plugin validate g && quiver plugin add ./g (Claude Code's own check: claude plugin validate --profile directory g)"; got != want {
		t.Errorf("NextSteps, Claude format = %q; want %q", got, want)
	}
}
