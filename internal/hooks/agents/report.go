package agents

import (
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/quiver-cli/quiver/internal/hooks/agents/wiring"
	"github.com/quiver-cli/quiver/internal/safefs"
	"github.com/quiver-cli/quiver/internal/term"
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
	out = append(out, placed(site, res.Links)...)
	switch {
	case res.Shared == 1:
		out = append(out, "1 skill reaches it from a folder another wired agent keeps it in")
	case res.Shared > 1:
		out = append(out, fmt.Sprintf("%d skills reach it from a folder another wired agent keeps them in", res.Shared))
	}
	out = append(out, kept(site, res.Files)...)
	for _, f := range res.Files {
		for _, m := range f.Members {
			if memberKind(m.Keys) == "enabled plugin" {
				out = append(out, "Claude Code loads these plugins with its own loader, as it loads a marketplace's: its sessions and claude -p have them, but claude plugin list shows only what claude plugin install put in its cache, so it does not list them (quiver agent list does)")
				return out
			}
		}
	}
	return out
}

// placed says what of links (skills, commands, subagents) went into
// which of the agent's folders, and whether linked or copied: "Linked 1
// skill into .claude/skills", "Copied 2 commands into .gemini/commands".
func placed(site Site, links []wiring.Link) []string {
	type group struct {
		verb, dir, kind string
	}
	counts := map[group]int{}
	var order []group
	for _, l := range links {
		g := group{verb: "Copied", dir: path.Dir(l.Path), kind: folderKind(path.Base(path.Dir(l.Path)))}
		if l.Target != "" {
			g.verb = "Linked"
		}
		if counts[g] == 0 {
			order = append(order, g)
		}
		counts[g]++
	}
	var out []string
	for _, g := range order {
		out = append(out, fmt.Sprintf("%s %s into %s", g.verb, term.Count(counts[g], g.kind), safefs.Visible(shownPath(site, g.dir))))
	}
	return out
}

// folderKind names what an agent's folder holds, by its name.
func folderKind(dir string) string {
	switch dir {
	case "skills":
		return "skill"
	case "agents":
		return "subagent"
	}
	return "command"
}

// kept says what quiver keeps in the agent's other files: "Wrote 1 MCP
// server into .codex/config.toml".
func kept(site Site, files []wiring.FileRecord) []string {
	var out []string
	for _, f := range files {
		counts := map[string]int{}
		var kinds []string
		for _, m := range f.Members {
			k := memberKind(m.Keys)
			if counts[k] == 0 {
				kinds = append(kinds, k)
			}
			counts[k]++
		}
		var parts []string
		for _, k := range kinds {
			parts = append(parts, term.Count(counts[k], k))
		}
		where := safefs.Visible(shownPath(site, f.Path))
		switch {
		case len(parts) == 0:
		case len(kinds) == 1 && kinds[0] == "enabled plugin":
			out = append(out, fmt.Sprintf("Enabled %s in %s", term.Count(counts[kinds[0]], "plugin"), where))
		case len(kinds) == 1 && kinds[0] == "plugin marketplace":
			out = append(out, fmt.Sprintf("Added quiver's plugin marketplace to %s", where))
		default:
			out = append(out, fmt.Sprintf("Wrote %s into %s", strings.Join(parts, " and "), where))
		}
	}
	return out
}

// memberKind names a member quiver keeps by the key that holds it.
func memberKind(keys []string) string {
	if len(keys) == 0 {
		return "entry"
	}
	switch keys[0] {
	case "mcpServers", "mcp_servers", "mcp", "servers":
		return "MCP server"
	case "lspServers", "lsp":
		return "LSP server"
	case "enabledPlugins":
		return "enabled plugin"
	case "extraKnownMarketplaces":
		return "plugin marketplace"
	case "agent":
		return "subagent"
	case "command":
		return "command"
	}
	return "entry"
}

// shownPath is p as the person finds it: relative to the project (or
// home) the agent's paths start from, ~ for the home.
func shownPath(site Site, p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	if rel, err := filepath.Rel(site.Base, p); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return p
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
	switch len(res.Missed) {
	case 0:
	case 1:
		out = append(out, fmt.Sprintf("quiver: warning: %s: %s", site.Agent.Title, res.Missed[0]))
	default:
		// One line an agent, however many plugins: the detail is agent
		// list --json's (missed).
		out = append(out, fmt.Sprintf("quiver: warning: %s takes %s of the plugins otherwise, or not at all (%s); quiver agent list --json names each",
			site.Agent.Title, term.Count(len(res.Missed), "part"), missedKinds(res.Missed)))
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

// missedKinds counts missed by what each is about, in words: "3
// subagents, 1 LSP server".
func missedKinds(missed []string) string {
	kinds := []string{"MCP server", "LSP server", "output style", "subagent", "commands", "command", "skill", "plugin"}
	counts := map[string]int{}
	for _, m := range missed {
		kind := "other"
		for _, k := range kinds {
			if strings.HasPrefix(m, k+" ") {
				kind = k
				break
			}
		}
		if kind == "commands" {
			kind = "command"
		}
		counts[kind]++
	}
	var parts []string
	for _, k := range append(kinds, "other") {
		if n := counts[k]; n > 0 && k != "commands" {
			word := k
			if k == "other" {
				word = "other part"
			}
			parts = append(parts, term.Count(n, word))
		}
	}
	return strings.Join(parts, ", ")
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
