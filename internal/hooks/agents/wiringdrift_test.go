package agents

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/plugins/audit"
)

// driftOf runs the project scope's DriftCheck and renders its findings
// as "rule file" lines, files relative to the project.
func driftOf(t *testing.T, w *Wirer) (lines []string, messages string) {
	t.Helper()
	c := w.DriftCheck(*w.Layout.Local)
	r := audit.NewReport([]audit.Check{c}, audit.Options{Root: w.Layout.ProjectDir})
	for _, f := range r.Checks[0].Findings {
		if f.Severity != audit.Warning && f.Rule != RuleAgentSilenced {
			t.Errorf("%s is %s: every drift of an agent's files is a warning, but what silences a guard", f.Rule, f.Severity)
		}
		lines = append(lines, f.Rule+" "+f.File)
		messages += f.Message + "\n"
	}
	return lines, messages
}

// TestDriftCheck wires each agent, then changes its configuration the
// ways a person (or a repository) might: the check names each change,
// and nothing when the file is as quiver wrote it.
func TestDriftCheck(t *testing.T) {
	for _, ag := range All() {
		t.Run(ag.Name, func(t *testing.T) {
			w := newWirer(t)
			site := w.Site(ag, false)
			if _, err := w.Install(t.Context(), site, InstallOptions{Command: "quiver"}); err != nil {
				t.Fatal(err)
			}
			rel := filepath.ToSlash(ag.ConfigLocal)
			if got, _ := driftOf(t, w); len(got) != 0 {
				t.Fatalf("as installed: %q", got)
			}
			clean, _ := os.ReadFile(site.Config)
			write := func(data []byte) {
				t.Helper()
				if err := os.WriteFile(site.Config, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			expect := func(what, want, inMessage string) {
				t.Helper()
				got, msg := driftOf(t, w)
				if strings.Join(got, "\n") != want || !strings.Contains(msg, inMessage) {
					t.Errorf("%s: %q (%s), want %q saying %q", what, got, msg, want, inMessage)
				}
				write(clean)
			}

			if ag.hookFile != nil {
				write(append(clean, "\n// and something of the user's\n"...))
				// An edited program may run no guard: silenced too.
				expect("program edited", RuleAgentEntriesChanged+" "+rel+"\n"+RuleAgentSilenced+" "+rel, "not the one quiver wrote")
			} else {
				// One event's entry removed: lost.
				ev := ag.Events()[0]
				doc, err := wiring.ParseDoc(clean, ag.Syntax)
				if err != nil {
					t.Fatal(err)
				}
				if n, err := doc.Remove(ag.keys(ev), func(_ int, el json.RawMessage) bool { return wiring.CommandsRun(el, ag.Writes) }); err != nil || n == 0 {
					t.Fatalf("remove %s's entry: %d, %v", ev.Native, n, err)
				}
				write(doc.Bytes())
				expect("an entry removed", RuleAgentEntriesMissing+" "+rel, "no entry calling quiver for "+ev.Native+";")

				// One entry edited, still quiver's: changed.
				doc, _ = wiring.ParseDoc(clean, ag.Syntax)
				elems, _ := doc.Array(ag.keys(ev)...)
				var el map[string]any
				json.Unmarshal(elems[0], &el)
				el["x-edited"] = true
				edited, _ := json.Marshal(el)
				if err := doc.Replace(ag.keys(ev), 0, edited); err != nil {
					t.Fatal(err)
				}
				write(doc.Bytes())
				expect("an entry edited", RuleAgentEntriesChanged+" "+rel, "not as quiver writes them")

				// Only a timeout differs: what the installed hooks ask
				// for changes without a rewrite (a pull, a trust), and
				// decides which hooks finish, not which run.
				doc, _ = wiring.ParseDoc(clean, ag.Syntax)
				var timed map[string]any
				json.Unmarshal(elems[0], &timed)
				setTimeouts(timed, 1)
				shorter, _ := json.Marshal(timed)
				if err := doc.Replace(ag.keys(ev), 0, shorter); err != nil {
					t.Fatal(err)
				}
				write(doc.Bytes())
				expect("a timeout changed", "", "")

				// Every entry gone.
				write([]byte("{}\n"))
				expect("all entries removed", RuleAgentEntriesMissing+" "+rel, "no longer calls quiver (quiver wired it); quiver agent install "+ag.Name+" writes")
			}

			os.Remove(site.Config)
			expect("the file removed", RuleAgentConfigMissing+" "+rel, "configuration is gone")
		})
	}
}

// TestDriftCheckMembersAndLinks: a member quiver recorded writing into
// an agent's file is reported when gone, and so is a link it keeps in
// the agent's folder, each at its file; a record with other agents' or
// unknown paths reads nothing else.
func TestDriftCheckMembersAndLinks(t *testing.T) {
	w := newWirer(t)
	site := w.Site(Gemini, false)
	if _, err := w.Install(t.Context(), site, InstallOptions{Command: "/usr/local/bin/quiver", AllowRewrites: true}); err != nil {
		t.Fatal(err)
	}
	rec, err := wiring.ReadRecord(site.Record)
	if err != nil {
		t.Fatal(err)
	}
	entry := rec.Agents["gemini"]
	entry.Files = []wiring.FileRecord{
		{Path: site.Config, Members: []wiring.Owned{{Keys: []string{"mcpServers", "acme-guard-db"}, Hash: "sha256:x"}}},
		{Path: filepath.Join(w.Home, "elsewhere.json"), Members: []wiring.Owned{{Keys: []string{"x"}, Hash: "sha256:x"}}},
	}
	entry.Links = []wiring.Link{
		{Path: ".gemini/skills/review", Target: "/nowhere/review", Item: "acme/guard/review"},
		{Path: "elsewhere/review", Target: "/nowhere/review", Item: "acme/guard/review"},
	}
	if err := rec.Write(site.Record); err != nil {
		t.Fatal(err)
	}
	got, msg := driftOf(t, w)
	want := []string{RuleAgentMemberChanged + " .gemini/settings.json", RuleAgentLinkChanged + " .gemini/skills/review"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("findings %q, want %q", got, want)
	}
	if !strings.Contains(msg, "mcpServers.acme-guard-db, which quiver wrote for Gemini CLI, is gone") {
		t.Errorf("messages:\n%s", msg)
	}

	// The fix names the command quiver was wired with.
	os.Remove(site.Config)
	if _, msg := driftOf(t, w); !strings.Contains(msg, "quiver agent install gemini --command /usr/local/bin/quiver --allow-rewrites writes them again") {
		t.Errorf("messages:\n%s", msg)
	}
	c := w.DriftCheck(*w.Layout.Local)
	if c.Message != "1 wired agent, 1 changed since quiver wired them" || c.Name != "agents" {
		t.Errorf("check %q: %q", c.Name, c.Message)
	}
	if g := w.DriftCheck(w.Layout.Global); len(g.Findings) != 0 || g.Message != "0 wired agents, 0 changed since quiver wired them" {
		t.Errorf("the global scope, where nothing is wired: %+v", g)
	}
}

// setTimeouts sets every field named like a timeout in v to n.
func setTimeouts(v any, n int) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if strings.Contains(strings.ToLower(k), "timeout") {
				x[k] = n
				continue
			}
			setTimeouts(e, n)
		}
	case []any:
		for _, e := range x {
			setTimeouts(e, n)
		}
	}
}
