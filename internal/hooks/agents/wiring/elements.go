package wiring

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Element is one array element quiver keeps in another program's file
// that nothing in it marks as quiver's: a handler Claude Code runs itself
// (a prompt, agent or mcp_tool matcher group, SPEC §15). An Entry is
// quiver's by its command; an Element only while the record names it,
// with the hash of exactly what quiver wrote.
type Element struct {
	// Keys lead from the top of the file to the array.
	Keys  []string
	Value json.RawMessage
}

// ElementSync is what SyncElements did to one file.
type ElementSync struct {
	Change
	// Owned are the elements quiver now owns, in want's order, to
	// record: the same keys and hash twice for two equal elements.
	Owned []Owned
	// Warnings say what was left alone: an element quiver wrote that is
	// no longer there as written (edited, so the person's now, or
	// deleted).
	Warnings []string
}

// SyncElements makes quiver's elements in data match want. An element is
// quiver's only when prev (the record) names its array and its hash, one
// element per record entry, taken from the end of the array (where quiver
// appends) so that an equal element of the person's own, earlier in the
// array, is never the one changed. Such an element is kept while wanted
// and removed when not; a wanted one quiver does not own is appended. A
// recorded element found nowhere as written is forgotten: edited, it is
// the person's now and stays. An array quiver created (in created, dotted
// paths as Install records them) that is left empty goes. want nil
// removes every element quiver owns.
func SyncElements(data []byte, syntax Syntax, want []Element, prev []Owned, created []string) (ElementSync, error) {
	d, err := ParseDoc(data, syntax)
	if err != nil {
		return ElementSync{}, err
	}
	var out ElementSync
	made := slices.Clone(created)
	// The arrays involved, in a fixed order: prev's, then want's.
	var arrays [][]string
	seen := map[string]bool{}
	for _, keys := range append(ownedKeys(prev), elementKeys(want)...) {
		if k := keyOf(keys); !seen[k] {
			seen[k] = true
			arrays = append(arrays, keys)
		}
	}
	var emptied [][]string
	for _, keys := range arrays {
		elems, err := d.Array(keys...)
		if err != nil {
			return ElementSync{}, err
		}
		hashes := make([]string, len(elems))
		for i, el := range elems {
			hashes[i] = valueHash(el)
		}
		// Claim, for each record entry, the last unclaimed element that
		// holds what quiver wrote.
		claimed := map[int]bool{}
		for _, o := range prev {
			if !slices.Equal(o.Keys, keys) || o.Hash == "" {
				continue
			}
			i := len(elems) - 1
			for ; i >= 0; i-- {
				if !claimed[i] && hashes[i] == o.Hash {
					break
				}
			}
			if i < 0 {
				out.Warnings = append(out.Warnings, fmt.Sprintf("a handler quiver wrote under %s was changed or removed since; what is there is yours and stays", strings.Join(keys, ".")))
				continue
			}
			claimed[i] = true
		}
		// Keep a claimed element for each wanted one equal to it; the
		// claimed ones left over are removed, the wanted ones left over
		// appended.
		var add []json.RawMessage
		for _, e := range want {
			if !slices.Equal(e.Keys, keys) {
				continue
			}
			h := valueHash(e.Value)
			kept := false
			for i := range elems {
				if claimed[i] && hashes[i] == h {
					delete(claimed, i)
					kept = true
					break
				}
			}
			if !kept {
				add = append(add, e.Value)
			}
			out.Owned = append(out.Owned, Owned{Keys: slices.Clone(keys), Hash: h})
		}
		if len(claimed) > 0 {
			if _, err := d.Remove(keys, func(i int, _ json.RawMessage) bool { return claimed[i] }); err != nil {
				return ElementSync{}, err
			}
			emptied = append(emptied, keys)
		}
		for _, v := range add {
			if err := d.Append(keys, v, &made); err != nil {
				return ElementSync{}, err
			}
		}
	}
	// An array quiver made for its elements goes once empty.
	for _, keys := range emptied {
		key := strings.Join(keys, ".")
		if slices.Contains(made, key) && string(d.Get(keys...)) == "[]" {
			d.Delete(keys, nil)
			made = slices.DeleteFunc(made, func(p string) bool { return p == key })
		}
	}
	out.Data = d.Bytes()
	out.Changed = !bytes.Equal(out.Data, data)
	out.Created = dedupe(made)
	return out, nil
}

func ownedKeys(os []Owned) [][]string {
	out := make([][]string, len(os))
	for i, o := range os {
		out[i] = o.Keys
	}
	return out
}

func elementKeys(es []Element) [][]string {
	out := make([][]string, len(es))
	for i, e := range es {
		out[i] = e.Keys
	}
	return out
}
