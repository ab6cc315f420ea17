package plugins_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

func TestCheckSymlinks(t *testing.T) {
	// Every case starts from the same plugin, next to an "outside" folder
	// that an escaping link could really reach.
	base := []treeNode{
		fileNode("file", "x", 0o644),
		fileNode("dir/inner", "x", 0o644),
		fileNode("src/hooks/check", "#!/bin/sh\n", 0o755),
	}
	tests := []struct {
		name  string
		links []treeNode
		bad   string // the link the error must name; "" means safe
		why   string // the reason it gives: absolute, lexical or resolved escape
	}{
		{"no links", nil, "", ""},
		{"to a file", []treeNode{linkNode("l", "file")}, "", ""},
		{"up and back in", []treeNode{linkNode("dir/l", "../file")}, "", ""},
		{"deep up to the root", []treeNode{linkNode("a/b/c/l", "../../../file")}, "", ""},
		{"to the root itself", []treeNode{linkNode("self", ".")}, "", ""},
		{"dangling inside", []treeNode{linkNode("gone", "missing/file")}, "", ""},
		{"to a sibling folder", []treeNode{linkNode("sib", "dir")}, "", ""},
		{"into a sibling folder", []treeNode{linkNode("dir/l", "../src/hooks/check")}, "", ""},
		{"chain inside", []treeNode{linkNode("d", "dir"), linkNode("e", "d/inner")}, "", ""},
		{"hooks folder inside", []treeNode{linkNode("hooks", "src/hooks")}, "", ""},

		{"absolute", []treeNode{linkNode("abs", "/etc/passwd")}, "abs", "absolute target"},
		{"absolute into the plugin", []treeNode{linkNode("abs", "/ROOT/file")}, "abs", "absolute target"},
		{"parent", []treeNode{linkNode("up", "..")}, "up", "points outside the plugin"},
		{"outside", []treeNode{linkNode("out", "../outside")}, "out", "points outside the plugin"},
		{"outside file", []treeNode{linkNode("out", "../outside/secret")}, "out", "points outside the plugin"},
		{"outside from a subfolder", []treeNode{linkNode("dir/out", "../../outside")}, "dir/out", "points outside the plugin"},
		{"out and back", []treeNode{linkNode("back", "../plugin/file")}, "back", "points outside the plugin"},
		{"dangling outside", []treeNode{linkNode("out", "../nowhere")}, "out", "points outside the plugin"},
		// Lexically inside, but d is the root, so d/.. is its parent.
		{"chain through a link", []treeNode{linkNode("d", "."), linkNode("e", "d/../outside")}, "e", "resolves outside the plugin"},
		{"chain through a dangling escape", []treeNode{linkNode("d", "."), linkNode("e", "d/../nowhere")}, "e", "resolves outside the plugin"},
		{"chain of two links", []treeNode{linkNode("up", "dir/.."), linkNode("esc", "up/../outside/secret")}, "esc", "resolves outside the plugin"},
		{"hooks folder outside", []treeNode{linkNode("hooks", "../outside")}, "hooks", "points outside the plugin"},
		{"deep in a subfolder", []treeNode{linkNode("dir/deep/l", "../../../outside")}, "dir/deep/l", "points outside the plugin"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top := t.TempDir()
			root := filepath.Join(top, "plugin")
			plantTree(t, top, fileNode("outside/secret", "secret", 0o644))
			plantTree(t, root, base...)
			for _, l := range tc.links {
				l.data = strings.ReplaceAll(l.data, "/ROOT", root)
				plantTree(t, root, l)
			}
			err := plugins.CheckSymlinks(root)
			if tc.bad == "" {
				if err != nil {
					t.Fatalf("CheckSymlinks: %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckSymlinks = nil, want an error naming %s", tc.bad)
			}
			if !errors.Is(err, plugins.ErrUnsafeSymlink) {
				t.Errorf("error %v does not wrap ErrUnsafeSymlink", err)
			}
			if !strings.Contains(err.Error(), tc.bad+" -> ") || !strings.Contains(err.Error(), "("+tc.why+")") {
				t.Errorf("error %q should name the link %s and say %q", err, tc.bad, tc.why)
			}
		})
	}
}

func TestCheckSymlinksMissingRoot(t *testing.T) {
	err := plugins.CheckSymlinks(filepath.Join(t.TempDir(), "missing"))
	if err == nil || errors.Is(err, plugins.ErrUnsafeSymlink) {
		t.Errorf("CheckSymlinks(missing) = %v, want a plain error", err)
	}
}
