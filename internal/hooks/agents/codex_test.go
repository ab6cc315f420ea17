package agents

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// codexWirer is a Wirer whose scopes hold one plugin each, with the MCP
// servers of testdata/codex/*.mcp.json: acme/tools for the user, acme/proj
// for the (trusted) project.
func codexWirer(t *testing.T) *Wirer {
	t.Helper()
	w := newWirer(t)
	plugin := func(global bool, name, mcp string) plugins.Plugin {
		n, err := plugins.ParseName(name)
		if err != nil {
			t.Fatal(err)
		}
		s := w.Layout.Scope(global)
		p := plugins.Plugin{Name: n, Scope: s, Dir: s.PluginDir(n)}
		data, err := os.ReadFile(filepath.Join("testdata", "codex", mcp))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(p.Dir, 0o755)
		os.WriteFile(filepath.Join(p.Dir, ".mcp.json"), data, 0o644)
		return p
	}
	d := Docs{Trusted: true, Plugins: map[plugins.Location][]plugins.Plugin{
		plugins.Global: {plugin(true, "acme/tools", "tools.mcp.json")},
		plugins.Local:  {plugin(false, "acme/proj", "proj.mcp.json")},
	}}
	w.Docs = func() (Docs, error) { return d, nil }
	return w
}

// placeholders makes a file written under temporary folders comparable
// with its golden copy.
func placeholders(w *Wirer, data []byte) []byte {
	data = bytes.ReplaceAll(data, []byte(w.Layout.ProjectDir), []byte("$PROJECT"))
	return bytes.ReplaceAll(data, []byte(w.Home), []byte("$HOME"))
}

// TestCodexMCPUserScope: the user's config.toml gets one table per
// server Codex can take, in its own terms, after everything of the
// user's; a second install changes nothing, and agent remove gives the
// file back byte for byte.
func TestCodexMCPUserScope(t *testing.T) {
	w := codexWirer(t)
	site := w.Site(Codex, true)
	config := filepath.Join(w.Home, ".codex", "config.toml")
	before, err := os.ReadFile(filepath.Join("testdata", "codex", "config-before.toml"))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(config), 0o755)
	os.WriteFile(config, before, 0o600)
	var warned []string
	w.Warn = func(m string) { warned = append(warned, m) }

	res, err := w.Install(t.Context(), site, InstallOptions{Command: "quiver"})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(config)
	if !bytes.HasPrefix(after, before) {
		t.Fatalf("the user's part changed:\n%s", after)
	}
	golden(t, filepath.Join("testdata", "codex", "config-user-after.toml"), placeholders(w, after))
	if fi, _ := os.Stat(config); fi.Mode().Perm() != 0o600 {
		t.Errorf("install changed the file's mode to %v", fi.Mode().Perm())
	}
	slices.Sort(res.Missed)
	wantMissed := []string{
		"MCP server keyed of acme/tools: its header X-Key needs a variable inside other text, which Codex cannot expand",
		"MCP server stream of acme/tools: Codex takes streamable HTTP servers, not sse",
	}
	if !slices.Equal(res.Missed, wantMissed) {
		t.Errorf("missed %q\nwant %q", res.Missed, wantMissed)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "mcp_servers.acme-tools-taken is already set, not by quiver") {
		t.Errorf("warnings: %q", warned)
	}
	if res.Gate != "" {
		t.Errorf("gate at user scope: %s", res.Gate)
	}

	if _, err := w.Install(t.Context(), site, InstallOptions{Command: "quiver"}); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(config); !bytes.Equal(again, after) {
		t.Errorf("a second install changed the file:\n%s", again)
	}
	if _, err := w.Remove(t.Context(), site); err != nil {
		t.Fatal(err)
	}
	if back, _ := os.ReadFile(config); !bytes.Equal(back, before) {
		t.Errorf("after remove:\n%s\nwant the original:\n%s", back, before)
	}
}

