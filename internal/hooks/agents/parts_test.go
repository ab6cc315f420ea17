package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPartsLeaveInTheFilesFormat: when the plan no longer names a file
// (the plugin is gone), quiver's members leave it in the format the
// adapter gives it, not the plan's: Gemini's settings.json keeps its
// comments, Codex's config.toml is edited as TOML.
func TestPartsLeaveInTheFilesFormat(t *testing.T) {
	for _, ag := range []*Agent{Gemini, Codex} {
		t.Run(ag.Name, func(t *testing.T) {
			w := codexWirer(t)
			site := w.Site(ag, true)
			file := filepath.Join(w.Home, ".gemini", "settings.json")
			before := "{\n  // mine\n  \"theme\": \"dark\"\n}\n"
			if ag == Codex {
				file, before = filepath.Join(w.Home, ".codex", "config.toml"), "# mine\nmodel = \"m\"\n"
			}
			os.MkdirAll(filepath.Dir(file), 0o755)
			os.WriteFile(file, []byte(before), 0o644)
			if _, err := w.Install(t.Context(), site, InstallOptions{Command: "quiver"}); err != nil {
				t.Fatal(err)
			}
			if data, _ := os.ReadFile(file); !strings.Contains(string(data), "acme-tools-files") {
				t.Fatalf("no server written:\n%s", data)
			}
			w.Docs = func() (Docs, error) { return Docs{}, nil }
			if err := w.Sync(t.Context()); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(file)
			if strings.Contains(string(data), "acme-tools") || !strings.Contains(string(data), "mine") {
				t.Errorf("after the plugin left:\n%s", data)
			}
			if ag == Codex && string(data) != before {
				t.Errorf("after the plugin left:\n%s\nwant:\n%s", data, before)
			}
		})
	}
}
