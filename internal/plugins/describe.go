package plugins

import (
	"fmt"
	"strconv"
	"strings"
)

// What users read about plugins: short forms of refs and commits, and
// the one-line accounts of what add, update, install and verify did.

// ShortRef abbreviates a commit SHA given as a ref; names stay whole.
func ShortRef(r string) string {
	if len(r) == 40 && strings.Trim(r, "0123456789abcdef") == "" {
		return r[:7]
	}
	return r
}

// ShortCommit abbreviates a commit to the 7 characters git shows.
func ShortCommit(c string) string {
	if len(c) > 7 {
		return c[:7]
	}
	return c
}

// Where says where a scope's plugins are, as a sentence ends:
// "globally" or "in the project".
func (l Location) Where() string {
	if l == Global {
		return "globally"
	}
	return "in the project"
}

// Installed says what was installed: " (v1.2.0, 4f1c2ab)", " (linked to
// /src/x)", " (copied from /src/x)".
func (e LockEntry) Installed() string {
	var parts []string
	if e.Ref != "" {
		parts = append(parts, ShortRef(e.Ref))
	}
	switch {
	case e.Link:
		parts = append(parts, "linked to "+e.Source)
	case e.Commit != "" && len(e.Ref) >= 7 && strings.Trim(e.Ref, "0123456789abcdef") == "" && strings.HasPrefix(e.Commit, e.Ref):
		// pinned to this commit: the ref already says it
	case e.Commit != "":
		parts = append(parts, ShortCommit(e.Commit))
	default:
		parts = append(parts, "copied from "+e.Source)
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// CountItems says how many hooks (handlers of hooks.json included),
// skills and recipes a plugin carries: "2 hooks, 1 skill, 0 recipes".
func CountItems(c Contents, handlers int) string {
	n := func(k int, word string) string {
		if k == 1 {
			return "1 " + word
		}
		return strconv.Itoa(k) + " " + word + "s"
	}
	return n(len(c.Hooks)+handlers, "hook") + ", " + n(len(c.Skills), "skill") + ", " + n(len(c.Recipes), "recipe")
}

// PartsNote names the parts beside hooks, skills and recipes (SPEC §16):
// "; 1 MCP server, 3 agents", or nothing.
func (p Plugin) PartsNote() string {
	if s := CountParts(p.Contents, 0, p.Parts()).Describe(); s != "" {
		return "; " + s
	}
	return ""
}

// Describe says what Update did, or would do, to a plugin that did not
// fail.
func (r UpdateResult) Describe() string {
	switch r.Status {
	case Updated:
		return fmt.Sprintf("Updated %s %s -> %s", r.Name, ShortCommit(r.From), ShortCommit(r.To))
	case WouldUpdate:
		to := ShortCommit(r.To)
		if to == "" {
			to = r.Ref
		}
		return fmt.Sprintf("Would update %s %s -> %s", r.Name, ShortCommit(r.From), to)
	case Pinned:
		return fmt.Sprintf("%s is pinned at %s; move it with plugin update %s --ref REF", r.Name, ShortRef(r.Ref), r.Name)
	case LocalSource:
		return fmt.Sprintf("%s is a local folder; reinstall it with plugin add --force", r.Name)
	}
	return fmt.Sprintf("%s is already up to date (%s)", r.Name, ShortCommit(r.To))
}
