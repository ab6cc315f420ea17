package wiring

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/quiver-cli/quiver/internal/lazy"
)

// SyncMembers' contract for a TOML file (Codex's config.toml), where a
// member is a whole table: [mcp_servers.NAME] with its sub-tables
// ([mcp_servers.NAME.env]). A TOML library does not keep comments, layout
// and order on a round trip, so quiver edits the text: it appends,
// replaces and removes only the table blocks it wrote, finds them with
// go-toml's parser (no lexer of quiver's own to get strings and
// multi-line arrays wrong), and parses the file before and after to check
// that nothing but its members changed. A table the user wrote in another
// form (an inline table, dotted keys under [mcp_servers]) is theirs.

// SyncTOMLMembers makes quiver's members of a TOML file match want, as
// SyncMembers does for JSON: a member quiver owns (in prev, still holding
// the value recorded) is updated in place or, when no longer wanted,
// removed with the blank line before it; one the user has edited, or
// rewritten in a form other than [table] headers, becomes theirs and
// stays; a wanted name that is already defined and not quiver's is left
// as it is, with a warning. New members are appended at the end. A file
// quiver created (createdFile) is deleted when nothing else is left. Each
// member's value must be a JSON object (a table). A file that does not
// parse, or an edit whose result would not say exactly what was meant, is
// an error and nothing changes.
func SyncTOMLMembers(data []byte, want []Member, prev []Owned, createdFile bool) (MemberSync, error) {
	doc, err := readTOML(data)
	if err != nil {
		return MemberSync{}, err
	}
	var out MemberSync
	ed := tomlEditor{doc: doc, nl: "\n"}
	if bytes.Contains(data, []byte("\r\n")) {
		ed.nl = "\r\n"
	}
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
	// expect is what each touched member must hold afterwards ("" for
	// absent): the check that the text edit did what was meant.
	expect := map[string]string{}
	var touched [][]string
	for _, o := range prev {
		if wanted[keyOf(o.Keys)] {
			continue
		}
		cur, ok := doc.get(o.Keys)
		switch {
		case !ok:
		case tomlHash(cur) != o.Hash:
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s was changed since quiver wrote it; left as yours", strings.Join(o.Keys, ".")))
		case !doc.tables(o.Keys):
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s is no longer written as quiver wrote it; left as yours", strings.Join(o.Keys, ".")))
		default:
			ed.remove(o.Keys)
			expect[keyOf(o.Keys)], touched = "", append(touched, o.Keys)
		}
	}
	for _, m := range want {
		hash := valueHash(m.Value)
		cur, present := doc.get(m.Keys)
		o, mine := owns(m.Keys)
		switch {
		case !present:
			if err := ed.insert(m.Keys, m.Value); err != nil {
				return MemberSync{}, fmt.Errorf("%s: %w", strings.Join(m.Keys, "."), err)
			}
			expect[keyOf(m.Keys)], touched = hash, append(touched, m.Keys)
		case mine && tomlHash(cur) == o.Hash && tomlHash(cur) == hash:
		case mine && tomlHash(cur) == o.Hash && doc.tables(m.Keys):
			if err := ed.replace(m.Keys, m.Value); err != nil {
				return MemberSync{}, fmt.Errorf("%s: %w", strings.Join(m.Keys, "."), err)
			}
			expect[keyOf(m.Keys)], touched = hash, append(touched, m.Keys)
		case mine && tomlHash(cur) == o.Hash:
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s is no longer written as quiver wrote it; left as yours", strings.Join(m.Keys, ".")))
			continue
		case tomlHash(cur) == hash:
			// What quiver would write, by content: quiver's on every
			// machine (a teammate's clone of a file quiver wrote), not
			// only on the one whose record says so.
		default:
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s is already set, not by quiver; left as it is", strings.Join(m.Keys, ".")))
			continue
		}
		out.Owned = append(out.Owned, Owned{Keys: m.Keys, Hash: hash})
	}
	result, err := ed.apply()
	if err != nil {
		return MemberSync{}, err
	}
	if err := checkTOMLEdit(doc.value, result, touched, expect); err != nil {
		return MemberSync{}, err
	}
	out.Data = result
	out.Changed = !bytes.Equal(result, data)
	if createdFile && len(bytes.TrimSpace(result)) == 0 {
		out.Delete, out.Changed = true, true
	}
	return out, nil
}

