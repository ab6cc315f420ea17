package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/plugins"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// newWirer is a Wirer over a fresh project and home.
func newWirer(t *testing.T) *Wirer {
	t.Helper()
	home := t.TempDir()
	layout := plugins.NewLayout(t.TempDir(), filepath.Join(home, ".quiver"))
	var warned []string
	return &Wirer{Layout: layout, Home: home,
		Docs: ActiveDocs(discovery.Options{Layout: layout}),
		Warn: func(m string) { warned = append(warned, m) }}
}

// TestInstallGolden installs, re-installs and removes quiver in each
// agent's configuration, with the user's own content in it: the file after
// install is the golden one, a second install changes no byte, remove
// gives back the original bytes, and a file quiver created is deleted
// again.
func TestInstallGolden(t *testing.T) {
	for _, ag := range All() {
		if ag.hookFile != nil {
			continue // a program quiver writes whole: TestHookFile
		}
		t.Run(ag.Name, func(t *testing.T) {
			w := newWirer(t)
			site := w.Site(ag, false)
			dir := filepath.Join("testdata", ag.Name)
			before, err := os.ReadFile(filepath.Join(dir, "before.json"))
			if err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Dir(site.Config), 0o755)
			os.WriteFile(site.Config, before, 0o600)
			opts := InstallOptions{Command: "quiver"}
			if _, err := w.Install(t.Context(), site, opts); err != nil {
				t.Fatal(err)
			}
			after, _ := os.ReadFile(site.Config)
			golden := filepath.Join(dir, "after.json")
			if *update {
				os.WriteFile(golden, after, 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(after, want) {
				t.Errorf("after install:\n%s\nwant (%s):\n%s", after, golden, want)
			}
			if fi, _ := os.Stat(site.Config); fi.Mode().Perm() != 0o600 {
				t.Errorf("install changed the file's mode to %v", fi.Mode().Perm())
			}
			res, err := w.Install(t.Context(), site, opts)
			if again, _ := os.ReadFile(site.Config); err != nil || res.Changed || !bytes.Equal(again, after) {
				t.Errorf("a second install changed the file (%v):\n%s", err, again)
			}
			if removed, err := w.Remove(t.Context(), site); err != nil || !removed {
				t.Fatalf("remove: %v %v", removed, err)
			}
			if back, _ := os.ReadFile(site.Config); !bytes.Equal(back, before) {
				t.Errorf("after remove:\n%s\nwant the original:\n%s", back, before)
			}

			// From nothing: the file quiver creates goes again.
			os.Remove(site.Config)
			if _, err := w.Install(t.Context(), site, opts); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(site.Config); err != nil {
				t.Fatalf("install created no %s: %v", ag.ConfigLocal, err)
			}
			if _, err := w.Remove(t.Context(), site); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(site.Config); !errors.Is(err, os.ErrNotExist) {
				data, _ := os.ReadFile(site.Config)
				t.Errorf("remove left the file quiver created:\n%s", data)
			}
		})
	}
}

// TestInstallLeavesBrokenFiles: a configuration that does not parse is an
// error, and keeps its bytes; so does one reached through a link.
func TestInstallLeavesBrokenFiles(t *testing.T) {
	w := newWirer(t)
	site := w.Site(Claude, false)
	os.MkdirAll(filepath.Dir(site.Config), 0o755)
	for _, bad := range []string{`{"hooks": `, `{"hooks": "none"}`, `[1]`} {
		os.WriteFile(site.Config, []byte(bad), 0o644)
		if _, err := w.Install(t.Context(), site, InstallOptions{Command: "quiver"}); err == nil {
			t.Errorf("%s: installed", bad)
		}
		if data, _ := os.ReadFile(site.Config); string(data) != bad {
			t.Errorf("%s: changed to %s", bad, data)
		}
	}
	os.Remove(site.Config)
	other := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(other, []byte("{}"), 0o644)
	os.Symlink(other, site.Config)
	if _, err := w.Install(t.Context(), site, InstallOptions{Command: "quiver"}); err == nil {
		t.Error("installed through a link")
	}
	if data, _ := os.ReadFile(other); string(data) != "{}" {
		t.Errorf("wrote through a link: %s", data)
	}
}

// TestHookFile: OpenCode's hooks are a plugin quiver generates whole. It
// is the golden one, installs idempotently, changes in place for another
// --command, is never written over a file of someone else's, and goes on
// remove only while it is as quiver wrote it.
func TestHookFile(t *testing.T) {
	w := newWirer(t)
	site := w.Site(OpenCode, false)
	opts := InstallOptions{Command: "quiver"}
	if _, err := w.Install(t.Context(), site, opts); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(site.Config)
	golden(t, filepath.Join("testdata", "golden", "opencode", "quiver.js"), got)
	if wired, _ := WiredIn(OpenCode, got); !wired {
		t.Error("agent list would not see the plugin as quiver's")
	}
	if res, err := w.Install(t.Context(), site, opts); err != nil || res.Changed {
		t.Errorf("a second install changed the plugin: %v %v", res.Changed, err)
	}
	// Another quiver: replaced in place, still quiver's.
	if _, err := w.Install(t.Context(), site, InstallOptions{Command: "/opt/my quiver/bin/quiver", AllowRewrites: true}); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(site.Config)
	if !bytes.Contains(got, []byte(`const quiver = "/opt/my quiver/bin/quiver";`)) || !bytes.Contains(got, []byte(`"--allow-rewrites"`)) {
		t.Errorf("the plugin does not call the new quiver:\n%s", got)
	}
	if removed, err := w.Remove(t.Context(), site); err != nil || !removed {
		t.Fatalf("remove: %v %v", removed, err)
	}
	if _, err := os.Stat(site.Config); !errors.Is(err, os.ErrNotExist) {
		t.Error("remove left the plugin")
	}

	// The user's own plugin of that name: refused, untouched.
	mine := []byte("export const Mine = async () => ({});\n")
	os.MkdirAll(filepath.Dir(site.Config), 0o755) // remove took away the folder it made
	if err := os.WriteFile(site.Config, mine, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Install(t.Context(), site, opts); err == nil {
		t.Error("installed over the user's plugin")
	}
	if data, _ := os.ReadFile(site.Config); !bytes.Equal(data, mine) {
		t.Errorf("the user's plugin changed:\n%s", data)
	}
	os.Remove(site.Config)

	// Edited after install: the user's, kept by remove.
	if _, err := w.Install(t.Context(), site, opts); err != nil {
		t.Fatal(err)
	}
	edited := append(got, []byte("// mine now\n")...)
	os.WriteFile(site.Config, edited, 0o644)
	if _, err := w.Remove(t.Context(), site); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(site.Config); !bytes.Equal(data, edited) {
		t.Error("remove deleted or changed the plugin the user edited")
	}
}

// golden compares got with the golden file at path (rewritten with
// -update).
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, got, 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n%s\nwant:\n%s", path, got, want)
	}
}

