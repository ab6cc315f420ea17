package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/gitserver"
	"github.com/quiver-cli/quiver/internal/modelserver"
)

// skillsMarket is a marketplace whose entries name the whole repository
// and list some of its skills (as anthropics/skills does), plus a plugin
// of its own whose skill has the name of one of the repository's.
func skillsMarket(t *testing.T) string {
	dir := t.TempDir()
	skill := func(rel, name, desc string) {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(rel), "SKILL.md"), "---\nname: "+name+"\ndescription: "+desc+"\n---\nDo it.\n")
	}
	skill("skills/alpha", "alpha", "ALPHA-SKILL-DESCRIPTION")
	skill("skills/beta", "beta", "BETA-SKILL-DESCRIPTION")
	skill("skills/gamma", "gamma", "GAMMA-SKILL-DESCRIPTION")
	skill("other/skills/alpha", "alpha", "OTHER-ALPHA-SKILL-DESCRIPTION")
	writeFile(t, filepath.Join(dir, ".claude-plugin", "marketplace.json"), `{"name": "kit", "owner": {"name": "acme"}, "plugins": [
  {"name": "first", "source": "./", "strict": false, "skills": ["./skills/alpha"]},
  {"name": "second", "source": "./", "strict": false, "skills": ["./skills/beta"]},
  {"name": "other", "source": "./other"}
]}`)
	return dir
}

// TestRealAgentsGetEachEntrysSkills: an entry's skills list is what it
// carries in Claude Code too (its view holds those skills, not the whole
// skills/ folder: issue 44 item 19), and two skills named alike (alpha of
// kit/first and of kit/other) both reach Gemini CLI, which keys skills on
// the name inside SKILL.md (item 20).
func TestRealAgentsGetEachEntrysSkills(t *testing.T) {
	claude := os.Getenv("QUIVER_TEST_CLAUDE")
	gemini := os.Getenv("QUIVER_TEST_GEMINI")
	if claude == "" && gemini == "" {
		t.Skip("neither QUIVER_TEST_CLAUDE nor QUIVER_TEST_GEMINI is set")
	}
	srv := gitserver.New(t, gitserver.Options{})
	if _, err := srv.Commit("acme/kit", "main", skillsMarket(t), "kit"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, srv)
	h.must("marketplace", "add", "acme/kit")
	h.must("plugin", "add", "first@kit", "second@kit", "other@kit")
	if claude != "" {
		t.Run("claude", func(t *testing.T) {
			model := startModel(t)
			h.must("agent", "install", "claude", "--command", os.Args[0])
			out := runAgent(t, h, agentEnv(h, claudeVars(model.URL)...), claude, "-p", "hello", "--output-format", "stream-json", "--verbose")
			sent := model.All()
			for _, want := range []string{"ALPHA-SKILL-DESCRIPTION", "BETA-SKILL-DESCRIPTION", "OTHER-ALPHA-SKILL-DESCRIPTION"} {
				if !strings.Contains(sent, want) {
					t.Errorf("Claude did not offer %s\n%s", want, out)
				}
			}
			if strings.Contains(sent, "GAMMA-SKILL-DESCRIPTION") {
				t.Error("Claude was offered gamma, which no entry lists")
			}
			if n := strings.Count(sent, "BETA-SKILL-DESCRIPTION"); n > strings.Count(sent, "OTHER-ALPHA-SKILL-DESCRIPTION") {
				t.Errorf("beta is offered more often (%d) than a skill one entry carries: the entry of first carries it too", n)
			}
			h.must("agent", "remove", "claude")
		})
	}
	if gemini != "" {
		t.Run("gemini", func(t *testing.T) {
			model := startModel(t)
			writeFile(t, filepath.Join(h.home, ".gemini", "settings.json"), `{"security": {"auth": {"selectedType": "gemini-api-key"}}}`)
			h.must("agent", "install", "gemini", "--command", os.Args[0])
			env := agentEnv(h, "GEMINI_API_KEY=x", "GOOGLE_GEMINI_BASE_URL="+model.URL, "GEMINI_CLI_TRUST_WORKSPACE=true")
			out := runAgent(t, h, env, gemini, "-p", "hello", "--output-format", "stream-json", "-m", "gemini-2.5-flash")
			sent := model.All()
			for _, want := range []string{"ALPHA-SKILL-DESCRIPTION", "BETA-SKILL-DESCRIPTION", "OTHER-ALPHA-SKILL-DESCRIPTION"} {
				if !strings.Contains(sent, want) {
					t.Errorf("Gemini did not offer %s\n%s", want, out)
				}
			}
			if strings.Contains(sent, "GAMMA-SKILL-DESCRIPTION") {
				t.Error("Gemini was offered gamma, which no entry lists")
			}
		})
	}
}

// startModel starts a scripted model server for one test.
func startModel(t *testing.T) *modelserver.Server {
	t.Helper()
	model, err := modelserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	return model
}

// TestRealGeminiRunsTheCommandsShellLines: a Claude command's !`...` line
// reaches Gemini CLI as !{...}, which it runs, and @file as @{...}, whose
// content it reads: the model gets the output and the file (issue 44
// item 17).
func TestRealGeminiRunsTheCommandsShellLines(t *testing.T) {
	gemini := realAgent(t, "QUIVER_TEST_GEMINI")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "cc"}`)
	writeFile(t, filepath.Join(dir, "commands", "probe.md"), "---\ndescription: Probe\n---\nOutput: !`echo QUIVER-SHELL-$((6*7))`\nFile: @notes.txt\n")
	srv := gitserver.New(t, gitserver.Options{})
	if _, err := srv.Commit("acme/cc", "main", dir, "cc"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, srv)
	writeFile(t, filepath.Join(h.project, "notes.txt"), "QUIVER-NOTES-CONTENT\n")
	writeFile(t, filepath.Join(h.home, ".gemini", "settings.json"), `{"security": {"auth": {"selectedType": "gemini-api-key"}}}`)
	h.must("agent", "install", "gemini", "--command", os.Args[0])
	h.must("plugin", "add", "acme/cc")
	model := startModel(t)
	env := agentEnv(h, "GEMINI_API_KEY=x", "GOOGLE_GEMINI_BASE_URL="+model.URL, "GEMINI_CLI_TRUST_WORKSPACE=true")
	out := runAgent(t, h, env, gemini, "-p", "/probe", "--output-format", "stream-json", "--yolo", "-m", "gemini-2.5-flash")
	sent := model.All()
	for what, want := range map[string]string{"the shell line's output": "QUIVER-SHELL-42", "the file's content": "QUIVER-NOTES-CONTENT"} {
		if !strings.Contains(sent, want) {
			t.Errorf("Gemini did not send its model %s (%q)\nagent output:\n%s", what, want, out)
		}
	}
}
