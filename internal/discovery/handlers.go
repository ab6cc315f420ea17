package discovery

import (
	"encoding/json"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
)

// UserConfig is what is set for the plugin a Claude handler comes from
// (its declared keys, their values and defaults, secrets included: never
// print them), read when asked, so that a `quiver plugin config` is seen
// by the next event. A standalone handler, or a native hook, has none.
func (h Hook) UserConfig() (plugins.UserConfig, error) {
	if h.plugin == nil {
		return plugins.UserConfig{Values: map[string]string{}}, nil
	}
	return plugins.ReadUserConfig(*h.plugin)
}

// ClaudeNative is a handler that only Claude Code can run (prompt, agent,
// mcp_tool), as its agent configuration takes it: under Event (Claude's
// name) in a group with Matcher, Handler is the definition to write.
type ClaudeNative struct {
	Event, Matcher string
	Handler        json.RawMessage
}

// ForClaude returns the handler Claude Code runs itself in h's place,
// and whether there is one in force: h is a prompt, agent or mcp_tool
// handler whose definition Claude accepts, and it is invalid for quiver
// for that reason alone, so it is trusted, enabled and not shadowed
// (an untrusted, disabled or shadowed one has that status instead). It
// is for the agent's wiring; quiver never runs it.
func (h Hook) ForClaude() (ClaudeNative, bool) {
	hd := h.Handler
	if hd == nil || !hd.NeedsClaude() || h.Status != Invalid || h.Reason != hd.Problem {
		return ClaudeNative{}, false
	}
	return ClaudeNative{Event: hd.Event, Matcher: hd.Matcher, Handler: hd.Native}, true
}

// ClaudeOnly reports a handler only Claude Code can run (prompt, agent,
// mcp_tool): quiver lists it invalid, and like a background handler it
// blocks nothing, fail-closed or not, since no run of quiver's could.
func (h Hook) ClaudeOnly() bool { return h.Handler != nil && format.NativeType(h.Handler.Type) }

// sameKey is what Claude Code 2.1.328 dedups an event's handlers by: the
// plugin (or, for a standalone one, the file) they come from, their
// type, shell, command, args and condition; an http handler's url, and
// the definition of one Claude runs itself, stand for the command.
func sameKey(h Hook) string {
	hd := h.Handler
	from := h.PluginRoot
	if h.Plugin.IsZero() {
		from = h.Path
	}
	key, _ := json.Marshal([]any{string(h.Location), from, hd.Event, hd.Type, hd.Shell, hd.Command, hd.Args, hd.URL, hd.If, hd.Native})
	return string(key)
}

// Duplicate is a handler that does not run because the same handler of
// the same plugin or file runs in its place (Of).
type Duplicate struct {
	Hook Hook
	Of   string
}

// Dedupe drops from an event's hooks each active Claude handler that
// is the same as an earlier active one (same plugin or file, type, shell,
// command, args and condition: SPEC §15) when both take part in this
// call (selects: their matchers may differ), as Claude Code runs such
// handlers once. Handlers of different plugins are never the same. The
// dropped ones are returned, in hook order, with the name of the one
// that runs.
func Dedupe(hooks []Hook, selects func(Hook) bool) ([]Hook, []Duplicate) {
	var first map[string]int
	for i, h := range hooks {
		if h.same == "" || h.Status != Active {
			continue
		}
		if first == nil {
			first = map[string]int{}
		}
		if _, ok := first[h.same]; !ok {
			first[h.same] = i
		}
	}
	var dups []Duplicate
	var kept []Hook
	for i, h := range hooks {
		j, ok := first[h.same]
		if h.same != "" && h.Status == Active && ok && j != i {
			// The earliest selected one of its kind runs.
			if w := earliestSelected(hooks, h.same, i, selects); w >= 0 && selects(h) {
				if kept == nil {
					kept = append([]Hook(nil), hooks[:i]...)
				}
				dups = append(dups, Duplicate{Hook: h, Of: hooks[w].Name})
				continue
			}
		}
		if kept != nil {
			kept = append(kept, h)
		}
	}
	if kept == nil {
		return hooks, nil
	}
	return kept, dups
}

// earliestSelected is the first active hook before i with key that takes
// part in this call, or -1.
func earliestSelected(hooks []Hook, key string, i int, selects func(Hook) bool) int {
	for j := range i {
		if hooks[j].same == key && hooks[j].Status == Active && selects(hooks[j]) {
			return j
		}
	}
	return -1
}
