package wiring

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
)

// Doc is an agent's JSON configuration file held as an exact syntax tree
// (hujson keeps every byte: key order, whitespace, and the comments of the
// agents that allow them), so that what quiver does not change is written
// back byte for byte, and what it adds is indented like its neighbours.
type Doc struct {
	root hujson.Value
	// unit is one level of indentation, as the file writes it; multiline
	// is false for a file written on one line, where quiver adds its
	// entries on that line too.
	unit      string
	multiline bool
	// newline: the file ends with one (or is new), and keeps doing so.
	newline bool
}

// ErrShape is wrapped when a key quiver needs holds a value of another
// kind ("hooks" is a string): quiver will not guess, and changes nothing.
var ErrShape = errors.New("unexpected shape")

// ErrAmbiguous is wrapped when a document would be read differently by
// the agent than by quiver (ParseDoc): quiver refuses it, changes nothing,
// and reports the agent's entries in it as not wired.
var ErrAmbiguous = errors.New("read otherwise by the agent")

// readsAlike finds, at any depth of v (path leads to v), what the agent
// would read otherwise than quiver: a key given twice in one object
// (names compared as a JSON parser decodes them), and, in a syntax
// without them, a trailing comma.
func readsAlike(v *hujson.Value, path []string, syntax Syntax) error {
	where := func() string {
		if len(path) == 0 {
			return "at the top of the file"
		}
		return "in " + strconv.Quote(strings.Join(path, "."))
	}
	trailing := func(last *hujson.Value) error {
		if syntax != JSONC && last.AfterExtra != nil {
			return fmt.Errorf("%w: a trailing comma %s, which the agent refuses (it then reads nothing of the file); remove it", ErrAmbiguous, where())
		}
		return nil
	}
	switch c := v.Value.(type) {
	case *hujson.Object:
		seen := make(map[string]bool, len(c.Members))
		for i := range c.Members {
			name, _ := c.Members[i].Name.Value.(hujson.Literal)
			key := name.String()
			if seen[key] {
				return fmt.Errorf("%w: key %q appears twice %s, and the agent reads only the last copy; remove one", ErrAmbiguous, key, where())
			}
			seen[key] = true
			if err := readsAlike(&c.Members[i].Value, append(path, key), syntax); err != nil {
				return err
			}
		}
		if n := len(c.Members); n > 0 {
			return trailing(&c.Members[n-1].Value)
		}
	case *hujson.Array:
		for i := range c.Elements {
			if err := readsAlike(&c.Elements[i], append(path, strconv.Itoa(i)), syntax); err != nil {
				return err
			}
		}
		if n := len(c.Elements); n > 0 {
			return trailing(&c.Elements[n-1])
		}
	}
	return nil
}

// Syntax is the JSON an agent reads in one of its files, measured per
// agent (docs/agents.md): quiver reads the file so too, and refuses what
// the agent would refuse or read otherwise.
type Syntax uint8

// The syntaxes agents read.
const (
	// JSON is standard JSON (Claude Code, Codex, Cursor, Copilot's
	// hooks and .github/mcp.json).
	JSON Syntax = iota
	// JSONComments is JSON with // and /* */ comments and no trailing
	// comma (Gemini CLI, which strips comments and then JSON.parse's:
	// a trailing comma stops it).
	JSONComments
	// JSONC is JSON with comments and trailing commas (OpenCode).
	JSONC
)

// ParseDoc reads a configuration document written in syntax. Empty input
// is an empty object.
//
// A document the agent would read otherwise than quiver's editor is
// refused (ErrAmbiguous), never edited: a key given twice in one object
// (the agents' JSON.parse keeps the last copy, an editor that writes into
// the first would hide every entry it adds, and what agent list reports
// would not be what runs), or a byte-order mark (which the agents'
// JSON.parse refuses, so the agent reads no entry at all).
func ParseDoc(data []byte, syntax Syntax) (*Doc, error) {
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return nil, fmt.Errorf("%w: the file starts with a byte-order mark, which the agent's JSON parser refuses; remove it", ErrAmbiguous)
	}
	newline := len(bytes.TrimSpace(data)) == 0 || bytes.HasSuffix(data, []byte("\n"))
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if depth := nesting(data); depth > maxNesting {
		return nil, fmt.Errorf("nested %d levels deep; quiver reads at most %d", depth, maxNesting)
	}
	if syntax == JSON && !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	v, err := hujson.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return nil, fmt.Errorf("%w: the file holds a JSON %s, not an object", ErrShape, kindName(v.Value.Kind()))
	}
	if err := readsAlike(&v, nil, syntax); err != nil {
		return nil, err
	}
	d := &Doc{root: v, unit: "  ", multiline: true, newline: newline}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 2 {
		d.multiline = bytes.Contains(trimmed, []byte("\n"))
		if u := indentUnit(data); u != "" {
			d.unit = u
		}
	}
	return d, nil
}

