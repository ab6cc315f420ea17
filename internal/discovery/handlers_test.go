package discovery

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// dedupConfig has, in one file, the same guard twice under different
// matchers, once more with another condition, an exec-form twin with
// other args, and a prompt handler.
const dedupConfig = `{"hooks":{"PreToolUse":[
	{"matcher":"Bash|Edit","hooks":[{"type":"command","command":"guard.sh"}]},
	{"matcher":"Bash","hooks":[{"type":"command","command":"guard.sh","timeout":5},{"type":"command","command":"guard.sh","if":"Bash(git *)"}]},
	{"matcher":"Write","hooks":[{"type":"command","command":"guard.sh"}]},
	{"hooks":[{"type":"command","command":"node","args":["a.js"]},{"type":"command","command":"node","args":["b.js"]},{"type":"command","command":"node","args":["a.js"]}]},
	{"matcher":"Bash","hooks":[{"type":"prompt","prompt":"Is $ARGUMENTS safe?"}]}]}}`

// TestDedupe: within a plugin, the same handler selected twice for one
// call runs once, the first in precedence order, whatever its matcher;
// one whose twin is not selected runs; another plugin's twin runs.
func TestDedupe(t *testing.T) {
	tr := newTree(t)
	tr.write(plugins.Global, "plugins/org@a/hooks/hooks.json", dedupConfig, 0)
	tr.write(plugins.Global, "plugins/org@b/hooks/hooks.json", `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"guard.sh"}]}]}}`, 0)
	hs, err := Hooks(t.Context(), tr.options())
	if err != nil {
		t.Fatal(err)
	}
	set := hs.ForEvent("before_tool_call")
	for _, tc := range []struct {
		tool string
		dups []string // "name of"
	}{
		{"Bash", []string{"PreToolUse.2 PreToolUse.1", "PreToolUse.7 PreToolUse.5"}},
		// The first guard is not selected for Write: the Write group's runs.
		{"Write", []string{"PreToolUse.7 PreToolUse.5"}},
		{"Edit", []string{"PreToolUse.7 PreToolUse.5"}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			payload := map[string]json.RawMessage{"tool_name": json.RawMessage(`"` + tc.tool + `"`), "tool_input": json.RawMessage(`{"command":"ls"}`)}
			sel := func(h Hook) bool {
				return h.Selector == nil || h.Selector.Selects(payload, tr.layout.ProjectDir, "/home")
			}
			kept, dups := Dedupe(set, sel)
			var got []string
			for _, d := range dups {
				got = append(got, short(d.Hook.Name)+" "+short(d.Of))
			}
			if strings.Join(got, ", ") != strings.Join(tc.dups, ", ") {
				t.Errorf("duplicates %q; want %q", got, tc.dups)
			}
			if len(kept)+len(dups) != len(set) {
				t.Errorf("kept %d + dropped %d of %d", len(kept), len(dups), len(set))
			}
			for _, h := range kept {
				if h.Plugin.String() == "org/b" {
					return // another plugin's twin stays
				}
			}
			t.Error("org/b's guard was dropped: across plugins, each runs")
		})
	}
	if kept, dups := Dedupe(set, func(Hook) bool { return false }); len(dups) != 0 || len(kept) != len(set) {
		t.Errorf("nothing selected, yet %d dropped", len(dups))
	}
}

func short(name string) string { return name[strings.LastIndex(name, "/")+1:] }

// TestForClaude: a prompt handler in force is handed over with its event,
// matcher and definition; an untrusted or disabled one is not, nor a
// command handler.
func TestForClaude(t *testing.T) {
	tr := newTree(t)
	tr.write(plugins.Global, "plugins/org@a/hooks/hooks.json", dedupConfig, 0)
	tr.write(plugins.Local, "plugins/org@p/hooks/hooks.json", dedupConfig, 0)
	tr.write(plugins.Global, "plugins/org@off/hooks/hooks.json", dedupConfig, 0)
	tr.disable(plugins.Global, "org/off")
	o := tr.options()
	o.TrustAll = false
	hs, err := Hooks(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	var handed []string
	for _, h := range hs.Hooks {
		if n, ok := h.ForClaude(); ok {
			handed = append(handed, h.Name)
			if n.Event != "PreToolUse" || n.Matcher != "Bash" || string(n.Handler) != `{"prompt":"Is $ARGUMENTS safe?","type":"prompt"}` {
				t.Errorf("%s: %+v", h.Name, n)
			}
		}
		if h.ClaudeOnly() != strings.HasSuffix(h.Name, "PreToolUse.8") {
			t.Errorf("%s: ClaudeOnly %v", h.Name, h.ClaudeOnly())
		}
	}
	if strings.Join(handed, " ") != "org/a/hooks.json/PreToolUse.8" {
		t.Errorf("handed to Claude: %q; want only the trusted, enabled one", handed)
	}
}