// TestCodexMCPProjectScope: a project's servers start only through quiver
// mcp exec, with QUIVER_HOME and their variables passed through; the
// file quiver created goes again; Codex's own trust gate is reported,
// never opened.
func TestCodexMCPProjectScope(t *testing.T) {
	w := codexWirer(t)
	site := w.Site(Codex, false)
	config := filepath.Join(w.Layout.ProjectDir, ".codex", "config.toml")
	codexUser := filepath.Join(w.Home, ".codex", "config.toml")

	res, err := w.Install(t.Context(), site, InstallOptions{Command: "/opt/quiver"})
	if err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "codex", "config-project-after.toml"), placeholders(w, after))
	if !strings.Contains(res.Gate, "run codex in the project once and trust it") {
		t.Errorf("no word of Codex's trust gate: %q", res.Gate)
	}
	if _, err := os.Stat(codexUser); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("quiver wrote Codex's user configuration: %v", err)
	}

	// The user trusts the project in Codex: nothing waits any more.
	os.MkdirAll(filepath.Dir(codexUser), 0o755)
	os.WriteFile(codexUser, []byte("[projects."+tomlQuote(w.Layout.ProjectDir)+"]\ntrust_level = \"trusted\"\n"), 0o644)
	rows, err := w.Rows()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Gate != "" {
			t.Errorf("%s %s: gate %q once trusted", r.Agent, r.Location, r.Gate)
		}
	}
	// CODEX_HOME elsewhere: that is where Codex looks for trust.
	elsewhere := t.TempDir()
	w.Getenv = func(k string) string {
		if k == "CODEX_HOME" {
			return elsewhere
		}
		return ""
	}
	if g := w.Gate(site, mustRecord(t, site).Agents["codex"]); g == "" {
		t.Error("CODEX_HOME without the trust: no gate")
	}
	if g := w.Gate(w.Site(Codex, true), mustRecord(t, site).Agents["codex"]); !strings.Contains(g, "CODEX_HOME is "+elsewhere) {
		t.Errorf("user scope with CODEX_HOME elsewhere: %q", g)
	}

	if _, err := w.Remove(t.Context(), site); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(config); !errors.Is(err, os.ErrNotExist) {
		data, _ := os.ReadFile(config)
		t.Errorf("remove left the file quiver created:\n%s", data)
	}
}

func mustRecord(t *testing.T, site Site) *wiring.Record {
	t.Helper()
	rec, err := wiring.ReadRecord(site.Record)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// tomlQuote quotes a path as a TOML key.
func tomlQuote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// TestCodexMCPRefusesLinks: a project that commits .codex/config.toml as
// a link (to the user's own, say) is not written through.
func TestCodexMCPRefusesLinks(t *testing.T) {
	w := codexWirer(t)
	site := w.Site(Codex, false)
	other := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(other, []byte("model = \"m\"\n"), 0o644)
	os.MkdirAll(filepath.Join(w.Layout.ProjectDir, ".codex"), 0o755)
	os.Symlink(other, filepath.Join(w.Layout.ProjectDir, ".codex", "config.toml"))
	var warned []string
	w.Warn = func(m string) { warned = append(warned, m) }
	if _, err := w.Install(t.Context(), site, InstallOptions{Command: "quiver"}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(other); string(data) != "model = \"m\"\n" {
		t.Errorf("wrote through a link: %s", data)
	}
	if len(warned) == 0 || !strings.Contains(strings.Join(warned, "\n"), "not a regular file") {
		t.Errorf("no word of the link: %q", warned)
	}
}

// TestCodexTrustsWorktrees: Codex takes the trust of a linked worktree's
// main repository (measured with codex 0.169), and so does quiver.
func TestCodexTrustsWorktrees(t *testing.T) {
	main, wt := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+main+"/.git/worktrees/feature\n"), 0o644)
	config := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(config, []byte("[projects."+tomlQuote(main)+"]\ntrust_level = \"trusted\"\n"), 0o644)
	if !codexTrusts(config, wt) {
		t.Error("the main repository's trust does not cover its worktree")
	}
	os.WriteFile(config, []byte("[projects."+tomlQuote(filepath.Dir(main))+"]\ntrust_level = \"trusted\"\n"), 0o644)
	if codexTrusts(config, main) {
		t.Error("a parent folder's trust counted (Codex does not count it)")
	}
	os.WriteFile(config, []byte("[projects."+tomlQuote(main)+"]\ntrust_level = \"untrusted\"\n"), 0o644)
	if codexTrusts(config, main) {
		t.Error("untrusted counted as trusted")
	}
}