// tomlDoc is a parsed TOML file: its meaning, and where its tables are.
type tomlDoc struct {
	data  []byte
	value map[string]any
	// headers are the [table] and [[array]] headers in file order;
	// keyvals the key/value lines, by full path.
	headers []tomlHeader
	keyvals []tomlKeyval
}

// tomlHeader is one table header and the lines that belong to it.
type tomlHeader struct {
	keys  []string
	array bool
	// start is where the header's line starts; end where its block ends:
	// after its last key/value line (comments and blank lines after that
	// belong to what follows).
	start, end int
}

type tomlKeyval struct {
	// keys is the full path: the table's keys, then the dotted key.
	keys []string
	// table is the index of the header it is under, -1 for the top.
	table int
}

func readTOML(data []byte) (*tomlDoc, error) {
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		// Read otherwise by parsers that take it as a stray character.
		return nil, fmt.Errorf("%w: the file starts with a byte-order mark; remove it", ErrAmbiguous)
	}
	d := &tomlDoc{data: data, value: map[string]any{}}
	if err := toml.Unmarshal(data, &d.value); err != nil {
		return nil, fmt.Errorf("not valid TOML: %v", tomlError(err))
	}
	p := unstable.Parser{KeepComments: true}
	p.Reset(data)
	table := -1
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			keys, first, last := keyParts(e)
			d.headers = append(d.headers, tomlHeader{keys: keys, array: e.Kind == unstable.ArrayTable,
				start: lineStart(data, first), end: lineEnd(data, last)})
			table = len(d.headers) - 1
		case unstable.KeyValue:
			keys, _, _ := keyParts(e)
			var full []string
			if table >= 0 {
				full = append(full, d.headers[table].keys...)
				h := &d.headers[table]
				h.end = max(h.end, lineEnd(data, int(e.Raw.Offset+e.Raw.Length)))
			}
			d.keyvals = append(d.keyvals, tomlKeyval{keys: append(full, keys...), table: table})
		}
	}
	if err := p.Error(); err != nil {
		return nil, fmt.Errorf("not valid TOML: %v", tomlError(err))
	}
	return d, nil
}

// tomlError keeps go-toml's message and drops its document excerpt: the
// error names the file, the person opens it.
func tomlError(err error) error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return fmt.Errorf("line %d, column %d: %s", row, col, de.Error())
	}
	var pe *unstable.ParserError
	if errors.As(err, &pe) {
		return errors.New(pe.Message)
	}
	return err
}

// keyParts reads an expression's key: its parts, decoded, and the offsets
// of its first and last bytes.
func keyParts(e *unstable.Node) (keys []string, first, last int) {
	first = -1
	it := e.Key()
	for it.Next() {
		n := it.Node()
		keys = append(keys, string(n.Data))
		if first < 0 {
			first = int(n.Raw.Offset)
		}
		last = int(n.Raw.Offset + n.Raw.Length)
	}
	return keys, first, last
}

func lineStart(data []byte, at int) int { return bytes.LastIndexByte(data[:at], '\n') + 1 }

func lineEnd(data []byte, at int) int {
	if i := bytes.IndexByte(data[at:], '\n'); i >= 0 {
		return at + i + 1
	}
	return len(data)
}

