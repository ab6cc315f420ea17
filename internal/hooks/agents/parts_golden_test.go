package agents

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

var demoName, _ = plugins.ParseName("acme/demo")

// demoPlugin writes a Claude-format plugin into the user's scope of w: a
// stdio and a remote MCP server, a subagent, a command that uses the
// plugin's root, a skill.
func demoPlugin(t *testing.T, w *Wirer) string {
	t.Helper()
	dir := w.Layout.Global.PluginDir(demoName)
	files := map[string]string{
		".claude-plugin/plugin.json": `{"name": "demo"}`,
		".mcp.json": `{"mcpServers": {
  "probe": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/probe", "args": ["--data", "${CLAUDE_PLUGIN_DATA}"], "env": {"TOKEN": "${PROBE_TOKEN}"}},
  "docs": {"type": "http", "url": "https://docs.example/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}
}}`,
		"commands/hello.md":    "---\ndescription: Say hello\nargument-hint: NAME\n---\nRead ${CLAUDE_PLUGIN_ROOT}/notes.txt, then greet $ARGUMENTS.\n",
		"agents/helper.md":     "---\nname: helper\ndescription: Helps\ntools: Read, Grep, Bash(git:*)\nmodel: inherit\ncolor: blue\n---\nYou help.\n",
		"skills/tidy/SKILL.md": "---\nname: tidy\ndescription: Tidies\n---\nTidy.\n",
		"notes.txt":            "notes\n",
	}
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestPartsGolden installs Gemini and Cursor in the user's scope with a
// plugin carrying every part and the user's own content in every file
// quiver writes into: each file is the golden one (the plugin's folder
// written as PLUGIN), and agent remove gives every file back exactly.
func TestPartsGolden(t *testing.T) {
	type file struct{ rel, mine string }
	cases := map[*Agent][]file{
		Gemini: {
			{".gemini/settings.json", "{\n  // mine\n  \"theme\": \"dark\",\n  \"mcpServers\": {\"own\": {\"command\": \"own\"}}\n}\n"},
			{".gemini/commands/hello.toml", ""},
			{".gemini/agents/helper.md", ""},
			{".gemini/agents/mine.md", "---\nname: mine\ndescription: Mine\n---\n"},
		},
		Cursor: {
			{".cursor/mcp.json", "{\"mcpServers\": {\"own\": {\"url\": \"https://own.example\"}}}\n"},
			{".cursor/commands/hello.md", ""},
			{".cursor/agents/helper.md", ""},
		},
	}
	for ag, files := range cases {
		t.Run(ag.Name, func(t *testing.T) {
			w := newWirer(t)
			dir := demoPlugin(t, w)
			site := w.Site(ag, true)
			for _, f := range files {
				if f.mine != "" {
					p := filepath.Join(w.Home, filepath.FromSlash(f.rel))
					os.MkdirAll(filepath.Dir(p), 0o755)
					os.WriteFile(p, []byte(f.mine), 0o644)
				}
			}
			if _, err := w.Install(t.Context(), site, InstallOptions{Command: "quiver"}); err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				got, err := os.ReadFile(filepath.Join(w.Home, filepath.FromSlash(f.rel)))
				if err != nil {
					t.Errorf("%s: %v", f.rel, err)
					continue
				}
				got = bytes.ReplaceAll(got, []byte(dir), []byte("PLUGIN"))
				got = bytes.ReplaceAll(got, []byte(w.Layout.Global.DataDir(demoName)), []byte("DATA"))
				golden := filepath.Join("testdata", "parts", ag.Name, strings.ReplaceAll(strings.TrimPrefix(f.rel, "."), "/", "_"))
				if *update {
					os.MkdirAll(filepath.Dir(golden), 0o755)
					os.WriteFile(golden, got, 0o644)
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s:\n%s\nwant (%s):\n%s", f.rel, got, golden, want)
				}
			}
			if _, err := w.Remove(t.Context(), site); err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				got, err := os.ReadFile(filepath.Join(w.Home, filepath.FromSlash(f.rel)))
				switch {
				case f.mine == "" && err == nil:
					t.Errorf("%s: left after agent remove:\n%s", f.rel, got)
				case f.mine != "" && string(got) != f.mine:
					t.Errorf("%s after agent remove:\n%s\nwant the user's:\n%s", f.rel, got, f.mine)
				}
			}
		})
	}
}
