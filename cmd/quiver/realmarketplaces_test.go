package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/gitserver"
	"github.com/quiver-cli/quiver/internal/plugins/marketplace"
	"github.com/quiver-cli/quiver/internal/testkit"
)

// TestRealMarketplaces adds marketplaces nobody here wrote, from public
// snapshots served by the loopback git server (QUIVER_TEST_SNAPSHOTS, laid
// out as in TestRealClaudePlugins; skipped without it): search lists
// exactly the entries of each marketplace.json, and every relative-path
// entry (of claude-plugins-official, as the issue asks, and of
// wshobson/agents) that carries any part installs, and plugin show counts
// its servers and agents (SPEC §16). A fresh project with only the lock then installs them all again,
// hash for hash. The counts are logged (go test -v).
func TestRealMarketplaces(t *testing.T) {
	snaps := os.Getenv("QUIVER_TEST_SNAPSHOTS")
	if snaps == "" {
		t.Skip("QUIVER_TEST_SNAPSHOTS is not set")
	}
	type market struct {
		repo, snapshot, dir string
		doc                 marketplaceDoc
	}
	markets := []*market{
		{repo: "anthropics/claude-plugins-official"},
		{repo: "wshobson/agents"},
	}
	for _, m := range markets {
		m.snapshot = filepath.Join(snaps, strings.Replace(m.repo, "/", "+", 1), "repo")
		if _, err := os.Stat(m.snapshot); err != nil {
			t.Skipf("snapshot %s is missing", m.snapshot)
		}
	}
	srv := gitserver.New(t, gitserver.Options{})
	for _, m := range markets {
		m.dir = testkit.ExportHEAD(t, m.snapshot)
		if _, err := srv.Commit(m.repo, "main", m.dir, "snapshot"); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarness(t, srv)

	// Every entry of each marketplace.json, whatever quiver thinks of it.
	total := 0
	for _, m := range markets {
		var doc marketplaceDoc
		data, err := os.ReadFile(filepath.Join(m.dir, filepath.FromSlash(marketplace.File)))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", m.repo, err)
		}
		m.doc = doc
		h.must("marketplace", "add", m.repo)
		var found []marketplace.Found
		r := h.must("search", "--json", "--marketplace", doc.Name)
		if err := json.Unmarshal([]byte(r.stdout), &found); err != nil {
			t.Fatalf("search --json: %v\n%s", err, r)
		}
		if len(found) != len(doc.Plugins) {
			t.Errorf("%s: search lists %d entries, marketplace.json has %d", m.repo, len(found), len(doc.Plugins))
		}
		for _, f := range found {
			if f.Reason != "" {
				t.Errorf("%s: entry %s cannot be installed: %s", m.repo, f.Name, f.Reason)
			}
		}
		t.Logf("%s (%s): %d entries, search lists %d", m.repo, doc.Name, len(doc.Plugins), len(found))
		total += len(doc.Plugins)
	}
	var all []marketplace.Found
	if err := json.Unmarshal([]byte(h.must("search", "--json").stdout), &all); err != nil {
		t.Fatal(err)
	}
	if len(all) != total {
		t.Errorf("search over both lists %d entries, want %d", len(all), total)
	}

	// Each relative-path entry, judged from its folder in the snapshot
	// and its own entry, then installed: every one that carries any part
	// installs (SPEC §16), and plugin show counts what it judged.
	for _, m := range markets {
		installed, refused, byPart := 0, []string{}, map[string]int{}
		for _, e := range m.doc.Plugins {
			var rel string
			if json.Unmarshal(e.Source, &rel) != nil {
				continue
			}
			folder := filepath.Join(m.dir, filepath.FromSlash(strings.TrimPrefix(rel, "./")))
			usable, carries := judgeFolder(t, folder, e.Fields)
			r := h.run("", "plugin", "add", e.Name+"@"+m.doc.Name)
			if reason := cleanOutcome(r); reason != "" {
				t.Errorf("plugin add %s: %s\n%s", e.Name, reason, r)
				continue
			}
			switch {
			case (usable || len(carries) > 0) && r.code != 0:
				t.Errorf("%s carries %v (hooks, skills or commands: %v) but was refused:\n%s", e.Name, carries, usable, r)
				continue
			case !usable && len(carries) == 0 && r.code == 0:
				t.Errorf("%s carries nothing at all but installed:\n%s", e.Name, r)
				continue
			case r.code != 0:
				refused = append(refused, e.Name)
				continue
			}
			installed++
			var shown struct {
				Parts map[string]int `json:"parts"`
			}
			out := h.must("plugin", "show", "--json", m.doc.Name+"/"+e.Name)
			if err := json.Unmarshal([]byte(out.stdout), &shown); err != nil {
				t.Fatalf("plugin show --json: %v\n%s", err, out)
			}
			for _, what := range carries {
				key := map[string]string{"MCP server": "mcp_servers", "LSP server": "lsp_servers", "agent": "agents"}[what]
				if shown.Parts[key] == 0 {
					t.Errorf("%s carries %s, and plugin show counts none: %v", e.Name, what, shown.Parts)
				}
			}
			for k, n := range shown.Parts {
				byPart[k] += n
			}
		}
		t.Logf("%s relative-path entries: %d installed, %d refused %v; parts %v", m.doc.Name, installed, len(refused), refused, byPart)
	}
	if r := h.run("", "plugin", "verify"); r.code != 0 {
		t.Errorf("the installed plugins do not verify:\n%s", r)
	}
	if r := h.run("", "hook", "list", "--all", "--json"); r.code != 0 {
		t.Errorf("hook list over the installed plugins fails:\n%s", r)
	}

	// A teammate's clone: the lock alone brings back every plugin and
	// both marketplaces, each file as it was.
	lock, err := os.ReadFile(h.scope.LockPath())
	if err != nil {
		t.Fatal(err)
	}
	clone := newHarness(t, srv)
	os.MkdirAll(clone.scope.Root, 0o755)
	if err := os.WriteFile(clone.scope.LockPath(), lock, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := clone.run("", "plugin", "install"); r.code != 0 {
		t.Errorf("plugin install from the lock:\n%s", r)
	}
	if problems := lockMatchesDisk(clone.scope); len(problems) > 0 {
		t.Errorf("after plugin install from the lock: %v", problems)
	}
}

// marketplaceDoc is a marketplace.json as its authors wrote it.
type marketplaceDoc struct {
	Name    string
	Plugins []docEntry
}

type docEntry struct {
	Name   string
	Source json.RawMessage
	Fields map[string]json.RawMessage
}

func (e *docEntry) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &e.Fields); err != nil {
		return err
	}
	json.Unmarshal(e.Fields["name"], &e.Name)
	e.Source = e.Fields["source"]
	return nil
}

