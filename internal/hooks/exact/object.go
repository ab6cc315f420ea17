// Package exact reads the JSON objects that hooks and handlers print the
// way agents read them (SPEC §8 "Protocol"): a key matches only when it is
// spelled exactly, and a key given more than once is kept as often as it
// was given, so that the caller, not the order of the copies, decides
// which one counts.
//
// encoding/json does neither: it matches a struct field's name whatever
// its letter case ("Blocked", "BLOCKED", even "bloc\u212aed" with a Kelvin
// sign are all "blocked"), and lets the last copy of a key win, so
// {"blocked": true, "Blocked": false} or {"blocked": true, "blocked":
// false} would undo a guard's block. Only values picked here by their
// exact key ever reach encoding/json.
package exact

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"
)

// Member is one key of an object and its value, as written.
type Member struct {
	Key string
	// Value is the raw JSON text of the value, without the white space
	// around it: byte for byte what the hook printed.
	Value json.RawMessage
}

// Object is a JSON object's members in the order written, every copy of
// a repeated key kept.
type Object []Member

// ErrNotObject is returned by Parse for JSON that is not an object.
var ErrNotObject = errors.New("not a JSON object")

// TrailingError is returned by Parse when a valid object is followed by
// more than white space (a second object, a stray '}').
type TrailingError struct {
	// Offset is where the extra text starts.
	Offset int
}

func (e *TrailingError) Error() string { return "more than one JSON object, or text after it" }

// Parse reads data, one JSON object with optional white space around it.
// The values of the result are slices of data, not copies. A syntax error
// is encoding/json's, so it says what and where.
func Parse(data []byte) (Object, error) {
	if !json.Valid(data) {
		return nil, whyInvalid(data)
	}
	i := skipSpace(data, 0)
	if data[i] != '{' {
		return nil, ErrNotObject
	}
	return members(data, i), nil
}

// whyInvalid explains why data is not valid JSON; it runs only on that
// error path.
func whyInvalid(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return err
	}
	// json.Decoder.More() is false before a stray '}' or ']', so the
	// offset, not More, says whether the value was all there was.
	return &TrailingError{Offset: int(dec.InputOffset())}
}