// TestClaudeAsyncEntries: Claude's configuration gets an asynchronous
// entry beside an event's ordinary one while a background handler needs
// it, the ordinary entry then leaving background handlers to it; once
// none does, both are as before and the user's own entry is untouched.
func TestClaudeAsyncEntries(t *testing.T) {
	user := `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "mine"}]}]}}`
	bg := Uses{"SessionStart": {Listens: true, Async: true, Background: 20 * time.Second}, "Stop": {Listens: true, Rewake: true, Background: 30 * time.Second}}
	ch, err := wiring.Install(wiringConfig(Claude, "quiver", false, bg), []byte(user), nil)
	if err != nil {
		t.Fatal(err)
	}
	commands := func(data []byte, event string) []string {
		var doc struct {
			Hooks map[string][]struct {
				Hooks []map[string]any `json:"hooks"`
			} `json:"hooks"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, g := range doc.Hooks[event] {
			for _, h := range g.Hooks {
				cmd, _, _ := strings.Cut(fmt.Sprint(h["command"]), " || {") // the guard's tail: TestGuardTail
				s := fmt.Sprint(cmd, " ", h["timeout"])
				if h["async"] == true {
					s += " async"
				}
				if h["asyncRewake"] == true {
					s += " asyncRewake"
				}
				out = append(out, s)
			}
		}
		return out
	}
	for event, want := range map[string]string{
		"SessionStart": "mine <nil>|quiver hook run --format claude --async-elsewhere session_start 600|quiver hook run --format claude --async-only session_start 21 async",
		"Stop":         "quiver hook run --format claude --async-elsewhere agent_stop 600|quiver hook run --format claude --async-rewake agent_stop 31 asyncRewake",
		"SubagentStop": "quiver hook run --format claude agent_stop 600",
	} {
		if got := strings.Join(commands(ch.Data, event), "|"); got != want {
			t.Errorf("%s with background handlers:\n got %s\nwant %s", event, got, want)
		}
	}
	again, err := wiring.Install(wiringConfig(Claude, "quiver", false, bg), ch.Data, ch.Created)
	if err != nil || again.Changed {
		t.Errorf("installing the same again changed the file (%v)", err)
	}
	none, err := wiring.Install(wiringConfig(Claude, "quiver", false, nil), ch.Data, ch.Created)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(commands(none.Data, "SessionStart"), "|"); got != "mine <nil>|quiver hook run --format claude session_start 600" {
		t.Errorf("without background handlers: %s", got)
	}
	for _, cmd := range []string{"quiver hook run --format claude --async-only session_start", "'/opt/q' hook run --format claude --allow-rewrites --async-rewake agent_stop"} {
		if !Claude.Writes(cmd) {
			t.Errorf("quiver does not know its own %q", cmd)
		}
	}
	if Claude.Writes("quiver hook run --format claude --async-only --allow-rewrites session_start") {
		t.Error("flags out of quiver's order are the user's command")
	}
}

// TestClaudeOwnEntriesLookAlike: what a repository or the user wrote that
// only looks like quiver's asynchronous entry (another matcher, no async
// mark) is neither removed as one nor counted as quiver wired; an entry
// running another event's answer, or only background handlers, does not
// make Claude wired either (a committed settings.json could otherwise
// unwire every guard while agent list said "yes").
func TestClaudeOwnEntriesLookAlike(t *testing.T) {
	team := `{"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/team/quiver hook run --format claude --async-only before_tool_call"}]}`
	data := `{"hooks": {"PreToolUse": [` + team + `]}}`
	ch, err := wiring.Install(wiringConfig(Claude, "quiver", false, nil), []byte(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ch.Data), "/opt/team/quiver hook run --format claude --async-only before_tool_call") {
		t.Errorf("the team's own entry was removed:\n%s", ch.Data)
	}
	for name, cfg := range map[string]string{
		"only background entries": `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "quiver hook run --format claude --async-only before_tool_call", "async": true}]}]}}`,
		"another event's answer":  `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "quiver hook run --format claude session_start"}]}]}}`,
	} {
		if wired, _ := WiredIn(Claude, []byte(cfg)); wired {
			t.Errorf("%s: counted as wired", name)
		}
	}
	if wired, _ := WiredIn(Claude, ch.Data); !wired {
		t.Error("quiver's own entries are not counted as wired")
	}
}
