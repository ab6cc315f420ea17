// Package wiring edits other programs' files so that an agent calls
// quiver: the hook entries in an agent's configuration file, and the links
// that show quiver's skills and recipes in the agent's own folders
// (SPEC §13). Those files belong to the agent and to the user, so
// everything here merges: quiver adds its entries, records what it made in
// the scope's agents.yaml, and later changes or removes only that.
//
// The package knows nothing about any particular agent: the caller says
// which file, which arrays and which elements (internal/hooks/agents
// describes the agents). It starts no process.
package wiring

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// Entry is one element quiver keeps in an array of an agent's
// configuration: an event's hook registration.
type Entry struct {
	// Keys lead from the top of the file to the array (["hooks",
	// "PreToolUse"]).
	Keys []string
	// Value is the element, as JSON; nil removes the entry's elements
	// (an asynchronous entry no handler needs any more).
	Value json.RawMessage
	// Ours, when set, recognises this entry's own elements among
	// quiver's, for an array that holds several of them (Claude's
	// ordinary and asynchronous entries of one event); else Config.Ours.
	Ours func(elem json.RawMessage) bool
}

// Setting is a key quiver sets when it is absent (a format version, a
// switch that turns the agent's hooks on), and removes again only while
// it still holds quiver's value.
type Setting struct {
	Keys  []string
	Value json.RawMessage
}

// Config says what quiver keeps in one configuration file.
type Config struct {
	// Syntax is the JSON the agent reads in the file.
	Syntax   Syntax
	Entries  []Entry
	Settings []Setting
	// Ours recognises an element quiver added (its command runs
	// "hook run --format AGENT"); elements it does not recognise are
	// never changed.
	Ours func(elem json.RawMessage) bool
}

// Change is what Install or Uninstall did to a file's contents.
type Change struct {
	// Data is the new content; Delete says to remove the file instead
	// (quiver created it and nothing else is left in it).
	Data   []byte
	Delete bool
	// Changed is false when Data equals the input: nothing to write.
	Changed bool
	// Created lists the keys quiver made (dotted paths), to record.
	Created []string
}

// Install adds or updates quiver's entries in data (an agent's
// configuration, empty when the file does not exist). An element of ours
// already equal to the entry stays as it is, so installing twice changes
// nothing; one that differs (another command path) is replaced in place.
// created is what earlier installs recorded; the result carries it plus
// what this one made.
func Install(c Config, data []byte, created []string) (Change, error) {
	d, err := ParseDoc(data, c.Syntax)
	if err != nil {
		return Change{}, err
	}
	made := slices.Clone(created)
	// Settings first: in a file quiver creates, a format version reads
	// best at the top.
	for _, s := range c.Settings {
		if err := d.SetIfAbsent(s.Keys, s.Value, &made); err != nil {
			return Change{}, err
		}
	}
	for _, e := range c.Entries {
		ours := c.Ours
		if e.Ours != nil {
			ours = e.Ours
		}
		if e.Value == nil {
			if d.Get(e.Keys...) != nil {
				if _, err := d.Remove(e.Keys, func(_ int, el json.RawMessage) bool { return ours(el) }); err != nil {
					return Change{}, err
				}
				// A key quiver made for the entry goes with it once empty
				// (an event no hook handles any more).
				if key := strings.Join(e.Keys, "."); slices.Contains(made, key) && string(d.Get(e.Keys...)) == "[]" {
					d.Delete(e.Keys, nil)
					made = slices.DeleteFunc(made, func(p string) bool { return p == key })
				}
			}
			continue
		}
		elems, err := d.Array(e.Keys...)
		if err != nil {
			return Change{}, err
		}
		first := -1
		var dup []int
		for i, el := range elems {
			if ours(el) {
				if first < 0 {
					first = i
				} else {
					dup = append(dup, i)
				}
			}
		}
		switch {
		case first < 0:
			if err := d.Append(e.Keys, e.Value, &made); err != nil {
				return Change{}, err
			}
		case !sameJSON(elems[first], e.Value):
			if err := d.Replace(e.Keys, first, e.Value); err != nil {
				return Change{}, err
			}
		}
		if len(dup) > 0 {
			if _, err := d.Remove(e.Keys, func(i int, _ json.RawMessage) bool { return slices.Contains(dup, i) }); err != nil {
				return Change{}, err
			}
		}
	}
	out := d.Bytes()
	return Change{Data: out, Changed: !bytes.Equal(out, data), Created: dedupe(made)}, nil
}

