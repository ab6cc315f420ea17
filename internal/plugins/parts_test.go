package plugins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func serverNames(s []Server) string {
	var n []string
	for _, x := range s {
		n = append(n, x.Name+"<"+x.From)
	}
	return strings.Join(n, ",")
}

func TestReadPartsEveryForm(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		// Bare, as 9 of the official marketplace's 14 are.
		".mcp.json": `{"serena": {"command": "uvx", "args": ["serena"]}, "shared": {"command": "a"}}`,
		".claude-plugin/plugin.json": `{"name": "p",
			"mcpServers": ["./more.json", {"inline": {"type": "http", "url": "https://x"}, "shared": {"command": "b"}}],
			"lspServers": "./lsp/servers.json",
			"agents": ["./extra/reviewer.md"],
			"outputStyles": "./styles"}`,
		"more.json":             `{"mcpServers": {"wrapped": {"command": "w"}}}`,
		"lsp/servers.json":      `{"gopls": {"command": "gopls", "extensionToLanguage": {".go": "go"}}}`,
		"agents/helper.md":      "---\nname: helper\n---\nhi\n",
		"agents/README.md":      "not an agent",
		"agents/.hidden.md":     "no",
		"extra/reviewer.md":     "---\nname: reviewer\n---\n",
		"styles/terse.md":       "---\nname: terse\n---\n",
		"output-styles/long.md": "x",
	})
	m, ok, err := ReadClaudeManifest(root)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	p := ReadParts(root, &m)
	if len(p.Problems) != 0 {
		t.Fatalf("problems: %v", p.Problems)
	}
	if got, want := serverNames(p.MCP), "inline<.claude-plugin/plugin.json,serena<.mcp.json,shared<.claude-plugin/plugin.json,wrapped<more.json"; got != want {
		t.Errorf("MCP %s\nwant %s", got, want)
	}
	if got := serverNames(p.LSP); got != "gopls<lsp/servers.json" {
		t.Errorf("LSP %s", got)
	}
	if got := strings.Join(Names(p.Agents), ","); got != "helper,reviewer" {
		t.Errorf("agents %s", got)
	}
	if got := strings.Join(Names(p.OutputStyles), ","); got != "long,terse" {
		t.Errorf("output styles %s", got)
	}
	if n := CountParts(Contents{}, 0, p); n.MCPServers != 4 || n.LSPServers != 1 || n.Agents != 2 || n.OutputStyles != 2 {
		t.Errorf("count %+v", n)
	}
}

// A strict: false marketplace entry is the manifest: its server fields
// replace plugin.json's, as the official marketplace's LSP entries do.
func TestReadPartsEntryManifest(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		".claude-plugin/plugin.json": `{"name": "p", "lspServers": {"old": {"command": "x"}}}`,
		EntryManifestPath:            `{"lspServers": {"gopls": {"command": "gopls", "extensionToLanguage": {".go": "go"}}}}`,
		"LICENSE":                    "x",
	})
	p := ReadFolderParts(root)
	if got := serverNames(p.LSP); got != "gopls<"+EntryManifestPath {
		t.Errorf("LSP %s", got)
	}
	if p.Empty() {
		t.Error("an LSP-only plugin is empty")
	}
}

// Every file is the repository's: a link out of the plugin, a name that
// could travel into a file name, an entry that is not an object are
// problems, never read or written anywhere.
func TestReadPartsRefusesWhatIsUnsafe(t *testing.T) {
	root := t.TempDir()
	secret := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(secret, []byte(`{"mcpServers": {"leak": {"command": "cat"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, map[string]string{
		".claude-plugin/plugin.json": `{"name": "p", "mcpServers": ["../outside.json", "./missing.json"], "lspServers": {"../x": {"command": "a"}, "ok": "not an object"}}`,
		"agents/bad name!.md":        "x",
	})
	if err := os.Symlink(secret, filepath.Join(root, ".mcp.json")); err != nil {
		t.Fatal(err)
	}
	m, _, err := ReadClaudeManifest(root)
	if err != nil {
		t.Fatal(err)
	}
	p := ReadParts(root, &m)
	if len(p.MCP)+len(p.LSP)+len(p.Agents) != 0 {
		t.Errorf("read %s | %s | %v", serverNames(p.MCP), serverNames(p.LSP), Names(p.Agents))
	}
	all := strings.Join(p.Problems, "\n")
	for _, want := range []string{".mcp.json: symlink to", `"../outside.json"`, "missing.json, which is not in the plugin", `server name "../x" is not safe`, `server "ok" is not an object`, `name "bad name!" is not safe`} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%s", want, all)
		}
	}
}
