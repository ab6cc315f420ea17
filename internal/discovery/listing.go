package discovery

import (
	"fmt"
	"iter"
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/term"
)

// Listings: what `hook list --json`, `skill list --json`, `recipe list
// --json` and hook serve's list show of what discovery found (SPEC §7).
// The field names are a stable interface: agents and scripts read them.

// HookEntry is a hook in `hook list --json` (and hook serve's list).
type HookEntry struct {
	Name     string `json:"name"`
	Event    string `json:"event"`
	Path     string `json:"path"`
	Location string `json:"location"`
	Plugin   string `json:"plugin"`
	Status   string `json:"status"`
	Reason   string `json:"reason"`
	// Format is "native" or "claude"; Matcher and If are a Claude
	// handler's, "" otherwise.
	Format  string `json:"format"`
	Matcher string `json:"matcher"`
	If      string `json:"if"`
	// Persistent: the hook asked hook serve to keep it running (§14).
	Persistent bool `json:"persistent,omitempty"`
}

// HookEntries lists the active hooks of hs in the order they run, or,
// with all, every hook in any status. It is never nil, so JSON says [].
func HookEntries(hs *HookSet, all bool) []HookEntry {
	out := make([]HookEntry, 0, len(hs.Hooks))
	for e := range HookEntrySeq(hs, all) {
		out = append(out, *e)
	}
	return out
}

// HookEntrySeq yields HookEntries' entries one at a time in one reused
// HookEntry, each good until the next: `hook list --json` prints each as
// it comes, where a slice of them was megabytes at 5,000 hooks. Each
// Hook is read in place, and a plugin's name spelled once for its run of
// hooks.
func HookEntrySeq(hs *HookSet, all bool) iter.Seq[*HookEntry] {
	return func(yield func(*HookEntry) bool) {
		var lastPlugin plugins.Name
		lastName := pluginOrEmpty(lastPlugin)
		var hj HookEntry
		for i := range hs.Hooks {
			h := &hs.Hooks[i]
			if !all && h.Status != Active {
				continue
			}
			if h.Plugin != lastPlugin {
				lastPlugin, lastName = h.Plugin, pluginOrEmpty(h.Plugin)
			}
			hj = HookEntry{
				Name: h.Name, Event: h.Event, Path: h.Path, Location: string(h.Location),
				Plugin: lastName, Status: string(h.Status), Reason: h.Reason, Format: FormatNative,
				Persistent: h.Persistent,
			}
			if h.Format == FormatClaude {
				hj.Format = FormatClaude
				if h.Handler != nil {
					hj.Matcher, hj.If = h.Handler.Matcher, h.Handler.If
				}
			}
			if !yield(&hj) {
				return
			}
		}
	}
}

// DocEntry is a skill or recipe in `list --json` (SPEC §7).
type DocEntry struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Path        string   `json:"path"`
	Location    string   `json:"location"`
	Plugin      string   `json:"plugin"`
	Status      string   `json:"status"`
	Reason      string   `json:"reason"`
	Warnings    []string `json:"warnings,omitempty"`
}

// EntryOf is d as listings show it.
func EntryOf(d Doc) DocEntry {
	return DocEntry{
		Name: d.Name, Description: d.Description, Path: d.Path, Location: string(d.Location),
		Plugin: pluginOrEmpty(d.Plugin), Status: string(d.Status), Reason: d.Reason, Warnings: d.Warnings,
	}
}

// DocEntries lists the active docs, or, with all, every one in any
// status. It is never nil, so JSON says [].
func DocEntries(docs []Doc, all bool) []DocEntry {
	out := []DocEntry{}
	for _, d := range docs {
		if all || d.Status == Active {
			out = append(out, EntryOf(d))
		}
	}
	return out
}