// get is the value at keys, when there is one.
func (d *tomlDoc) get(keys []string) (any, bool) {
	var cur any = d.value
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// tables reports whether the value at keys is written only as [table]
// blocks quiver can lift out whole: a [keys] header, sub-tables as
// headers, and nothing else anywhere that reaches into it (no inline
// table, no dotted key from a table above, no [[array]]).
func (d *tomlDoc) tables(keys []string) bool {
	found := false
	for _, h := range d.headers {
		switch {
		case h.array && (hasPrefix(h.keys, keys) || hasPrefix(keys, h.keys)):
			return false
		case !h.array && slices.Equal(h.keys, keys):
			found = true
		}
	}
	for _, kv := range d.keyvals {
		if kv.table >= 0 && hasPrefix(d.headers[kv.table].keys, keys) {
			continue // inside one of its own blocks
		}
		if hasPrefix(kv.keys, keys) || hasPrefix(keys, kv.keys) {
			return false
		}
	}
	return found
}

func hasPrefix(s, prefix []string) bool {
	return len(s) >= len(prefix) && slices.Equal(s[:len(prefix)], prefix)
}

// tomlHash is valueHash of a value read from TOML.
func tomlHash(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return valueHash(b)
}

// tomlEditor collects text edits of one file and applies them at once.
type tomlEditor struct {
	doc     *tomlDoc
	nl      string
	edits   []tomlEdit
	appends []string
}

// tomlEdit replaces data[from:to] with text.
type tomlEdit struct {
	from, to int
	text     string
}

// remove drops every block of the table at keys, each with one blank line
// that separates it from what comes before (after, at the top of the
// file): what insert added.
func (e *tomlEditor) remove(keys []string) {
	for _, h := range e.doc.headers {
		if !h.array && hasPrefix(h.keys, keys) {
			from, to := e.withSeparator(h.start, h.end)
			e.edits = append(e.edits, tomlEdit{from: from, to: to})
		}
	}
}

// withSeparator widens a block over the blank line before it (a block
// that starts the file takes the one after it, in apply).
func (e *tomlEditor) withSeparator(from, to int) (int, int) {
	data := e.doc.data
	if from > 0 {
		if prev := lineStart(data, from-1); len(bytes.TrimSpace(data[prev:from])) == 0 {
			return prev, to
		}
	}
	return from, to
}

// replace writes the table at keys anew where its header is, removing its
// sub-table blocks wherever they are.
func (e *tomlEditor) replace(keys []string, value json.RawMessage) error {
	text, err := tomlTable(keys, value, e.nl)
	if err != nil {
		return err
	}
	for _, h := range e.doc.headers {
		switch {
		case h.array || !hasPrefix(h.keys, keys):
		case len(h.keys) == len(keys):
			e.edits = append(e.edits, tomlEdit{from: h.start, to: h.end, text: text})
		default:
			from, to := e.withSeparator(h.start, h.end)
			e.edits = append(e.edits, tomlEdit{from: from, to: to})
		}
	}
	return nil
}

// insert appends the table at keys to the file.
func (e *tomlEditor) insert(keys []string, value json.RawMessage) error {
	text, err := tomlTable(keys, value, e.nl)
	if err != nil {
		return err
	}
	e.appends = append(e.appends, text)
	return nil
}

// apply makes the edited text: removals and replacements in place, then
// the new tables at the end, each after a blank line.
func (e *tomlEditor) apply() ([]byte, error) {
	edits := slices.Clone(e.edits)
	sort.Slice(edits, func(i, j int) bool { return edits[i].from < edits[j].from })
	var merged []tomlEdit
	for _, ed := range edits {
		if n := len(merged); n > 0 && ed.from <= merged[n-1].to {
			last := &merged[n-1]
			switch {
			case ed.text == "" && last.text == "":
				last.to = max(last.to, ed.to)
				continue
			case ed.from < last.to:
				return nil, errors.New("quiver's tables overlap in a way it cannot edit; edit the file by hand")
			}
		}
		merged = append(merged, ed)
	}
	data := e.doc.data
	if len(merged) > 0 && merged[0].from == 0 && merged[0].text == "" && merged[0].to < len(data) {
		first := &merged[0]
		if next := lineEnd(data, first.to); len(bytes.TrimSpace(data[first.to:next])) == 0 && (len(merged) == 1 || next <= merged[1].from) {
			first.to = next
		}
	}
	var b bytes.Buffer
	at := 0
	for _, ed := range merged {
		b.Write(data[at:ed.from])
		b.WriteString(ed.text)
		at = ed.to
	}
	b.Write(data[at:])
	for _, t := range e.appends {
		if b.Len() > 0 {
			if !bytes.HasSuffix(b.Bytes(), []byte("\n")) {
				b.WriteString(e.nl)
			}
			b.WriteString(e.nl)
		}
		b.WriteString(t)
	}
	return b.Bytes(), nil
}

// checkTOMLEdit parses the edited file and checks it says what was meant:
// each touched member holds the value wanted (or is gone), and everything
// else means what it meant before.
func checkTOMLEdit(before map[string]any, result []byte, touched [][]string, expect map[string]string) error {
	after := map[string]any{}
	if err := toml.Unmarshal(result, &after); err != nil {
		return fmt.Errorf("quiver's edit would not parse (%v); edit the file by hand", tomlError(err))
	}
	d := &tomlDoc{value: after}
	for _, keys := range touched {
		cur, ok := d.get(keys)
		want := expect[keyOf(keys)]
		if (want == "" && ok) || (want != "" && (!ok || tomlHash(cur) != want)) {
			return fmt.Errorf("%s: quiver's edit would not hold what it wrote (another part of the file defines it too); edit the file by hand", strings.Join(keys, "."))
		}
	}
	// Compared as printed (maps in key order): a user's nan equals itself.
	if fmt.Sprintf("%#v", withoutPaths(before, touched)) != fmt.Sprintf("%#v", withoutPaths(after, touched)) {
		return errors.New("quiver's edit would change more than its own tables; edit the file by hand")
	}
	return nil
}

// withoutPaths copies doc without the values at paths, and without the
// tables on their way that are then empty (TOML makes them implicitly).
func withoutPaths(doc map[string]any, paths [][]string) map[string]any {
	out := doc
	for _, keys := range paths {
		out = without(out, keys)
	}
	return out
}

func without(m map[string]any, keys []string) map[string]any {
	if len(keys) == 0 {
		return m
	}
	cur, ok := m[keys[0]]
	if !ok {
		return m
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	if len(keys) == 1 {
		delete(out, keys[0])
		return out
	}
	sub, ok := cur.(map[string]any)
	if !ok {
		return m
	}
	if rest := without(sub, keys[1:]); len(rest) == 0 {
		delete(out, keys[0])
	} else {
		out[keys[0]] = rest
	}
	return out
}

// tomlTable writes a JSON object as the table at keys: its header, its
// plain values in the object's order, then each object-valued member as a
// sub-table after a blank line (how Codex writes [mcp_servers.x.env]).
func tomlTable(keys []string, value json.RawMessage, nl string) (string, error) {
	fields, err := objectFields(value)
	if err != nil {
		return "", err
	}
	var b, subs strings.Builder
	b.WriteString("[" + tomlPath(keys) + "]" + nl)
	for _, f := range fields {
		if isObject(f.raw) {
			t, err := tomlTable(append(slices.Clip(keys), f.key), f.raw, nl)
			if err != nil {
				return "", err
			}
			subs.WriteString(nl + t)
			continue
		}
		v, err := jsonToTOML(f.raw)
		if err != nil {
			return "", fmt.Errorf("%s: %w", f.key, err)
		}
		enc, err := tomlValue(v)
		if err != nil {
			return "", fmt.Errorf("%s: %w", f.key, err)
		}
		b.WriteString(tomlKey(f.key) + " = " + enc + nl)
	}
	return b.String() + subs.String(), nil
}

type jsonField struct {
	key string
	raw json.RawMessage
}

// objectFields reads a JSON object's members in their order.
func objectFields(raw json.RawMessage) ([]jsonField, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("a TOML member must be a table (a JSON object)")
	}
	var out []jsonField
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, jsonField{key: t.(string), raw: v})
	}
	return out, nil
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