// members splits the object that starts at data[i]; data is valid JSON.
func members(data []byte, i int) Object {
	o := Object{}
	i = skipSpace(data, i+1)
	if data[i] == '}' {
		return o
	}
	for {
		end := skipString(data, i)
		key := unquote(data[i:end])
		i = skipSpace(data, end) // at ':'
		i = skipSpace(data, i+1) // at the value
		end = skipValue(data, i) // just after it
		o = append(o, Member{Key: key, Value: data[i:end:end]})
		i = skipSpace(data, end) // at ',' or '}'
		if data[i] == '}' {
			return o
		}
		i = skipSpace(data, i+1)
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just after the string that starts at
// data[i].
func skipString(data []byte, i int) int {
	for i++; ; {
		j := bytes.IndexAny(data[i:], `"\`)
		i += j
		if data[i] == '"' {
			return i + 1
		}
		i += 2 // a backslash and the character it escapes
	}
}

// skipValue returns the index just after the value that starts at data[i].
func skipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for {
			switch data[i] {
			case '"':
				i = skipString(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
	}
	// A number, true, false or null: up to the next delimiter.
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// unquote decodes a JSON string, the quotes included. Escapes are decoded
// as agents decode them: "bl\u006fcked" is the key "blocked".
func unquote(s []byte) string {
	inner := s[1 : len(s)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var v string
	json.Unmarshal(s, &v) // valid: checked by Parse
	return v
}

// Text returns the string a JSON value holds; ok is false when the value
// is not a string.
func Text(v json.RawMessage) (s string, ok bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	return unquote(v), true
}

// Misspelled returns the keys of o that differ from one of known only in
// letter case, each once, in order, at most maxMisspelled of them: keys
// that encoding/json would have taken for a known one (it folds case, even
// a Kelvin sign for a K) and that quiver, like agents, ignores, so that a
// hook's report can say so.
func (o Object) Misspelled(known []string) []string {
	var out []string
	for _, m := range o {
		if len(out) == maxMisspelled {
			break
		}
		if slices.Contains(known, m.Key) || slices.Contains(out, m.Key) {
			continue
		}
		for _, k := range known {
			if strings.EqualFold(m.Key, k) {
				out = append(out, m.Key)
				break
			}
		}
	}
	return out
}

// maxMisspelled bounds Misspelled: a report names a few such keys, and
// an output made of thousands costs no more than one made of a few.
const maxMisspelled = 5

// Copy is one of the values of a key, and where it stands among them.
type Copy struct {
	// Value is nil when the key is absent.
	Value json.RawMessage
	// Nth is the position of this value among the key's copies, from 0;
	// Of is how many copies there are.
	Nth, Of int
}

// Repeated reports a key given more than once.
func (c Copy) Repeated() bool { return c.Of > 1 }

// Count returns how many times key is given.
func (o Object) Count(key string) int {
	n := 0
	for _, m := range o {
		if m.Key == key {
			n++
		}
	}
	return n
}

// Last returns the last copy of key, the one agents read when a key that
// decides nothing is given twice.
func (o Object) Last(key string) Copy {
	c := Copy{Nth: -1}
	for _, m := range o {
		if m.Key == key {
			c.Value, c.Nth = m.Value, c.Of
			c.Of++
		}
	}
	return c
}

// Strictest returns the copy of a decision key that takes effect: the one
// rank puts highest, the last of equals. rank orders a key's values from
// the most permissive up (absent or null lowest); a caller ranks a value
// it cannot read above every value that lets things through and below
// every value that stops them, so that a malformed copy never undoes a
// block and never passes for an allow.
func (o Object) Strictest(key string, rank func(json.RawMessage) int) Copy {
	c, best := Copy{Nth: -1}, 0
	for _, m := range o {
		if m.Key != key {
			continue
		}
		if r := rank(m.Value); c.Of == 0 || r >= best {
			c.Value, c.Nth, best = m.Value, c.Of, r
		}
		c.Of++
	}
	return c
}

// Paired returns the copy of key that goes with a decision's copy, as a
// reason goes with its decision: when key is given as many times as the
// decision, the one in the same position (the second reason for the second
// decision), otherwise the last.
func (o Object) Paired(key string, decision Copy) Copy {
	if decision.Of < 2 || o.Count(key) != decision.Of {
		return o.Last(key)
	}
	c := Copy{Nth: -1}
	for _, m := range o {
		if m.Key == key {
			if c.Of == decision.Nth {
				c.Value, c.Nth = m.Value, c.Of
			}
			c.Of++
		}
	}
	return c
}

// Objects reads every copy of key whose value is an object as one object:
// their members together, in order, so that the decision keys of all of
// them meet in one place and the strictest wins. members is nil when no
// copy is an object; of is the number of copies; bad is the first copy that
// is neither an object nor null (nil when there is none).
func (o Object) Objects(key string) (members Object, of int, bad json.RawMessage) {
	for _, m := range o {
		if m.Key != key {
			continue
		}
		of++
		switch m.Value[0] {
		case '{':
			if members == nil {
				members = Object{}
			}
			members = append(members, nested(m.Value)...)
		case 'n': // null
		default:
			if bad == nil {
				bad = m.Value
			}
		}
	}
	return members, of, bad
}

// nested splits an object value of a parsed object (valid already).
func nested(v json.RawMessage) Object { return members(v, 0) }

// AppendJSON appends o as one JSON object: repeated keys stay repeated.
func (o Object) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(m.Key)
		b = append(b, k...)
		b = append(b, ':')
		b = append(b, m.Value...)
	}
	return append(b, '}')
}
