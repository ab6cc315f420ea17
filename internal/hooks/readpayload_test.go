package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadPayload: a file or stdin is read; a device is refused by
// name; no stdin (a terminal) is no payload.
func TestReadPayload(t *testing.T) {
	file := filepath.Join(t.TempDir(), "p.json")
	os.WriteFile(file, []byte(`{"a":1}`), 0o644)
	if data, err := ReadPayload(file, strings.NewReader("ignored")); err != nil || string(data) != `{"a":1}` {
		t.Errorf("file: %s %v", data, err)
	}
	if data, err := ReadPayload("", strings.NewReader(`{}`)); err != nil || string(data) != `{}` {
		t.Errorf("stdin: %s %v", data, err)
	}
	if data, err := ReadPayload("", nil); err != nil || data != nil {
		t.Errorf("terminal: %s %v", data, err)
	}
	if _, err := ReadPayload("/dev/zero", nil); err == nil || !strings.Contains(err.Error(), "give a file or a pipe") {
		t.Errorf("device: %v", err)
	}
	if _, err := ReadPayload(filepath.Join(t.TempDir(), "none"), nil); err == nil || !strings.HasPrefix(err.Error(), "read payload: ") {
		t.Errorf("missing: %v", err)
	}
}
