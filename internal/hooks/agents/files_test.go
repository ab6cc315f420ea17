package agents

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// TestAgentFilesGolden installs a plugin with one part of each kind (an
// MCP server of each type, LSP servers, a subagent, a command, a skill)
// and wires each agent at project and at user scope, over the user's own
// files (testdata/golden/AGENT/SCOPE/before: their servers, their agents
// and commands of the same names, a JSONC opencode.json with comments).
// Every file quiver then writes or changes is golden (…/after, paths
// with $PROJECT and $HOME), and so is what did not reach the agent
// (missed.txt). A second install and a sync change no byte; remove gives
// every file back exactly as it was before quiver; so does plugin remove,
// but for quiver's hook entries.
func TestAgentFilesGolden(t *testing.T) {
	for _, ag := range All() {
		for _, scope := range []string{"project", "user"} {
			t.Run(ag.Name+"/"+scope, func(t *testing.T) {
				global := scope == "user"
				w := newWirer(t)
				w.Docs = trustedDocs(w)
				installPlugin(t, w.Layout.Scope(global), filepath.Join("testdata", "plugins", "whole"), "acme/demo")
				site := w.Site(ag, global)
				dir := filepath.Join("testdata", "golden", ag.Name, scope)
				copyTree(t, filepath.Join(dir, "before"), site.Base)
				before := snapshot(t, site.Base)

				if _, err := w.Install(t.Context(), site, InstallOptions{Command: "quiver"}); err != nil {
					t.Fatal(err)
				}
				after := snapshot(t, site.Base)
				market, _ := claudeMarket(site.Scope) // named by the project's path
				norm := strings.NewReplacer(w.Layout.ProjectDir, "$PROJECT", w.Home, "$HOME", market+"\"", "$MARKET\"", market+"@", "$MARKET@")
				got := map[string]string{}
				for p, c := range after {
					if before[p] != c {
						got[p] = norm.Replace(c)
					}
				}
				goldenTree(t, filepath.Join(dir, "after"), got)
				rec := readRecord(t, site)
				golden(t, filepath.Join(dir, "missed.txt"), []byte(norm.Replace(strings.Join(rec.Agents[ag.Name].Missed, "\n"))+"\n"))

				if res, err := w.Install(t.Context(), site, InstallOptions{Command: "quiver"}); err != nil || res.Changed {
					t.Errorf("a second install changed the configuration (%v)", err)
				}
				if err := w.Sync(t.Context()); err != nil {
					t.Fatal(err)
				}
				if again := snapshot(t, site.Base); !sameTree(again, after) {
					t.Errorf("a second install or a sync changed files:\n%s", diffTree(after, again))
				}

				// plugin remove: every part goes; only quiver's hook entries
				// stay, in the agent's configuration.
				name, _ := plugins.ParseName("acme/demo")
				in := &plugins.Installer{Scope: w.Layout.Scope(global), Fetcher: &plugins.Fetcher{}}
				if err := in.Remove(t.Context(), []plugins.Name{name}, false); err != nil {
					t.Fatal(err)
				}
				w.Docs = trustedDocs(w) // found again, without the plugin
				if err := w.Sync(t.Context()); err != nil {
					t.Fatal(err)
				}
				config, _ := filepath.Rel(site.Base, site.Config)
				config = filepath.ToSlash(config)
				now := snapshot(t, site.Base)
				for p, c := range now {
					if p != config && before[p] != c {
						t.Errorf("plugin remove left %s:\n%s", p, c)
					}
				}
				for p := range before {
					if _, ok := now[p]; !ok {
						t.Errorf("plugin remove took the user's %s", p)
					}
				}

				if _, err := w.Remove(t.Context(), site); err != nil {
					t.Fatal(err)
				}
				if back := snapshot(t, site.Base); !sameTree(back, before) {
					t.Errorf("remove did not give the files back as they were:\n%s", diffTree(before, back))
				}
			})
		}
	}
}

// trustedDocs finds the wirer's items in a project the user trusted.
func trustedDocs(w *Wirer) func() (Docs, error) {
	docs := ActiveDocs(discovery.Options{Layout: w.Layout, TrustAll: true})
	return func() (Docs, error) {
		d, err := docs()
		d.Trusted = true
		return d, err
	}
}

