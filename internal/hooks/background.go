package hooks

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/async"
	"github.com/quiver-cli/quiver/internal/plugins/format"
	"github.com/quiver-cli/quiver/internal/safefs"
)

// fieldSessionID is the payload field that names the agent's session.
const fieldSessionID = "session_id"

// settle does what a run does about the background after its hooks ran
// (SPEC §15): it gives this event what earlier events' background
// handlers of the session said, ends the session on session_end (killing
// what still runs of it), and hands this run's background handlers to an
// owner, or, when none can be started, waits for them here and gives
// what they said to this event.
func (r *Runner) settle(ctx context.Context, event string, p Payload, set []discovery.Hook, res *Result, batch *async.Batch, start time.Time) {
	var jobs []async.Job
	if batch != nil {
		jobs = batch.Jobs()
	}
	if ctx.Err() != nil {
		// Interrupted: nothing is delivered or handed on; what was
		// started is killed (its context ended) and reaped.
		async.Own(ctx, async.Order{Jobs: jobs}, func(async.Record) {})
		return
	}
	session := ""
	if !r.Async.Only() { // an agent's asynchronous entry neither takes nor ends
		session = async.SessionDir(r.StateDir, p.String(fieldSessionID))
	}
	switch {
	case session == "":
	case event == format.SessionEnd:
		if err := async.End(session); err != nil {
			r.warn("quiver: end the session's background handlers: %v", err)
		}
		session = "" // what this event starts in the background has no later event
	case res.Context != nil:
		recs, err := async.Take(session)
		if err != nil {
			r.warn("quiver: background results: %v", err)
		}
		deliver(res, recs, true)
	}
	if len(jobs) == 0 {
		return
	}
	for i := range jobs {
		jobs[i].Order = slices.IndexFunc(set, func(h discovery.Hook) bool { return h.Name == jobs[i].Hook })
	}
	if session == "" {
		for _, j := range jobs {
			res.note(j.Hook, "runs in the background; what it says is dropped: "+noSession(event))
		}
	}
	order := async.Order{Session: session, Run: async.RunKey(start), Jobs: jobs}
	err := r.Owner.Launch(&order)
	if err == nil {
		return
	}
	// No owner: wait for them here, bounded by their timeouts, and give
	// this event what they said.
	r.warn("quiver: %v; waiting for the background handlers instead", err)
	var recs []async.Record
	async.Own(ctx, async.Order{Jobs: order.Jobs}, func(rec async.Record) { recs = append(recs, rec) })
	slices.SortFunc(recs, func(a, b async.Record) int { return a.Order - b.Order })
	for _, rec := range recs {
		res.note(rec.Hook, fmt.Sprintf("waited for (%s): no background owner could be started", rec.Status))
	}
	if res.Context != nil {
		deliver(res, recs, false)
	}
}

// noSession says why a background handler's result has nowhere to go.
func noSession(event string) string {
	if event == format.SessionEnd {
		return "the session has ended"
	}
	return "the payload has no session_id"
}

// deliver adds background handlers' context and notices to res, before
// its own (earlier) or after them, in the records' order.
func deliver(res *Result, recs []async.Record, earlier bool) {
	var ctxs, notices []Text
	for _, rec := range recs {
		if rec.Context != "" {
			ctxs = append(ctxs, Text{Hook: rec.Hook, Text: safefs.Cut(rec.Context, MaxText)})
		}
		if rec.Notice != "" {
			notices = append(notices, Text{Hook: rec.Hook, Text: safefs.Cut(rec.Notice, MaxText)})
		}
	}
	add := func(list *[]Text, more []Text) {
		if len(more) == 0 {
			return
		}
		if earlier {
			*list = append(more, *list...)
		} else {
			*list = append(*list, more...)
		}
	}
	add(res.Context, ctxs)
	add(res.Notices, notices)
}

// note sets the note of the named hook's report.
func (r *Result) note(hook, note string) {
	for i := range r.Hooks {
		if r.Hooks[i].Name == hook {
			r.Hooks[i].Note = note
		}
	}
}
