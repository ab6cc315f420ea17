package wiring

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Member is one named value quiver keeps in an object of another
// program's JSON file: an MCP server under "mcpServers", a marketplace
// under "extraKnownMarketplaces", a switch under "enabledPlugins" (SPEC
// §16). Unlike hook entries, which quiver recognises by their command, a
// member is quiver's only because the record says quiver wrote it, with
// that value.
type Member struct {
	// Keys lead from the top of the file to the member; the last is its
	// name.
	Keys  []string
	Value json.RawMessage
}

// Owned is a member as the record keeps it: where it is, and the hash of
// the value quiver wrote. Created lists the objects above it that quiver
// made for it (dotted paths below Keys' parent), removed again when
// empty.
type Owned struct {
	Keys []string `yaml:"keys"`
	Hash string   `yaml:"hash"`
}

// valueHash names a value by its meaning, not its formatting.
func valueHash(v json.RawMessage) string {
	var x any
	if json.Unmarshal(v, &x) != nil {
		return ""
	}
	canon, _ := json.Marshal(x)
	sum := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// MemberSync is what SyncMembers did to one file.
type MemberSync struct {
	Change
	// Owned is what quiver now owns in the file, to record.
	Owned []Owned
	// Warnings say what was left alone and why (a member of the user's
	// under a name quiver wants, one the user edited).
	Warnings []string
}

// SyncMembers makes quiver's members of one file match want. A member
// quiver owns (in prev, still holding the value recorded) is updated or,
// when no longer wanted, removed; one the user has since edited becomes
// theirs and stays. A wanted name that already holds exactly what quiver
// would write is quiver's, whoever's record says so (a teammate's clone
// of a file quiver wrote, issue 43); one that holds anything else is left
// as it is, with a warning: quiver never overwrites the user's entry. Objects quiver creates on the way are recorded in created (as
// with hook entries) and removed when they end up empty; a file quiver
// created (createdFile) is deleted when nothing else is left.
func SyncMembers(data []byte, syntax Syntax, want []Member, prev []Owned, created []string, createdFile bool) (MemberSync, error) {
	d, err := ParseDoc(data, syntax)
	if err != nil {
		return MemberSync{}, err
	}
	var out MemberSync
	made := slices.Clone(created)
	wanted := map[string]bool{}
	for _, m := range want {
		wanted[keyOf(m.Keys)] = true
	}
	owns := func(keys []string) (Owned, bool) {
		for _, o := range prev {
			if slices.Equal(o.Keys, keys) {
				return o, true
			}
		}
		return Owned{}, false
	}
	// Members quiver no longer wants: removed while they hold what quiver
	// wrote.
	for _, o := range prev {
		if wanted[keyOf(o.Keys)] {
			continue
		}
		cur := d.Get(o.Keys...)
		switch {
		case cur == nil:
		case valueHash(cur) == o.Hash:
			d.Delete(o.Keys, nil)
		default:
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s was changed since quiver wrote it; left as yours", strings.Join(o.Keys, ".")))
		}
	}
	for _, m := range want {
		hash := valueHash(m.Value)
		cur := d.Get(m.Keys...)
		o, mine := owns(m.Keys)
		switch {
		case cur == nil:
			if err := d.Set(m.Keys, m.Value, &made); err != nil {
				return MemberSync{}, err
			}
		case mine && valueHash(cur) == o.Hash:
			if valueHash(cur) != hash {
				if err := d.Set(m.Keys, m.Value, &made); err != nil {
					return MemberSync{}, err
				}
			}
		case valueHash(cur) == hash:
			// What quiver would write, by content: quiver's on every
			// machine (a teammate's clone of a file quiver wrote), not
			// only on the one whose record says so.
		default:
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s is already set, not by quiver; left as it is", strings.Join(m.Keys, ".")))
			continue
		}
		out.Owned = append(out.Owned, Owned{Keys: m.Keys, Hash: hash})
	}
	// Objects quiver made that are now empty go, deepest first.
	paths := dedupe(made)
	slices.SortFunc(paths, func(a, b string) int { return strings.Count(b, "\x00") - strings.Count(a, "\x00") })
	var still []string
	for _, p := range paths {
		keys := strings.Split(p, "\x00")
		v := d.Get(keys...)
		if v == nil {
			continue
		}
		if string(v) == "{}" {
			d.Delete(keys, nil)
			continue
		}
		still = append(still, p)
	}
	out.Data = d.Bytes()
	out.Changed = !bytes.Equal(out.Data, data)
	out.Created = still
	if createdFile && d.Empty() {
		out.Delete, out.Changed = true, true
	}
	return out, nil
}

// keyOf joins keys unambiguously (names may hold dots).
func keyOf(keys []string) string { return strings.Join(keys, "\x00") }

// Set puts value at keys, replacing what is there, creating the objects
// above it; created gets each object it made, as keyOf paths.
func (d *Doc) Set(keys []string, value json.RawMessage, created *[]string) error {
	last := len(keys) - 1
	var made []string
	parent, err := d.object(keys[:last], &made)
	if err != nil {
		return err
	}
	for _, m := range made {
		*created = append(*created, strings.ReplaceAll(m, ".", "\x00"))
	}
	// Indented as a member at its depth; the space after the colon is
	// the file's own.
	v, err := d.format(value, d.lineBreak(len(keys)))
	if err != nil {
		return err
	}
	v.BeforeExtra = nil
	if _, cur := lookup(parent, keys[last]); cur != nil {
		v.BeforeExtra, v.AfterExtra = cur.BeforeExtra, cur.AfterExtra
		*cur = v
		return nil
	}
	d.insert(parent, len(keys), keys[last], v)
	return nil
}
