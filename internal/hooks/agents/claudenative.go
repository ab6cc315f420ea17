package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// Handlers only Claude Code can run (prompt, agent, mcp_tool: they need
// its model or its MCP client) are handed to it (SPEC §15): each trusted,
// enabled one is written into Claude's configuration as a matcher group
// of its own, beside quiver's entries, under its event. Nothing in such
// a group says it is quiver's, so the record keeps the hash of each group
// quiver wrote, and quiver changes or removes only a group that still
// hashes so (wiring.SyncElements): a person's own handler, however alike,
// is never touched, and one of quiver's that the person edited is theirs
// from then on.
//
// One group per handler: two plugins' identical handlers are two groups,
// so that removing one plugin leaves the other's. Claude Code 2.1.328
// runs them once all the same: it dedups an event's matched handlers by
// their source (here the settings file) and, for prompt and agent, type,
// prompt and `if` (mcp_tool: server, tool, input and `if`), whatever
// their group; the same prompt asked twice would give the same verdict.

// nativeHook is a handler Claude runs itself, and the scope of the hook
// it stands for.
type nativeHook struct {
	Location plugins.Location
	discovery.ClaudeNative
}

// nativeOf keeps the handlers Claude runs itself among hooks, in
// precedence order: only those in force (ForClaude), so never an
// untrusted, disabled or shadowed one.
func nativeOf(hooks []discovery.Hook) []nativeHook {
	var out []nativeHook
	for _, h := range hooks {
		if n, ok := h.ForClaude(); ok {
			out = append(out, nativeHook{Location: h.Location, ClaudeNative: n})
		}
	}
	return out
}

// nativeFor are the handlers Claude runs itself that a configuration in
// scope l takes, by usesFor's rule: a project's, the project's and the
// user's; the user's own, the user's only (a project's handler never
// reaches the user's settings).
func (d Docs) nativeFor(l plugins.Location) []discovery.ClaudeNative {
	var out []discovery.ClaudeNative
	for _, n := range d.Native {
		if l == plugins.Global && n.Location != plugins.Global {
			continue
		}
		out = append(out, n.ClaudeNative)
	}
	return out
}

// nativeGroup is the matcher group Claude reads one handler from.
func nativeGroup(n discovery.ClaudeNative) json.RawMessage {
	return marshal(struct {
		Matcher string            `json:"matcher,omitempty"`
		Hooks   []json.RawMessage `json:"hooks"`
	}{n.Matcher, []json.RawMessage{typeFirst(n.Handler)}})
}

// typeFirst writes a handler with its "type" first, as people read one
// (the record's hash does not depend on the order).
func typeFirst(h json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(h, &m) != nil || m["type"] == nil {
		return h
	}
	t := m["type"]
	delete(m, "type")
	return withKeys(append(append([]byte(`{"type":`), t...), '}'), m)
}

// nativeElements are the groups of ns as elements of ag's configuration:
// one per handler, under hooks.<Event>; a handler of an event ag does not
// have is left out.
func nativeElements(ag *Agent, ns []discovery.ClaudeNative) []wiring.Element {
	var out []wiring.Element
	for _, n := range ns {
		if keys, ok := nativeKeys(ag, n.Event); ok {
			out = append(out, wiring.Element{Keys: keys, Value: nativeGroup(n)})
		}
	}
	return out
}

// nativeKeys is the array of ag's configuration that holds the native
// event's handlers, if ag has that event.
func nativeKeys(ag *Agent, native string) ([]string, bool) {
	for _, ev := range ag.Events() {
		if ev.Native == native {
			return ag.keys(ev), true
		}
	}
	return nil, false
}

// ownNative keeps the recorded groups quiver could have written for ag
// (under the array of one of its events): the record may have come with
// a repository, and quiver acts on nothing else it names.
func ownNative(ag *Agent, prev []wiring.Owned) []wiring.Owned {
	var out []wiring.Owned
	for _, o := range prev {
		if len(o.Keys) == 0 {
			continue
		}
		if keys, ok := nativeKeys(ag, o.Keys[len(o.Keys)-1]); ok && slices.Equal(keys, o.Keys) {
			out = append(out, o)
		}
	}
	return out
}

// withNative hands site's agent the handlers it runs itself (want, nil
// for none) on top of ch, quiver's change to data; prev is what the
// record says quiver wrote before. It returns the whole change and what
// quiver owns now. An agent that runs no such handler is left as it is.
func (w *Wirer) withNative(site Site, data []byte, ch wiring.Change, prev []wiring.Owned, want []discovery.ClaudeNative) (wiring.Change, []wiring.Owned, error) {
	ag := site.Agent
	if !ag.native {
		return ch, nil, nil
	}
	es, err := wiring.SyncElements(ch.Data, ag.Syntax, nativeElements(ag, want), ownNative(ag, prev), ch.Created)
	if err != nil {
		return wiring.Change{}, nil, err
	}
	for _, m := range es.Warnings {
		w.warn(fmt.Sprintf("quiver: %s: %s", site.Config, m))
	}
	ch.Data, ch.Created = es.Data, es.Created
	ch.Changed = ch.Delete || !bytes.Equal(es.Data, data)
	return ch, es.Owned, nil
}

// withoutNative is the first step of removing quiver from site: the
// handlers quiver handed the agent go, exactly those recorded (prev),
// before quiver's own entries and the keys it made.
func (w *Wirer) withoutNative(site Site, data []byte, prev []wiring.Owned, created []string) ([]byte, []string, error) {
	ch, _, err := w.withNative(site, data, wiring.Change{Data: data, Created: created}, prev, nil)
	return ch.Data, ch.Created, err
}
