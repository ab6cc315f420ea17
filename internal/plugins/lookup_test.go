package plugins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindInstalledSaysWhere(t *testing.T) {
	l := NewLayout(t.TempDir(), t.TempDir())
	n, _ := ParseName("acme/guard")
	if err := os.MkdirAll(l.Local.PluginDir(n), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := FindInstalled(l, n, true); err == nil || !strings.Contains(err.Error(), "drop -g to show it") {
		t.Errorf("global: %v", err)
	}
	other, _ := ParseName("acme/other")
	if _, err := FindInstalled(l, other, false); err == nil || !strings.Contains(err.Error(), "see quiver plugin list") {
		t.Errorf("not installed: %v", err)
	}
}

func TestListInstalledScopes(t *testing.T) {
	l := NewLayout(t.TempDir(), t.TempDir())
	all, err := ListInstalled(l, false, false)
	if err != nil || len(all) != 0 {
		t.Fatalf("empty layout: %v %v", all, err)
	}
	noProject := NewLayout("", filepath.Join(t.TempDir(), "home"))
	if ps, err := ListInstalled(noProject, false, true); err != nil || ps != nil {
		t.Errorf("--local without a project: %v %v", ps, err)
	}
}
