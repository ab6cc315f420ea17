package exact

import (
	"cmp"
	"encoding/json"
	"errors"
)

// Fields decodes the copies a caller picked into Go values, and keeps
// apart two kinds of error. A wrong value of a key given once fails the
// output, as it always has. A wrong value of a key given more than once
// fails it only when the output does not block: a second copy of anything
// must never turn a guard's block into a failure, which fail-open runs as
// an allow.
type Fields struct {
	// Struct and Prefix name a value in type errors the way encoding/json
	// names a struct field: "json: cannot unmarshal string into Go struct
	// field Response.blocked of type bool".
	Struct, Prefix string
	// Repeated marks an object read from several copies (Objects): each
	// of its keys counts as given more than once.
	Repeated bool

	once, repeated error
}

// Decode decodes the picked copy c of key into dst; an absent key leaves
// dst alone.
func (f *Fields) Decode(key string, c Copy, dst any) {
	if c.Value == nil {
		return
	}
	if err := json.Unmarshal(c.Value, dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			te.Struct, te.Field = f.Struct, f.Prefix+key
		}
		f.Fail(c, err)
	}
}

// Fail records err about the copy c: a value the caller could not use.
func (f *Fields) Fail(c Copy, err error) {
	if f.Repeated || c.Repeated() {
		f.repeated = cmp.Or(f.repeated, err)
	} else {
		f.once = cmp.Or(f.once, err)
	}
}

// Add takes over the errors of g, a nested object's Fields.
func (f *Fields) Add(g *Fields) {
	f.once = cmp.Or(f.once, g.once)
	f.repeated = cmp.Or(f.repeated, g.repeated)
}

// Err returns the error that makes the output a failure, given whether
// it blocks: the first error of a key given once, else, unless it blocks,
// the first of a key given more than once.
func (f *Fields) Err(blocks bool) error {
	if f.once != nil || blocks {
		return f.once
	}
	return f.repeated
}
