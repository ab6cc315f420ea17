package agents

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
)

// TestInstalledWarnings: install warns, in order, of a quiver the agent
// cannot run, what did not reach the agent, others' entries in quiver's
// own file and the agent's gate; a clean install warns of nothing.
func TestInstalledWarnings(t *testing.T) {
	w := newWirer(t)
	ag, err := Lookup("claude")
	if err != nil {
		t.Fatal(err)
	}
	site := w.Site(ag, false)
	res := Installed{Missed: []string{"acme/lsp: no LSP"}, Foreign: 2, Gate: "trust the folder"}
	got := res.Warnings(site, InstallOptions{Command: filepath.Join(t.TempDir(), "quiver")})
	want := []string{"is not an executable file; the agent will not reach quiver", "Claude Code: acme/lsp: no LSP", "holds 2 hook entries quiver did not write", "quiver: warning: trust the folder"}
	if len(got) != len(want) {
		t.Fatalf("warnings %q, want %d", got, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], "quiver: warning: ") || !strings.Contains(got[i], want[i]) {
			t.Errorf("warning %d: %q, want it to say %q", i, got[i], want[i])
		}
	}
	if got := (Installed{}).Warnings(site, InstallOptions{Command: "sh"}); len(got) != 0 {
		t.Errorf("a clean install warns %q", got)
	}
}

// TestRowCellsAndNotes: agent list's table says yes or no and counts
// links; under it, rows with a gate are named, and those whose agent
// runs handlers quiver handed it.
func TestRowCellsAndNotes(t *testing.T) {
	rows := []Row{
		{Agent: "codex", Location: "local", Config: ".codex/hooks.json", Wired: true, Links: 3, Gate: "trust the project in Codex"},
		{Agent: "claude", Location: "global", Config: "settings.json"},
		{Agent: "claude", Location: "local", Config: ".claude/settings.json", Wired: true, Native: 2},
	}
	if got := rows[0].Cells(); !slices.Equal(got, []string{"codex", "local", ".codex/hooks.json", "yes", "3"}) || len(got) != len(RowHeader) {
		t.Errorf("cells %q", got)
	}
	if got := rows[1].Cells(); got[3] != "no" || got[4] != "0" {
		t.Errorf("cells %q", got)
	}
	if got := Notes(rows); !slices.Equal(got, []string{"codex (local): trust the project in Codex",
		"claude (local): runs 2 handlers itself (prompt, agent, mcp_tool) that quiver wrote into .claude/settings.json"}) {
		t.Errorf("notes %q", got)
	}
}

// TestInstalledLines: install says whether it wired the agent or found it
// wired, which command each event calls, and where it linked skills.
func TestInstalledLines(t *testing.T) {
	w := newWirer(t)
	site := w.Site(Claude, false)
	o := InstallOptions{Command: "quiver"}
	links := []wiring.Link{
		{Path: ".claude/skills/tidy", Target: "../../x", Item: "acme/demo/tidy"},
		{Path: ".claude/skills/lint", Target: "../../y", Item: "acme/demo/lint"},
		{Path: ".claude/agents/helper.md", Item: "acme/demo/helper"},
	}
	files := []wiring.FileRecord{{Path: filepath.Join(site.Base, ".mcp.json"), Members: []wiring.Owned{
		{Keys: []string{"mcpServers", "a"}}, {Keys: []string{"mcpServers", "b"}}, {Keys: []string{"lspServers", "c"}}}}}
	got := Installed{Changed: true, Links: links, Files: files, Events: 7}.Lines(site, o)
	want := []string{
		fmt.Sprintf("Wired Claude Code (%s): 7 events call quiver hook run --format claude EVENT", site.Config),
		"Linked 2 skills into .claude/skills",
		"Copied 1 subagent into .claude/agents",
		"Wrote 2 MCP servers and 1 LSP server into .mcp.json",
	}
	if !slices.Equal(got, want) {
		t.Errorf("lines\n%q\nwant\n%q", got, want)
	}
	if got := (Installed{}).Lines(site, o); len(got) != 1 || !strings.HasPrefix(got[0], "Already wired: Claude Code (") {
		t.Errorf("unchanged: %q", got)
	}
}

// TestRemoved: agent remove says it removed quiver, or that it was not
// wired, naming the configuration.
func TestRemoved(t *testing.T) {
	site := newWirer(t).Site(Gemini, true)
	if got := Removed(site, true); got != "Removed quiver from Gemini CLI ("+site.Config+")" {
		t.Errorf("removed: %q", got)
	}
	if got := Removed(site, false); got != "Gemini CLI was not wired in "+site.Config {
		t.Errorf("not wired: %q", got)
	}
}
