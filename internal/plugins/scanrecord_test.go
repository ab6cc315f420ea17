package plugins

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins/scan"
)

// TestInstallScan: a critical finding refuses the plugin while it is
// staged (the installed version and the lock stay as they were), Warn
// lets it in and records it, Off scans nothing, and remove forgets the
// record.
func TestInstallScan(t *testing.T) {
	f := newFixture(t)
	src := t.TempDir()
	writeTree(t, src, map[string]string{"recipes/a.md": "ok\u202Eko\n", "recipes/b.md": "soft\u00ADhyphen\n"})
	spec, err := ParseSpec(src, "", "/")
	if err != nil {
		t.Fatal(err)
	}
	lockBefore, _ := os.ReadFile(f.in.Scope.LockPath())
	var heard []ScanReport
	f.in.OnScan = func(r ScanReport) { heard = append(heard, r) }

	_, err = f.in.Add(t.Context(), AddRequest{Spec: spec, Name: f.name, Force: true})
	var hidden *HiddenUnicodeError
	if !errors.As(err, &hidden) || len(hidden.Findings) != 1 || hidden.Findings[0].CodePoint != "U+202E" {
		t.Fatalf("err = %v, want a refusal for U+202E", err)
	}
	if lock, _ := os.ReadFile(f.in.Scope.LockPath()); string(lock) != string(lockBefore) {
		t.Fatal("a refusal changed the lock")
	}
	if _, err := os.Stat(filepath.Join(f.in.Scope.PluginDir(f.name), "recipes", "a.md")); err != nil {
		t.Fatal("a refusal replaced the installed version")
	}
	if entries, _ := os.ReadDir(f.in.Scope.PluginsDir()); len(entries) != 1 {
		t.Fatalf("a refusal left %v", entries)
	}
	if len(heard) != 0 {
		t.Fatalf("OnScan heard %v", heard)
	}

	if _, err := f.in.Add(t.Context(), AddRequest{Spec: spec, Name: f.name, Force: true, HiddenUnicode: scan.Warn}); err != nil {
		t.Fatal(err)
	}
	rec, ok, err := ReadScanRecord(f.in.Scope, f.name)
	if err != nil || !ok || len(rec.Findings) != 2 || rec.Hash == "" {
		t.Fatalf("record %+v, %v, %v", rec, ok, err)
	}
	if len(heard) != 1 || len(heard[0].Findings) != 2 {
		t.Fatalf("OnScan heard %v", heard)
	}

	if _, err := f.in.Add(t.Context(), AddRequest{Spec: f.v1, Name: f.name, Force: true, HiddenUnicode: scan.Off}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := ReadScanRecord(f.in.Scope, f.name); ok {
		t.Fatal("a clean version kept the record of the last one")
	}
	if _, err := f.in.Add(t.Context(), AddRequest{Spec: spec, Name: f.name, Force: true, HiddenUnicode: scan.Warn}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := ReadScanRecord(f.in.Scope, f.name); !ok {
		t.Fatal("no record")
	}
	if err := f.in.Remove(t.Context(), []Name{f.name}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f.in.Scope.ScanRecordPath(f.name)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("remove kept the record: %v", err)
	}
}
