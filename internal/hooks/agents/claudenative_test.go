package agents

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// judgeHooks are a Claude plugin's hooks: a prompt handler, an mcp_tool
// one and a command one (which quiver runs, and never hands over).
const judgeHooks = `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "prompt", "prompt": "Is this command safe? $ARGUMENTS", "timeout": 30},
    {"type": "command", "command": "true"}
  ]}],
  "PostToolUse": [{"hooks": [
    {"type": "mcp_tool", "server": "audit", "tool": "record", "input": {"path": "${tool_input.file_path}"}}
  ]}]
}}`

// writeClaudePlugin makes a Claude-format plugin folder with hooks.
func writeClaudePlugin(t *testing.T, name, hooksJSON string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	for rel, body := range map[string]string{
		".claude-plugin/plugin.json": `{"name": "` + name + `", "version": "1.0.0"}`,
		"hooks/hooks.json":           hooksJSON,
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// nativeGroups lists, per event, the handler types (and prompts) of the
// groups in data that hold no command: "prompt:Is this...", "mcp_tool:record".
func nativeGroups(t *testing.T, data []byte) map[string][]string {
	t.Helper()
	var doc struct {
		Hooks map[string][]struct {
			Hooks []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	out := map[string][]string{}
	for ev, groups := range doc.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				switch h["type"] {
				case "prompt", "agent":
					out[ev] = append(out[ev], h["type"].(string)+":"+h["prompt"].(string))
				case "mcp_tool":
					out[ev] = append(out[ev], "mcp_tool:"+h["tool"].(string))
				}
			}
		}
	}
	return out
}

// TestClaudeNativeHandlers: the prompt, agent and mcp_tool handlers of a
// project's plugins reach Claude's configuration only while trusted, one
// group per handler (two plugins' equal handlers are two); every sync
// keeps them in step with what is installed; a person's own equal
// handler is never touched, one of quiver's that they edited becomes
// theirs, and agent remove takes exactly what quiver wrote.
func TestClaudeNativeHandlers(t *testing.T) {
	w := newWirer(t)
	var warned []string
	w.Warn = func(m string) { warned = append(warned, m) }
	trusted := func(on bool) { w.Docs = ActiveDocs(discovery.Options{Layout: w.Layout, TrustAll: on}) }
	project := w.Layout.Scope(false)
	installPlugin(t, project, writeClaudePlugin(t, "judge", judgeHooks), "acme/judge")
	installPlugin(t, project, writeClaudePlugin(t, "twin", judgeHooks), "acme/twin")
	site := w.Site(Claude, false)

	// The person's own prompt handler, the same as the plugins'.
	own := `{"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "Is this command safe? $ARGUMENTS", "timeout": 30}]}`
	before := "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      " + own + "\n    ]\n  }\n}\n"
	os.MkdirAll(filepath.Dir(site.Config), 0o755)
	os.WriteFile(site.Config, []byte(before), 0o644)
	read := func() []byte {
		data, err := os.ReadFile(site.Config)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	prompt := "prompt:Is this command safe? $ARGUMENTS"
	check := func(step string, pre, post []string, recorded int) {
		t.Helper()
		got := nativeGroups(t, read())
		if !slices.Equal(got["PreToolUse"], pre) || !slices.Equal(got["PostToolUse"], post) {
			t.Errorf("%s: PreToolUse %q, PostToolUse %q; want %q, %q", step, got["PreToolUse"], got["PostToolUse"], pre, post)
		}
		if n := len(readRecord(t, site).Agents["claude"].Native); n != recorded {
			t.Errorf("%s: %d recorded, want %d", step, n, recorded)
		}
	}

	// Untrusted: nothing handed over.
	trusted(false)
	res, err := w.Install(t.Context(), site, InstallOptions{Command: "quiver"})
	if err != nil {
		t.Fatal(err)
	}
	check("untrusted", []string{prompt}, nil, 0)
	if res.Native != 0 {
		t.Errorf("untrusted: reports %d handed over", res.Native)
	}

	// Trusted: each plugin's handlers, after the person's own.
	trusted(true)
	res, err = w.Install(t.Context(), site, InstallOptions{Command: "quiver"})
	if err != nil {
		t.Fatal(err)
	}
	check("trusted", []string{prompt, prompt, prompt}, []string{"mcp_tool:record", "mcp_tool:record"}, 4)
	if res.Native != 4 || !strings.Contains(strings.Join(res.Lines(site, InstallOptions{Command: "quiver"}), "\n"), "Claude Code runs 4 handlers itself") {
		t.Errorf("install reports %d handed over: %q", res.Native, res.Lines(site, InstallOptions{Command: "quiver"}))
	}
	if !strings.Contains(string(read()), `"input": {`) {
		t.Errorf("the mcp_tool handler lost its input:\n%s", read())
	}
	installed := read()
	if res, err := w.Install(t.Context(), site, InstallOptions{Command: "quiver"}); err != nil || res.Changed {
		t.Errorf("a second install changed the file (%v)", err)
	}
	trusted(true)
	if err := w.Sync(t.Context()); err != nil || string(read()) != string(installed) {
		t.Errorf("a sync changed the file (%v):\n%s", err, read())
	}
	rows, _ := w.Rows()
	for _, r := range rows {
		if r.Agent == "claude" && r.Location == "local" && r.Native != 4 {
			t.Errorf("agent list counts %d", r.Native)
		}
	}

	// The person edits one of quiver's: it is theirs, and quiver, still
	// handing the plugin's over, writes that one again.
	edited := strings.Replace(string(installed), `"tool": "record"`, `"tool": "record-all"`, 1)
	os.WriteFile(site.Config, []byte(edited), 0o644)
	trusted(true)
	if err := w.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	check("edited", []string{prompt, prompt, prompt}, []string{"mcp_tool:record-all", "mcp_tool:record", "mcp_tool:record"}, 4)
	if len(warned) != 1 || !strings.Contains(warned[0], "hooks.PostToolUse was changed or removed since") {
		t.Errorf("warnings %q", warned)
	}

	// One plugin goes: its handlers go, the other's stay.
	name, _ := plugins.ParseName("acme/twin")
	if err := (&plugins.Installer{Scope: project, Fetcher: &plugins.Fetcher{}}).Remove(t.Context(), []plugins.Name{name}, false); err != nil {
		t.Fatal(err)
	}
	trusted(true)
	if err := w.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	check("twin removed", []string{prompt, prompt}, []string{"mcp_tool:record-all", "mcp_tool:record"}, 2)

	// Trust lapses: quiver's go; the person's own and the edited one stay.
	trusted(false)
	if err := w.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	check("untrusted again", []string{prompt}, []string{"mcp_tool:record-all"}, 0)

	// Trusted again, then agent remove: exactly quiver's go, and the
	// file is the person's again.
	trusted(true)
	if err := w.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	check("trusted again", []string{prompt, prompt}, []string{"mcp_tool:record-all", "mcp_tool:record"}, 2)
	if _, err := w.Remove(t.Context(), site); err != nil {
		t.Fatal(err)
	}
	got := nativeGroups(t, read())
	if !slices.Equal(got["PreToolUse"], []string{prompt}) || !slices.Equal(got["PostToolUse"], []string{"mcp_tool:record-all"}) || strings.Contains(string(read()), "hook run") {
		t.Errorf("after remove:\n%s", read())
	}
}

// TestClaudeNativeUserScope: the user's configuration takes the user's
// handlers only; the project's configuration takes both scopes'.
func TestClaudeNativeUserScope(t *testing.T) {
	w := newWirer(t)
	w.Docs = ActiveDocs(discovery.Options{Layout: w.Layout, TrustAll: true})
	installPlugin(t, w.Layout.Scope(false), writeClaudePlugin(t, "proj", strings.ReplaceAll(judgeHooks, "safe?", "safe here?")), "acme/proj")
	installPlugin(t, w.Layout.Scope(true), writeClaudePlugin(t, "mine", judgeHooks), "acme/mine")
	for _, global := range []bool{true, false} {
		site := w.Site(Claude, global)
		if _, err := w.Install(t.Context(), site, InstallOptions{Command: "quiver"}); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(site.Config)
		got := nativeGroups(t, data)["PreToolUse"]
		want := []string{"prompt:Is this command safe? $ARGUMENTS"}
		if !global {
			want = []string{"prompt:Is this command safe here? $ARGUMENTS", "prompt:Is this command safe? $ARGUMENTS"}
		}
		if !slices.Equal(got, want) {
			t.Errorf("global %v: %q, want %q", global, got, want)
		}
	}
}

// TestClaudeNativeRecordFromRepository: a record naming an array quiver
// never writes handlers to is not acted on, even with a matching hash.
func TestClaudeNativeRecordFromRepository(t *testing.T) {
	w := newWirer(t)
	w.Docs = ActiveDocs(discovery.Options{Layout: w.Layout})
	site := w.Site(Claude, false)
	os.MkdirAll(filepath.Dir(site.Config), 0o755)
	before := `{"permissions": {"allow": ["Bash(ls)"]}}`
	os.WriteFile(site.Config, []byte(before), 0o644)
	if _, err := w.Install(t.Context(), site, InstallOptions{Command: "quiver"}); err != nil {
		t.Fatal(err)
	}
	rec := readRecord(t, site)
	sum := sha256.Sum256([]byte(`"Bash(ls)"`)) // the hash of the permission, as quiver would record it
	rec.Agents["claude"].Native = append(rec.Agents["claude"].Native, wiring.Owned{Keys: []string{"permissions", "allow"}, Hash: "sha256:" + hex.EncodeToString(sum[:])})
	if err := rec.Write(site.Record); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Remove(t.Context(), site); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(site.Config); string(data) != before {
		t.Errorf("after remove:\n%s\nwant:\n%s", data, before)
	}
}

// TestClaudeNativeRecordedBeforeWritten (attack28b): quiver knows the
// handlers it handed Claude only by its record, so the record must name a
// handler before settings.json holds it. When the record cannot be
// written after settings.json was (a full disk, a kill between the two
// writes), the handler written must not become nobody's: once trust is
// revoked, it goes like every other of quiver's.
func TestClaudeNativeRecordedBeforeWritten(t *testing.T) {
	w := newWirer(t)
	w.Warn = func(string) {}
	project := w.Layout.Scope(false)
	installPlugin(t, project, writeClaudePlugin(t, "judge", judgeHooks), "acme/judge")
	site := w.Site(Claude, false)
	if _, err := w.Install(t.Context(), site, InstallOptions{Command: "quiver"}); err != nil {
		t.Fatal(err)
	}

	// Trusted, but the record cannot be written this once: its path is
	// taken by a folder from the moment the handlers are found.
	trusted := ActiveDocs(discovery.Options{Layout: w.Layout, TrustAll: true})
	w.Docs = func() (Docs, error) {
		os.Remove(site.Record)
		os.MkdirAll(filepath.Join(site.Record, "x"), 0o755)
		return trusted()
	}
	if _, err := w.Install(t.Context(), site, InstallOptions{Command: "quiver"}); err == nil {
		t.Fatal("install succeeded with its record's path taken")
	}
	os.RemoveAll(site.Record)

	// Trust revoked: every handler quiver wrote goes.
	w.Docs = ActiveDocs(discovery.Options{Layout: w.Layout})
	if _, err := w.Install(t.Context(), site, InstallOptions{Command: "quiver"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(site.Config)
	if got := nativeGroups(t, data); len(got) > 0 {
		t.Errorf("after trust was revoked, handlers quiver wrote are still in %s: %q\n%s", site.Config, got, data)
	}
}

// TestClaudeNativeRecordedBeforeSynced (attack28b): the same for the
// sync every mutating command ends with (a `quiver trust` hands the
// handlers over through it).
func TestClaudeNativeRecordedBeforeSynced(t *testing.T) {
	w := newWirer(t)
	w.Warn = func(string) {}
	project := w.Layout.Scope(false)
	installPlugin(t, project, writeClaudePlugin(t, "judge", judgeHooks), "acme/judge")
	site := w.Site(Claude, false)
	w.Docs = ActiveDocs(discovery.Options{Layout: w.Layout})
	if _, err := w.Install(t.Context(), site, InstallOptions{Command: "quiver"}); err != nil {
		t.Fatal(err)
	}
	trusted := ActiveDocs(discovery.Options{Layout: w.Layout, TrustAll: true})
	w.Docs = func() (Docs, error) {
		if fi, err := os.Lstat(site.Record); err == nil && !fi.IsDir() {
			data, _ := os.ReadFile(site.Record)
			os.Remove(site.Record)
			os.MkdirAll(filepath.Join(site.Record, "x"), 0o755)
			os.WriteFile(site.Record+".saved", data, 0o644)
		}
		return trusted()
	}
	if err := w.Sync(t.Context()); err == nil {
		t.Fatal("sync succeeded with its record's path taken")
	}
	os.RemoveAll(site.Record)
	os.Rename(site.Record+".saved", site.Record)

	w.Docs = ActiveDocs(discovery.Options{Layout: w.Layout})
	if err := w.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(site.Config)
	if got := nativeGroups(t, data); len(got) > 0 {
		t.Errorf("after trust was revoked, handlers quiver wrote are still in %s: %q", site.Config, got)
	}
}