// Uninstall removes quiver's elements from every array that holds entries
// (and from the other arrays beside them, where an older quiver may have
// wired more events), then the keys quiver created that are now empty or
// still hold quiver's setting. createdFile says quiver created the file:
// when nothing else is left in it, the change deletes it.
func Uninstall(c Config, data []byte, created []string, createdFile bool) (Change, error) {
	d, err := ParseDoc(data, c.Syntax)
	if err != nil {
		return Change{}, err
	}
	ours := func(_ int, el json.RawMessage) bool { return c.Ours(el) }
	seen := map[string]bool{}
	for _, e := range c.Entries {
		parent := e.Keys[:len(e.Keys)-1]
		key := strings.Join(parent, ".")
		if seen[key] {
			continue
		}
		seen[key] = true
		var members map[string]json.RawMessage
		if raw := d.Get(parent...); raw != nil && json.Unmarshal(raw, &members) == nil {
			names := make([]string, 0, len(members))
			for name, v := range members {
				if len(v) > 0 && v[0] == '[' {
					names = append(names, name)
				}
			}
			slices.Sort(names)
			for _, name := range names {
				if _, err := d.Remove(append(slices.Clone(parent), name), ours); err != nil {
					return Change{}, err
				}
			}
		}
	}
	// Deepest first, so that emptying "hooks.PreToolUse" can empty "hooks".
	paths := allowed(c, created)
	slices.SortFunc(paths, func(a, b string) int { return strings.Count(b, ".") - strings.Count(a, ".") })
	for _, p := range paths {
		keys := strings.Split(p, ".")
		d.Delete(keys, func(v json.RawMessage) bool {
			if s, ok := setting(c, keys); ok {
				return !sameJSON(v, s.Value)
			}
			return string(v) != "{}" && string(v) != "[]"
		})
	}
	out := d.Bytes()
	ch := Change{Data: out, Changed: !bytes.Equal(out, data)}
	if createdFile && d.Empty() {
		ch.Delete, ch.Changed = true, true
	}
	return ch, nil
}

// allowed keeps the recorded paths that quiver could have made for c: an
// agents.yaml is a file in the project, so a path it names is never
// deleted just because it says so.
func allowed(c Config, created []string) []string {
	paths := map[string]bool{}
	var all [][]string
	for _, e := range c.Entries {
		all = append(all, e.Keys)
	}
	for _, st := range c.Settings {
		all = append(all, st.Keys)
	}
	for _, keys := range all {
		for i := 1; i <= len(keys); i++ {
			paths[strings.Join(keys[:i], ".")] = true
		}
	}
	var ok []string
	for _, p := range dedupe(created) {
		if paths[p] {
			ok = append(ok, p)
		}
	}
	return ok
}

func setting(c Config, keys []string) (Setting, bool) {
	for _, s := range c.Settings {
		if slices.Equal(s.Keys, keys) {
			return s, true
		}
	}
	return Setting{}, false
}

func dedupe(s []string) []string {
	var out []string
	for _, v := range s {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// sameJSON compares two JSON values by meaning, not by formatting.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

// CommandsRun reports whether elem holds at least one command string
// ("command", or Copilot's "bash") and every one of them is one quiver
// writes (ours): the test for quiver's own elements. A group in which the user put a command of their own beside
// quiver's is not quiver's.
func CommandsRun(elem json.RawMessage, ours func(command string) bool) bool {
	var v any
	if json.Unmarshal(elem, &v) != nil {
		return false
	}
	n, all := 0, true
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				if s, ok := x.(string); ok && (k == "command" || k == "bash") {
					n++
					all = all && ours(s)
					continue
				}
				walk(x)
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		}
	}
	walk(v)
	return n > 0 && all
}