// judgeFolder says, independently of quiver's scan, whether a plugin
// folder (with its marketplace entry) carries hooks, skills or commands,
// and which other parts it carries.
func judgeFolder(t *testing.T, dir string, entry map[string]json.RawMessage) (usable bool, carries []string) {
	t.Helper()
	manifest := map[string]json.RawMessage{}
	if data, err := os.ReadFile(filepath.Join(dir, ".claude-plugin", "plugin.json")); err == nil {
		json.Unmarshal(data, &manifest)
	}
	for _, k := range []string{"hooks", "skills", "commands"} {
		if _, ok := manifest[k]; ok {
			usable = true
		}
	}
	strict := true
	if v, ok := entry["strict"]; ok {
		json.Unmarshal(v, &strict)
	}
	if !strict {
		for _, k := range []string{"hooks", "skills", "commands"} {
			if _, ok := entry[k]; ok {
				usable = true
			}
		}
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		parts := strings.Split(rel, "/")
		switch {
		case len(parts) == 2 && parts[0] == "hooks" && !d.IsDir():
			usable = true // hooks.json or an executable's folder
		case len(parts) == 3 && parts[0] == "skills" && parts[2] == "SKILL.md":
			usable = true
		case len(parts) >= 2 && (parts[0] == "commands" || parts[0] == "recipes") && strings.HasSuffix(rel, ".md"):
			usable = true
		}
		return nil
	})
	has := func(key string) bool { _, ok := entry[key]; _, ok2 := manifest[key]; return ok || ok2 }
	if _, err := os.Stat(filepath.Join(dir, ".mcp.json")); err == nil || has("mcpServers") {
		carries = append(carries, "MCP server")
	}
	if _, err := os.Stat(filepath.Join(dir, ".lsp.json")); err == nil || has("lspServers") {
		carries = append(carries, "LSP server")
	}
	if agents, _ := filepath.Glob(filepath.Join(dir, "agents", "*.md")); len(agents) > 0 || has("agents") {
		carries = append(carries, "agent")
	}
	return usable, carries
}