// Bytes is the document as it would be written.
func (d *Doc) Bytes() []byte {
	b := d.root.Pack()
	if d.newline && !bytes.HasSuffix(b, []byte("\n")) {
		b = append(b, '\n')
	}
	return b
}

// Empty reports whether the document is an object without members.
func (d *Doc) Empty() bool {
	return len(d.root.Value.(*hujson.Object).Members) == 0
}

// indentUnit is the leading whitespace of the first indented line.
func indentUnit(data []byte) string {
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed != "" && len(trimmed) < len(line) {
			return line[:len(line)-len(trimmed)]
		}
	}
	return ""
}

func kindName(k hujson.Kind) string {
	switch k {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case '0':
		return "number"
	case 'n':
		return "null"
	}
	return "boolean"
}

// lookup finds the member key of obj.
func lookup(obj *hujson.Object, key string) (int, *hujson.Value) {
	for i := range obj.Members {
		if name, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && name.String() == key {
			return i, &obj.Members[i].Value
		}
	}
	return -1, nil
}

// Get returns the raw JSON at keys (nil when absent).
func (d *Doc) Get(keys ...string) json.RawMessage {
	if v := d.find(keys); v != nil {
		return minimal(v)
	}
	return nil
}

// find is the value at keys, nil when a key is absent or a value on the
// way is not an object.
func (d *Doc) find(keys []string) *hujson.Value {
	v := &d.root
	for _, k := range keys {
		obj, ok := v.Value.(*hujson.Object)
		if !ok {
			return nil
		}
		if _, v = lookup(obj, k); v == nil {
			return nil
		}
	}
	return v
}

// minimal is a value as standard, compact JSON.
func minimal(v *hujson.Value) json.RawMessage {
	c := v.Clone()
	c.Minimize()
	return json.RawMessage(c.Pack())
}

// object returns the object at keys, creating the missing ones; created
// gets the dotted path of each object it made.
func (d *Doc) object(keys []string, created *[]string) (*hujson.Object, error) {
	obj := d.root.Value.(*hujson.Object)
	for i, k := range keys {
		_, v := lookup(obj, k)
		if v == nil {
			v = d.insert(obj, i+1, k, hujson.Value{Value: &hujson.Object{}})
			*created = append(*created, strings.Join(keys[:i+1], "."))
		}
		next, ok := v.Value.(*hujson.Object)
		if !ok {
			return nil, fmt.Errorf("%w: %q is a JSON %s, not an object", ErrShape, strings.Join(keys[:i+1], "."), kindName(v.Value.Kind()))
		}
		obj = next
	}
	return obj, nil
}

// Array returns the elements of the array at keys as compact JSON (nil
// when absent), or an error when something else is there.
func (d *Doc) Array(keys ...string) ([]json.RawMessage, error) {
	arr, err := d.array(keys, nil)
	if arr == nil || err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, len(arr.Elements))
	for i := range arr.Elements {
		out[i] = minimal(&arr.Elements[i])
	}
	return out, nil
}

// array finds the array at keys; with created non-nil it creates it and
// the objects above it.
func (d *Doc) array(keys []string, created *[]string) (*hujson.Array, error) {
	last := len(keys) - 1
	var parent *hujson.Object
	if created != nil {
		var err error
		if parent, err = d.object(keys[:last], created); err != nil {
			return nil, err
		}
	} else {
		v := d.find(keys[:last])
		if v == nil {
			return nil, nil
		}
		obj, ok := v.Value.(*hujson.Object)
		if !ok {
			return nil, fmt.Errorf("%w: %q is a JSON %s, not an object", ErrShape, strings.Join(keys[:last], "."), kindName(v.Value.Kind()))
		}
		parent = obj
	}
	_, v := lookup(parent, keys[last])
	if v == nil {
		if created == nil {
			return nil, nil
		}
		v = d.insert(parent, len(keys), keys[last], hujson.Value{Value: &hujson.Array{}})
		*created = append(*created, strings.Join(keys, "."))
	}
	arr, ok := v.Value.(*hujson.Array)
	if !ok {
		return nil, fmt.Errorf("%w: %q is a JSON %s, not an array", ErrShape, strings.Join(keys, "."), kindName(v.Value.Kind()))
	}
	return arr, nil
}

