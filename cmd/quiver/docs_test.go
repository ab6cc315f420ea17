package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra/doc"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/cli from the commands")

// TestCLIReference keeps docs/cli, generated from the cobra commands with
// cobra/doc, in step with the code: it fails when they differ. Refresh with
//
//	go test ./cmd/quiver -run TestCLIReference -update
func TestCLIReference(t *testing.T) {
	root := newApp().newRootCmd()
	root.InitDefaultCompletionCmd()
	root.DisableAutoGenTag = true
	gen := t.TempDir()
	if err := doc.GenMarkdownTree(root, gen); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join("..", "..", "docs", "cli")
	files, _ := filepath.Glob(filepath.Join(gen, "*.md"))
	if *updateDocs {
		os.RemoveAll(want)
		os.MkdirAll(want, 0o755)
		for _, f := range files {
			data, _ := os.ReadFile(f)
			if err := os.WriteFile(filepath.Join(want, filepath.Base(f)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	have, _ := filepath.Glob(filepath.Join(want, "*.md"))
	if len(have) != len(files) {
		t.Errorf("docs/cli has %d pages, the commands make %d; run: go test ./cmd/quiver -run TestCLIReference -update", len(have), len(files))
	}
	for _, f := range files {
		got, _ := os.ReadFile(f)
		cur, err := os.ReadFile(filepath.Join(want, filepath.Base(f)))
		if err != nil || string(cur) != string(got) {
			t.Errorf("docs/cli/%s is out of date; run: go test ./cmd/quiver -run TestCLIReference -update", filepath.Base(f))
		}
	}
}
