package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestValidatePluginRun: without run, native hooks are only noted; with
// run, a hook that answers no event, and one that fails on a minimal
// payload, are errors that say what to fix, and a good hook passes.
func TestValidatePluginRun(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		os.MkdirAll(filepath.Join(dir, "hooks"), 0o755)
		if err := os.WriteFile(filepath.Join(dir, "hooks", name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("good", "#!/bin/sh\n[ \"$1\" = hook ] && { echo before_tool_call; exit 0; }\nexit 0\n")
	write("mute", "#!/bin/sh\nexit 0\n")
	write("fails", "#!/bin/sh\n[ \"$1\" = hook ] && { echo turn_end; exit 0; }\necho broken >&2\nexit 1\n")
	byFile := func(run bool) map[string]string {
		got := map[string]string{}
		for _, f := range ValidatePlugin(t.Context(), dir, ValidateOptions{Run: run, QueryTimeout: 5 * time.Second}) {
			got[f.File] = f.Severity + ": " + f.Reason + " | " + f.Fix
		}
		return got
	}
	for file, f := range byFile(false) {
		if strings.HasPrefix(file, "hooks/") && !strings.HasPrefix(f, "info: not run") {
			t.Errorf("without run, %s: %s", file, f)
		}
	}
	got := byFile(true)
	if f := got["hooks/good"]; f != "" {
		t.Errorf("good hook: %s", f)
	}
	if f := got["hooks/mute"]; !strings.HasPrefix(f, "error: ") || !strings.Contains(f, "make `hooks/mute hook` print the event it handles") {
		t.Errorf("mute hook: %s", f)
	}
	if f := got["hooks/fails"]; !strings.Contains(f, "fails `run` on a minimal turn_end payload") || !strings.Contains(f, "quiver hook test ./hooks/fails --event turn_end") {
		t.Errorf("failing hook: %s", f)
	}
}

// TestValidate: a relative folder is reported under its absolute path
// with its counts; a file or a missing folder is no plugin to validate.
func TestValidate(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.MkdirAll(filepath.Join("p", "hooks"), 0o755)
	os.WriteFile(filepath.Join("p", "hooks", "mute"), []byte("#!/bin/sh\nexit 0\n"), 0o644)
	os.WriteFile("file", nil, 0o644)
	r, err := Validate(t.Context(), "p", ValidateOptions{QueryTimeout: time.Second})
	if err != nil || r.Dir != filepath.Join(dir, "p") || r.Errors == 0 {
		t.Errorf("Validate(p) = %+v, %v; want the folder's report with the missing exec bit as an error", r, err)
	}
	for _, bad := range []string{"file", "missing"} {
		if _, err := Validate(t.Context(), bad, ValidateOptions{QueryTimeout: time.Second}); err == nil || err.Error() != bad+" is not a folder" {
			t.Errorf("Validate(%s): %v", bad, err)
		}
	}
}