// jsonToTOML decodes a JSON value into what go-toml encodes: whole
// numbers as integers, null refused (TOML has none).
func jsonToTOML(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return tomlNumbers(v)
}

func tomlNumbers(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, errors.New("TOML has no null")
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, nil
		}
		return x.Float64()
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var err error
			if out[i], err = tomlNumbers(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			var err error
			if out[k], err = tomlNumbers(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return v, nil
}

// tomlValue encodes one value with go-toml (tables in arrays inline).
func tomlValue(v any) (string, error) {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).SetTablesInline(true).Encode(map[string]any{"v": v}); err != nil {
		return "", err
	}
	s, ok := strings.CutPrefix(b.String(), "v = ")
	if !ok || !strings.HasSuffix(s, "\n") {
		return "", fmt.Errorf("cannot write %v in TOML", v)
	}
	return strings.TrimSuffix(s, "\n"), nil
}

var bareKey = lazy.Regexp{Expr: `^[A-Za-z0-9_-]+$`}

// tomlKey writes one key part: bare when TOML allows it, else quoted (a
// quoted key is a TOML string).
func tomlKey(k string) string {
	if bareKey.Get().MatchString(k) {
		return k
	}
	s, err := tomlValue(k)
	if err != nil {
		return `""`
	}
	return s
}

func tomlPath(keys []string) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = tomlKey(k)
	}
	return strings.Join(parts, ".")
}
