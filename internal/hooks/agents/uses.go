package agents

import (
	"context"
	"slices"
	"time"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
	"github.com/quiver-cli/quiver/internal/timeouts"
)

// Use is what the hooks of one event need from the entry that calls
// quiver for it (SPEC §15): whether any listens, which kinds of
// background handler it has, and how long what it runs may take.
type Use struct {
	// Listens: an installed, enabled hook handles the event, trusted or
	// not (trust is checked when it runs).
	Listens bool
	// Async and Rewake: kinds of background handler it has; Background
	// is the largest of their timeouts.
	Async, Rewake bool
	Background    time.Duration
	// Sum and Max are of the ordinary hooks' timeouts: a chained event's
	// run takes up to their sum, an event whose hooks start together up
	// to the largest.
	Sum, Max time.Duration
}

// Uses are the Use of each event, by Claude's name for it.
type Uses map[string]Use

// usesOf finds what each event's hooks need, by scope. A Claude handler
// counts for its own event (Stop and SubagentStop apart); a native hook
// for every Claude event its quiver event stands for.
func usesOf(hooks []discovery.Hook) map[plugins.Location]Uses {
	all := map[plugins.Location]Uses{}
	for _, h := range hooks {
		if h.Status == discovery.Disabled {
			continue
		}
		if h.Status == discovery.Untrusted && h.Handler != nil && replacesAgent(h.Handler.Event) {
			// Wiring it would hand the agent's own work to a hook that
			// does not run: the repository, not the user, would have
			// switched the agent's feature off (SPEC §9).
			continue
		}
		names := []string{}
		timeout := timeouts.Default
		if hd := h.Handler; hd != nil {
			names = append(names, hd.Event)
			timeout = timeouts.OrDefault(hd.Timeout)
		} else if e, ok := format.Lookup(h.Event); ok {
			names = e.Claude
		}
		if all[h.Location] == nil {
			all[h.Location] = Uses{}
		}
		for _, name := range names {
			u := all[h.Location][name]
			u.Listens = true
			switch {
			case h.Status == discovery.Invalid:
				// It will not run; quiver still answers the event, to say so.
			case h.Background():
				u.Async = u.Async || !h.Handler.AsyncRewake
				u.Rewake = u.Rewake || h.Handler.AsyncRewake
				u.Background = max(u.Background, timeout)
			default:
				u.Sum += timeout
				u.Max = max(u.Max, timeout)
			}
			all[h.Location][name] = u
		}
	}
	return all
}

// replacesAgent reports the Claude events whose mere entry replaces what
// Claude does itself: a WorktreeCreate hook creates the worktree instead
// of Claude's `git worktree add`, so an entry answered by no hook fails
// every worktree. Untrusted hooks do not get such an event wired; trust
// re-syncs the wiring.
func replacesAgent(claudeEvent string) bool { return claudeEvent == "WorktreeCreate" }

// usesFor is what of Uses an agent's configuration in scope l answers
// for: a project's, the project's hooks and the user's; the user's own,
// which serves every project, the user's hooks only (a project's events
// are then answered by the user's entries for the six events alone, and a
// project's background handlers run from its ordinary entry, unless the
// project's configuration is wired too).
func (d Docs) usesFor(l plugins.Location) Uses {
	out := Uses{}
	for loc, uses := range d.Uses {
		if l == plugins.Global && loc != plugins.Global {
			continue
		}
		for ev, u := range uses {
			o := out[ev]
			o.Listens = o.Listens || u.Listens
			o.Async, o.Rewake = o.Async || u.Async, o.Rewake || u.Rewake
			o.Background = max(o.Background, u.Background)
			o.Sum += u.Sum
			o.Max = max(o.Max, u.Max)
			out[ev] = o
		}
	}
	return out
}

// of is the Use of the agent's event ev: its own name's when it is one
// of Claude's, else that of every Claude event its quiver event stands
// for.
func (u Uses) of(ev Event) Use {
	if format.KnownEvent(ev.Native) {
		return u[ev.Native]
	}
	var out Use
	if e, ok := format.Lookup(ev.Quiver); ok {
		for _, name := range e.Claude {
			if use, ok := u[name]; ok {
				out.Listens = out.Listens || use.Listens
				out.Async, out.Rewake = out.Async || use.Async, out.Rewake || use.Rewake
				out.Background = max(out.Background, use.Background)
				out.Sum, out.Max = max(out.Sum, use.Sum), max(out.Max, use.Max)
			}
		}
	}
	return out
}