// Append adds elem (any JSON) at the end of the array at keys, creating
// the array and the objects above it as needed; created gets what it made.
func (d *Doc) Append(keys []string, elem json.RawMessage, created *[]string) error {
	arr, err := d.array(keys, created)
	if err != nil {
		return err
	}
	depth := len(keys) + 1
	n := len(arr.Elements)
	var v hujson.Value
	if n > 0 && oneLine(arr) {
		// [{...}] on one line stays one line: the element joins it as
		// the file writes them, and leaves it as it was when taken away.
		before := hujson.Extra(" ")
		if n > 1 {
			before = spacing(arr.Elements[n-1].BeforeExtra, before)
		}
		v, err = d.formatAs(elem, before, false)
	} else {
		before := d.lineBreak(depth)
		if n > 0 {
			before = spacing(arr.Elements[n-1].BeforeExtra, before)
		}
		v, err = d.format(elem, before)
		d.openUp(&arr.AfterExtra, depth-1)
	}
	if err != nil {
		return err
	}
	if n > 0 && arr.Elements[n-1].AfterExtra != nil {
		v.AfterExtra = hujson.Extra("") // the file ends its lists with a comma: so does quiver
	}
	arr.Elements = append(arr.Elements, v)
	return nil
}

// oneLine reports an array written on one line: no line break before any
// element nor before its closing bracket.
func oneLine(arr *hujson.Array) bool {
	if bytes.Contains(arr.AfterExtra, []byte("\n")) {
		return false
	}
	for _, e := range arr.Elements {
		if bytes.Contains(e.BeforeExtra, []byte("\n")) {
			return false
		}
	}
	return true
}

// Replace sets element i of the array at keys to elem, in place.
func (d *Doc) Replace(keys []string, i int, elem json.RawMessage) error {
	arr, err := d.array(keys, nil)
	if err != nil || arr == nil || i >= len(arr.Elements) {
		return fmt.Errorf("%w: no element %d at %q", ErrShape, i, strings.Join(keys, "."))
	}
	old := arr.Elements[i]
	v, err := d.format(elem, old.BeforeExtra)
	if err != nil {
		return err
	}
	v.AfterExtra = old.AfterExtra
	arr.Elements[i] = v
	return nil
}

// Remove deletes the elements of the array at keys for which drop says
// so, and reports how many it removed.
func (d *Doc) Remove(keys []string, drop func(i int, elem json.RawMessage) bool) (int, error) {
	arr, err := d.array(keys, nil)
	if err != nil || arr == nil {
		return 0, err
	}
	trailing := len(arr.Elements) > 0 && arr.Elements[len(arr.Elements)-1].AfterExtra != nil
	kept := arr.Elements[:0]
	n := 0
	for i := range arr.Elements {
		if drop(i, minimal(&arr.Elements[i])) {
			n++
			continue
		}
		kept = append(kept, arr.Elements[i])
	}
	arr.Elements = kept
	if k := len(kept); n > 0 && k > 0 && trailing && kept[k-1].AfterExtra == nil {
		kept[k-1].AfterExtra = hujson.Extra("") // keep the list's trailing comma
	}
	if len(kept) == 0 {
		closeUp(&arr.AfterExtra)
	}
	return n, nil
}

// SetIfAbsent sets keys to value when nothing is there, creating the
// objects above it; created gets what it made (including keys itself).
func (d *Doc) SetIfAbsent(keys []string, value json.RawMessage, created *[]string) error {
	if d.find(keys) != nil {
		return nil
	}
	last := len(keys) - 1
	parent, err := d.object(keys[:last], created)
	if err != nil {
		return err
	}
	v, err := d.format(value, nil)
	if err != nil {
		return err
	}
	d.insert(parent, len(keys), keys[last], v)
	*created = append(*created, strings.Join(keys, "."))
	return nil
}

// Delete removes the member at keys, if present. keep may veto it, given
// the member's value as compact JSON (quiver deletes a key it created
// only while it holds what quiver put there).
func (d *Doc) Delete(keys []string, keep func(json.RawMessage) bool) {
	last := len(keys) - 1
	v := d.find(keys[:last])
	if v == nil {
		return
	}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return
	}
	i, member := lookup(obj, keys[last])
	if member == nil || (keep != nil && keep(minimal(member))) {
		return
	}
	trailing := member.AfterExtra != nil && i == len(obj.Members)-1
	obj.Members = append(obj.Members[:i], obj.Members[i+1:]...)
	if n := len(obj.Members); n == 0 {
		closeUp(&obj.AfterExtra)
	} else if trailing && obj.Members[n-1].Value.AfterExtra == nil {
		obj.Members[n-1].Value.AfterExtra = hujson.Extra{}
	}
}