// DocShow is a skill or recipe in `show --json` (SPEC §10): its listing
// and its parsed file.
type DocShow struct {
	DocEntry
	Frontmatter map[string]any `json:"frontmatter"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Body        string         `json:"body"`
}

// Shown is what `skill show` and `recipe show` print of the item called
// name among docs: the item, with its file parsed afresh (listings carry
// cached summaries). Its file is never read when it leads out of its
// folder: that is an error. invalid is set for an item that is invalid
// but still shown, since its file is what needs fixing; notice says why
// an item that is not in effect is not.
func Shown(kind Kind, docs []Doc, name string) (d Doc, notice string, invalid error, err error) {
	d, ok := Find(docs, name)
	if !ok {
		return d, "", nil, fmt.Errorf("no %s named %s; see quiver %s list", kind, name, kind)
	}
	if d.Escape != "" {
		// Its file is not the project's: never read it.
		return d, "", nil, fmt.Errorf("%s %s is invalid: %s", kind, d.Name, d.Reason)
	}
	if d.Status != Active && d.Status != Invalid {
		notice = fmt.Sprintf("%s %s is %s: %s", kind, d.Name, d.Status, d.Reason)
	}
	if d.Status == Invalid {
		invalid = fmt.Errorf("%s %s is invalid: %s", kind, d.Name, d.Reason)
	}
	full := InspectDoc(kind, d.Path, d.Name)
	d.Frontmatter, d.Body = full.Frontmatter, full.Body
	return d, notice, invalid, nil
}

// ShowOf is d, of kind, in `show --json`: a skill's frontmatter keys
// other than name and description are its metadata too.
func ShowOf(kind Kind, d Doc) DocShow {
	out := DocShow{DocEntry: EntryOf(d), Frontmatter: d.Frontmatter, Body: d.Body}
	if out.Frontmatter == nil {
		out.Frontmatter = map[string]any{}
	}
	if kind == Skill {
		for key, v := range d.Frontmatter {
			if key != "name" && key != "description" {
				if out.Metadata == nil {
					out.Metadata = map[string]any{}
				}
				out.Metadata[key] = v
			}
		}
	}
	return out
}

// pluginOrEmpty is the plugin name for JSON: org/repo or "".
func pluginOrEmpty(n plugins.Name) string {
	if n.IsZero() {
		return ""
	}
	return n.String()
}

// ListNotices are what hook list says besides its entries: that
// untrusted project hooks were skipped (unless all lists them), and none,
// for an empty list, what to do; none is "" when hooks were skipped,
// since that says why.
func (hs *HookSet) ListNotices(all bool) (skipped, none string) {
	n := hs.UntrustedCount()
	if n > 0 && !all {
		skipped = fmt.Sprintf("quiver: %s not trusted and were skipped; review them with 'quiver hook list --all', then run 'quiver trust'", term.Counts(n, "project hook is", "project hooks are"))
	}
	if n == 0 {
		none = "No hooks. Install a plugin with quiver plugin add, or put executables in .quiver/hooks/."
	}
	return skipped, none
}

// HookHeader heads hook list's table; all adds the status and reason.
func HookHeader(all bool) []string {
	if all {
		return []string{"NAME", "EVENT", "LOCATION", "STATUS", "REASON"}
	}
	return []string{"NAME", "EVENT", "LOCATION"}
}

// Row is h's row in hook list's table under HookHeader(all).
func (h HookEntry) Row(all bool) []string {
	row := []string{h.Name, dash(h.Event), h.Location}
	if all {
		row = append(row, h.Status, oneLine(h.Reason))
	}
	return row
}

// DocHeader heads skill and recipe list's table; all adds the status and
// reason.
func DocHeader(all bool) []string {
	if all {
		return []string{"NAME", "LOCATION", "DESCRIPTION", "STATUS", "REASON"}
	}
	return []string{"NAME", "LOCATION", "DESCRIPTION"}
}

// Row is d's row in skill and recipe list's table under DocHeader(all):
// its description one line of at most 60 characters.
func (d DocEntry) Row(all bool) []string {
	desc := oneLine(d.Description)
	if r := []rune(desc); len(r) > 60 {
		desc = string(r[:57]) + "..."
	}
	row := []string{d.Name, d.Location, dash(desc)}
	if all {
		row = append(row, d.Status, oneLine(d.Reason))
	}
	return row
}

// oneLine keeps a table cell on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