// core reports §8's six events, which quiver always wires: a hook a
// `git pull` brings for them runs at once, without a sync.
func core(ev Event) bool {
	return slices.Contains(format.Events()[:6], ev.Quiver)
}

// minEntryTimeout is the least an entry of any event but session_end
// gets, so that a hook that arrived since the last sync (a `git pull`),
// with quiver's default timeout, is not cut short.
const minEntryTimeout = 60 * time.Second

// entryTimeout is how long the agent should let quiver answer ev: the
// sum of the ordinary hooks' timeouts where they run one after another,
// the largest where they start together, plus a second for quiver
// itself, at least minEntryTimeout, at most the agent's limit. No hook
// known: Timeout. session_end takes no floor: Claude holds its exit for
// that entry's timeout.
func (u Use) entryTimeout(ev Event) time.Duration {
	run := u.Max
	if format.ChainedEvent(ev.Quiver) {
		run = u.Sum
	}
	if run == 0 {
		if ev.Quiver == format.SessionEnd {
			return time.Second
		}
		return Timeout
	}
	d := run + time.Second
	if ev.Quiver != format.SessionEnd {
		d = max(d, minEntryTimeout)
	}
	return min(d, maxEntryTimeout)
}

// Overlong reports a chained event whose hooks together may run longer
// than the agent lets an entry run: the agent may stop quiver mid-chain.
func (u Use) Overlong(ev Event) bool {
	return format.ChainedEvent(ev.Quiver) && u.Sum+time.Second > maxEntryTimeout
}

// wired counts the events of ag that call quiver and names those whose
// hooks may together run longer than the agent waits for one entry.
func (u Uses) wired(ag *Agent) (n int, overlong []string) {
	for _, ev := range ag.Events() {
		use := u.of(ev)
		if ag.hookFile != nil || use.Listens || core(ev) {
			n++
		}
		if use.Overlong(ev) {
			overlong = append(overlong, ev.Native)
		}
	}
	return n, overlong
}

// Unwired names the events that installed, enabled hooks of o's scopes
// handle but that neither the project's nor the user's configuration of
// ag calls quiver for: a `git pull` brought them, or a plugin changed
// without a sync. Only agents that wire events while hooks handle them
// (Claude) can miss one; §8's six are always wired.
func Unwired(ctx context.Context, ag *Agent, o discovery.Options, home string) []string {
	if ag.asyncEntry == nil {
		return nil
	}
	hs, err := discovery.Hooks(ctx, o)
	if err != nil {
		return nil
	}
	want := Uses{}
	for _, uses := range usesOf(hs.Hooks) {
		for name, u := range uses {
			if u.Listens {
				want[name] = u
			}
		}
	}
	var docs []*wiring.Doc
	for _, global := range []bool{false, true} {
		if (!global && o.Layout.Local == nil) || (global && home == "") {
			continue
		}
		site := SiteOf(ag, o.Layout, global, home)
		if data, ok, err := readOwn(site.Config); err == nil && ok {
			if d, err := wiring.ParseDoc(data, ag.Syntax); err == nil {
				docs = append(docs, d)
			}
		}
	}
	var missing []string
	for _, ev := range ag.Events() {
		if core(ev) || !want.of(ev).Listens || calls(ag, ev, docs) {
			continue
		}
		missing = append(missing, ev.Native)
	}
	return missing
}

// calls reports whether one of docs has an entry of ev that runs quiver's
// answer to it.
func calls(ag *Agent, ev Event, docs []*wiring.Doc) bool {
	for _, d := range docs {
		elems, _ := d.Array(ag.keys(ev)...)
		for _, el := range elems {
			if wiring.CommandsRun(el, func(cmd string) bool { return ag.WritesFor(cmd, ev.Quiver) }) {
				return true
			}
		}
	}
	return false
}