// insert adds member key at the end of obj (whose members sit at depth).
func (d *Doc) insert(obj *hujson.Object, depth int, key string, v hujson.Value) *hujson.Value {
	name := hujson.Value{BeforeExtra: d.lineBreak(depth), Value: hujson.String(key)}
	if n := len(obj.Members); n > 0 {
		name.BeforeExtra = spacing(obj.Members[n-1].Name.BeforeExtra, d.lineBreak(depth))
		if v.BeforeExtra == nil {
			v.BeforeExtra = spacing(obj.Members[n-1].Value.BeforeExtra, hujson.Extra(" "))
		}
		// An object that ended in a comma still does, so that taking the
		// member away again gives back the same bytes; its closing
		// brace stays where the user put it.
		if obj.Members[n-1].Value.AfterExtra != nil && v.AfterExtra == nil {
			v.AfterExtra = hujson.Extra{}
		}
	} else {
		if v.BeforeExtra == nil && d.multiline {
			v.BeforeExtra = hujson.Extra(" ")
		}
		d.openUp(&obj.AfterExtra, depth-1)
	}
	obj.Members = append(obj.Members, hujson.ObjectMember{Name: name, Value: v})
	return &obj.Members[len(obj.Members)-1].Value
}

// spacing is the layout a new neighbour copies from extra (the
// whitespace before a member): its last line's indentation, never the
// comments it holds, which belong to that member; fallback when it has
// none of its own.
func spacing(extra, fallback hujson.Extra) hujson.Extra {
	tail := extra
	if i := bytes.LastIndexByte(extra, '\n'); i >= 0 {
		tail = extra[i:]
	}
	if len(bytes.TrimSpace(tail)) > 0 {
		return fallback
	}
	return append(hujson.Extra(nil), tail...)
}

// lineBreak is the whitespace before a value at depth: a newline and the
// indentation in a multi-line file, nothing in a one-line file.
func (d *Doc) lineBreak(depth int) hujson.Extra {
	if !d.multiline {
		return nil
	}
	return hujson.Extra("\n" + strings.Repeat(d.unit, depth))
}

// openUp puts the closing bracket of a composite that had no members on a
// line of its own (at depth), as it will now hold some.
// An empty composite written with a blank inside ("[ ]") keeps it: the
// blank is the file's, and closeUp gives it back.
func (d *Doc) openUp(after *hujson.Extra, depth int) {
	if d.multiline && len(*after) == 0 {
		*after = hujson.Extra("\n" + strings.Repeat(d.unit, depth))
	}
}

// closeUp returns an emptied composite to "{}" or "[]" when openUp put its
// closing bracket on a line of its own (not when comments live there, or
// the file's own blank does: "[ ]" stays).
func closeUp(after *hujson.Extra) {
	if len(bytes.TrimSpace(*after)) == 0 && bytes.Contains(*after, []byte("\n")) {
		*after = nil
	}
}

// format parses elem and indents it to continue after before (the
// whitespace that will precede it).
func (d *Doc) format(elem json.RawMessage, before hujson.Extra) (hujson.Value, error) {
	return d.formatAs(elem, before, d.multiline)
}

// formatAs is format, indented (multiline) or compact.
func (d *Doc) formatAs(elem json.RawMessage, before hujson.Extra, multiline bool) (hujson.Value, error) {
	var text []byte
	var buf bytes.Buffer
	if multiline {
		prefix := string(before)
		if i := strings.LastIndexByte(prefix, '\n'); i >= 0 {
			prefix = prefix[i+1:]
		}
		if err := json.Indent(&buf, elem, prefix, d.unit); err != nil {
			return hujson.Value{}, err
		}
	} else if err := json.Compact(&buf, elem); err != nil {
		return hujson.Value{}, err
	}
	text = buf.Bytes()
	v, err := hujson.Parse(text)
	if err != nil {
		return hujson.Value{}, err
	}
	v.BeforeExtra = before
	return v, nil
}

// maxNesting bounds how deep a configuration may nest: the parser
// recurses, and no agent's settings come near it.
const maxNesting = 512

// nesting is the deepest bracket nesting of data outside strings (comments
// may count brackets too; a file that deep is refused either way).
func nesting(data []byte) int {
	depth, most := 0, 0
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			most = max(most, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return most
}