// installPlugin installs the plugin folder src into scope s as name.
func installPlugin(t *testing.T, s plugins.Scope, src, name string) {
	t.Helper()
	abs, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := plugins.ParseSpec(abs, "", "")
	if err != nil {
		t.Fatal(err)
	}
	n, err := plugins.ParseName(name)
	if err != nil {
		t.Fatal(err)
	}
	in := &plugins.Installer{Scope: s, Fetcher: &plugins.Fetcher{}}
	if _, err := in.Add(t.Context(), plugins.AddRequest{Spec: spec, Name: n}); err != nil {
		t.Fatal(err)
	}
}

func readRecord(t *testing.T, site Site) *wiring.Record {
	t.Helper()
	rec, err := wiring.ReadRecord(site.Record)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// copyTree copies the files under src (if any) to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
}

// snapshot is every file and link under base but quiver's own folder
// (.quiver: its plugins and records), by slash path: a file's content, a
// link's "-> target".
func snapshot(t *testing.T, base string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(base, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && rel == ".quiver":
			return filepath.SkipDir
		case d.IsDir():
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[rel] = "-> " + target + "\n"
			return err
		}
		data, err := os.ReadFile(p)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func diffTree(want, got map[string]string) string {
	var lines []string
	for k, v := range want {
		if w, ok := got[k]; !ok {
			lines = append(lines, "missing "+k)
		} else if w != v {
			lines = append(lines, "changed "+k+":\n"+w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			lines = append(lines, "added "+k+":\n"+got[k])
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// goldenTree compares files (slash path: content) with the golden folder
// dir, which -update rewrites.
func goldenTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if *update {
		os.RemoveAll(dir)
		for p, c := range files {
			path := filepath.Join(dir, filepath.FromSlash(p))
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, []byte(c), 0o644)
		}
	}
	want := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		want[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil && !(errors.Is(err, fs.ErrNotExist) && len(files) == 0) {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !sameTree(want, files) {
		t.Errorf("the files written differ from %s:\n%s", dir, diffTree(want, files))
	}
}

// TestSkillReachesEachAgentOnce: agents read each other's skill folders
// (Copilot and OpenCode read .claude/skills and .agents/skills, which
// Codex reads too), so a skill is written into the fewest folders that
// reach every wired agent, and into another as soon as the agent that
// kept it is unwired (SPEC §16).
func TestSkillReachesEachAgentOnce(t *testing.T) {
	w := newWirer(t)
	installPlugin(t, w.Layout.Scope(true), filepath.Join("testdata", "plugins", "native"), "acme/native")
	home := w.Home
	where := func() []string {
		var at []string
		for _, dir := range []string{".claude/skills", ".agents/skills"} {
			entries, _ := os.ReadDir(filepath.Join(home, dir))
			for _, e := range entries {
				at = append(at, dir+"/"+e.Name())
			}
		}
		return at
	}
	install := func(ag *Agent) {
		t.Helper()
		if _, err := w.Install(t.Context(), w.Site(ag, true), InstallOptions{Command: "quiver"}); err != nil {
			t.Fatal(err)
		}
	}
	remove := func(ag *Agent) {
		t.Helper()
		if _, err := w.Remove(t.Context(), w.Site(ag, true)); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string, want ...string) {
		t.Helper()
		if got := where(); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: the skill is at %v, want %v", when, got, want)
		}
	}
	install(Copilot)
	install(Codex)
	install(OpenCode)
	check("copilot, codex, opencode", ".agents/skills/sweep")
	remove(Copilot)
	check("copilot removed", ".agents/skills/sweep")
	install(Claude)
	// OpenCode reads ~/.claude/skills; Codex does not.
	check("claude too", ".claude/skills/sweep", ".agents/skills/sweep")
	remove(Codex)
	check("codex removed", ".claude/skills/sweep")
	remove(Claude)
	check("claude removed", ".agents/skills/sweep")
	remove(OpenCode)
	check("none wired")
}
