package agents

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/quiver-cli/quiver/internal/safefs"
)

// What agent install and agent list have to tell the person; the
// terminal prints it.

// Lines are what agent install says once it wired site with o: that the
// agent's events call quiver, and how many skills and recipes it linked
// where; the configuration's path and the command are made visible.
func (res Installed) Lines(site Site, o InstallOptions) []string {
	verb := "Wired"
	if !res.Changed {
		verb = "Already wired:"
	}
	ag := site.Agent
	shown, _, _ := strings.Cut(ag.Command(o.Command, Event{Quiver: "EVENT"}, o.AllowRewrites), " || {") // the guard's tail is for the agent
	out := []string{fmt.Sprintf("%s %s (%s): %d events call %s", verb, ag.Title, safefs.Visible(site.Config), res.Events, safefs.Visible(shown))}
	if res.Native > 0 {
		out = append(out, fmt.Sprintf("%s runs %s itself (prompt, agent, mcp_tool), written beside quiver's entries", ag.Title, handlers(res.Native)))
	}
	if res.Links > 0 {
		out = append(out, fmt.Sprintf("Linked %d skill(s) and recipe(s) into %s", res.Links, filepath.Dir(site.Dirs().Skills)))
	}
	return out
}

// Warnings are what agent install warns of once it wired site with o: a
// command the agent cannot run, what of the plugins did not reach the
// agent, hook entries of others in a file named as quiver's own, what
// the agent waits on before it uses what quiver wrote, and what the
// agent does with quiver's entries that the person must know (caveat).
func (res Installed) Warnings(site Site, o InstallOptions) []string {
	var out []string
	if problem := CommandProblem(o.Command); problem != "" {
		out = append(out, fmt.Sprintf("quiver: warning: %s; the agent will not reach quiver until it is (or use --command PATH)", problem))
	}
	for _, m := range res.Missed {
		out = append(out, fmt.Sprintf("quiver: warning: %s: %s", site.Agent.Title, m))
	}
	if res.Foreign > 0 {
		out = append(out, fmt.Sprintf("quiver: warning: %s holds %d hook entries quiver did not write (a repository may commit it to pass its hooks as quiver's): review them", site.Config, res.Foreign))
	}
	if res.Gate != "" {
		out = append(out, "quiver: warning: "+res.Gate)
	}
	for _, s := range res.Silenced {
		out = append(out, fmt.Sprintf("quiver: warning: %s will not run what quiver wired: %s", site.Agent.Title, s))
	}
	if site.Agent.caveat != nil {
		if c := site.Agent.caveat(site, o); c != "" {
			out = append(out, "quiver: warning: "+c)
		}
	}
	if len(res.Overlong) > 0 {
		out = append(out, fmt.Sprintf("quiver: warning: the hooks of %s may together run longer than %s waits for one entry (%s): it may stop quiver mid-chain, which it takes as a non-blocking error; lower their timeouts",
			strings.Join(res.Overlong, ", "), site.Agent.Title, maxEntryTimeout))
	}
	return out
}

// Removed is what agent remove says of site: that quiver was removed,
// or was not wired there.
func Removed(site Site, removed bool) string {
	if !removed {
		return fmt.Sprintf("%s was not wired in %s", site.Agent.Title, safefs.Visible(site.Config))
	}
	return fmt.Sprintf("Removed quiver from %s (%s)", site.Agent.Title, safefs.Visible(site.Config))
}

// RowHeader heads the rows of Row.Cells.
var RowHeader = []string{"AGENT", "LOCATION", "CONFIG", "WIRED", "LINKS"}

// Cells is r's row in agent list's table.
func (r Row) Cells() []string {
	wired := "no"
	switch {
	case r.Wired && len(r.Silenced) > 0:
		wired = "silenced"
	case r.Wired:
		wired = "yes"
	}
	return []string{r.Agent, r.Location, r.Config, wired, strconv.Itoa(r.Links)}
}

// Notes are what agent list says under its table, as "agent (location):
// note": each wired agent's gate, and the handlers an agent runs itself
// that quiver handed it.
func Notes(rows []Row) []string {
	var out []string
	for _, r := range rows {
		if r.Gate != "" {
			out = append(out, fmt.Sprintf("%s (%s): %s", r.Agent, r.Location, r.Gate))
		}
		if r.Native > 0 {
			out = append(out, fmt.Sprintf("%s (%s): runs %s itself (prompt, agent, mcp_tool) that quiver wrote into %s", r.Agent, r.Location, handlers(r.Native), safefs.Visible(r.Config)))
		}
		for _, s := range r.Silenced {
			out = append(out, fmt.Sprintf("%s (%s): silenced: %s", r.Agent, r.Location, s))
		}
	}
	return out
}

// handlers counts handlers in words.
func handlers(n int) string {
	return fmt.Sprintf("%d handler%s", n, plural(n, "", "s"))
}
