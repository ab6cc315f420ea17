package exact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want string // the members as key=value, one per line
	}{
		{`{}`, ``},
		{" \t\n{ }\r\n", ``},
		{`{"a":1}`, `a=1`},
		// Every copy kept, in order; case variants are other keys.
		{`{"blocked":true,"Blocked":false,"blocked":false,"BLOCKED":1}`, "blocked=true\nBlocked=false\nblocked=false\nBLOCKED=1"},
		// Escapes in keys are decoded as agents decode them; a Kelvin sign
		// is not a K.
		{`{"bl\u006fcked":true,"bloc\u212aed":true}`, "blocked=true\nbloc\u212aed=true"},
		{`{"a\"b\\":"x\"}"}`, `a"b\="x\"}"`},
		// Values byte for byte, white space inside kept, around dropped.
		{`{ "input" : { "Path" : "/a" , "path":"/b" } , "n" : -1.5e3 }`, "input={ \"Path\" : \"/a\" , \"path\":\"/b\" }\nn=-1.5e3"},
		{`{"a":[1,[2,{"}":"]"}]],"b":null,"c":"\\","d":false}`, "a=[1,[2,{\"}\":\"]\"}]]\nb=null\nc=\"\\\\\"\nd=false"},
		{"{\"\xff\":1}", "\ufffd=1"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			o, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := show(o); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func show(o Object) string {
	var lines []string
	for _, m := range o {
		lines = append(lines, m.Key+"="+string(m.Value))
	}
	return strings.Join(lines, "\n")
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct {
		in      string
		trailer int // offset of the extra text; -1 for a syntax error
	}{
		{`{} {}`, 2}, {`{}}`, 2}, {`{"blocked":true}]`, 16}, {`{}x`, 2}, {"{}\x00", 2},
		{`{`, -1}, {`{"a":}`, -1}, {`{"a":1,}`, -1}, {``, -1}, {`{"a":tru}`, -1},
		{`{"a":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`, -1},
	} {
		_, err := Parse([]byte(tt.in))
		te, isTrailer := errors.AsType[*TrailingError](err)
		switch {
		case err == nil:
			t.Errorf("Parse(%.40q): no error", tt.in)
		case tt.trailer >= 0 && (!isTrailer || te.Offset != tt.trailer):
			t.Errorf("Parse(%.40q) = %v, want text after the object at %d", tt.in, err, tt.trailer)
		case tt.trailer < 0 && isTrailer:
			t.Errorf("Parse(%.40q) = %v, want a syntax error", tt.in, err)
		}
	}
	for _, in := range []string{`[]`, `null`, `"{}"`, `1`} {
		if _, err := Parse([]byte(in)); err != ErrNotObject {
			t.Errorf("Parse(%s) = %v, want ErrNotObject", in, err)
		}
	}
}

// yesNo is a rank like the callers': true stops, anything unreadable
// comes next, false and null let through.
func yesNo(v json.RawMessage) int {
	switch string(v) {
	case "true":
		return 2
	case "false", "null":
		return 0
	}
	return 1
}

func TestStrictestAndPaired(t *testing.T) {
	tests := []struct {
		in      string
		value   string // of the strictest "blocked"
		nth, of int
		reason  string // the paired "reason"
	}{
		{`{}`, "", -1, 0, ""},
		{`{"reason":"r"}`, "", -1, 0, `"r"`},
		{`{"blocked":true,"reason":"a"}`, "true", 0, 1, `"a"`},
		{`{"blocked":true,"reason":"a","blocked":false,"reason":"b"}`, "true", 0, 2, `"a"`},
		{`{"blocked":false,"reason":"a","blocked":true,"reason":"b"}`, "true", 1, 2, `"b"`},
		{`{"reason":"a","reason":"b","blocked":false,"blocked":true}`, "true", 1, 2, `"b"`},
		// Equals: the last, as agents read a key given twice.
		{`{"blocked":true,"reason":"a","blocked":true,"reason":"b"}`, "true", 1, 2, `"b"`},
		// An unreadable copy beats an allow, not a block.
		{`{"blocked":false,"blocked":"yes"}`, `"yes"`, 1, 2, ""},
		{`{"blocked":true,"blocked":"yes"}`, "true", 0, 2, ""},
		{`{"blocked":null,"blocked":false}`, "false", 1, 2, ""},
		// As many reasons as decisions pair up; otherwise the last one.
		{`{"blocked":true,"blocked":false,"reason":"only"}`, "true", 0, 2, `"only"`},
		{`{"blocked":false,"blocked":true,"reason":"a","reason":"b","reason":"c"}`, "true", 1, 2, `"c"`},
		{`{"blocked":true,"reason":"a","reason":"b"}`, "true", 0, 1, `"b"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			o, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			c := o.Strictest("blocked", yesNo)
			if string(c.Value) != tt.value || c.Nth != tt.nth || c.Of != tt.of {
				t.Errorf("Strictest = %s (%d of %d), want %s (%d of %d)", c.Value, c.Nth, c.Of, tt.value, tt.nth, tt.of)
			}
			if c.Repeated() != (tt.of > 1) {
				t.Errorf("Repeated = %v with %d copies", c.Repeated(), c.Of)
			}
			if r := o.Paired("reason", c); string(r.Value) != tt.reason {
				t.Errorf("Paired = %s, want %s", r.Value, tt.reason)
			}
		})
	}
}

func TestObjects(t *testing.T) {
	tests := []struct {
		in      string
		members string
		isNil   bool
		of      int
		bad     string
	}{
		{`{}`, "", true, 0, ""},
		{`{"h":null}`, "", true, 1, ""},
		{`{"h":{}}`, "", false, 1, ""},
		{`{"h":{"d":"deny"},"H":{"d":"allow"}}`, `d="deny"`, false, 1, ""},
		{`{"h":{"d":"deny","x":1},"h":{"d":"allow"}}`, "d=\"deny\"\nx=1\nd=\"allow\"", false, 2, ""},
		{`{"h":{"d":"deny"},"h":"oops","h":5}`, `d="deny"`, false, 3, `"oops"`},
		{`{"h":[],"h":null}`, "", true, 2, `[]`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			o, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			m, of, bad := o.Objects("h")
			if show(m) != tt.members || (m == nil) != tt.isNil || of != tt.of || string(bad) != tt.bad {
				t.Errorf("Objects = %q (nil %v), %d, %s; want %q (nil %v), %d, %s", show(m), m == nil, of, bad, tt.members, tt.isNil, tt.of, tt.bad)
			}
			// Joined back, the members are one valid object again.
			if m != nil {
				back, err := Parse(m.AppendJSON(nil))
				if err != nil || show(back) != show(m) {
					t.Errorf("AppendJSON: %s, %v", m.AppendJSON(nil), err)
				}
			}
		})
	}
}

func TestMisspelled(t *testing.T) {
	o, err := Parse([]byte(`{"blocked":true,"Blocked":false,"BLOCKED":1,"Blocked":2,"bloc\u212aed":3,"blockedx":4,"Reason":"r"}`))
	if err != nil {
		t.Fatal(err)
	}
	got := o.Misspelled([]string{"blocked", "reason", "input"})
	want := []string{"Blocked", "BLOCKED", "bloc\u212aed", "Reason"}
	if !slices.Equal(got, want) {
		t.Errorf("Misspelled = %q, want %q", got, want)
	}
	// A few are named, however many there are.
	var many []string
	for i := range 1 << 7 {
		many = append(many, fmt.Sprintf("%q:%d", mixCase("blocked", i), i))
	}
	o, err = Parse([]byte("{" + strings.Join(many, ",") + "}"))
	if err != nil {
		t.Fatal(err)
	}
	if got := o.Misspelled([]string{"blocked"}); len(got) != maxMisspelled || got[0] != "Blocked" {
		t.Errorf("Misspelled of 127 variants = %q", got)
	}
}

// mixCase upper-cases the letters of s whose bit is set in mask.
func mixCase(s string, mask int) string {
	b := []byte(s)
	for i := range b {
		if mask&(1<<i) != 0 {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}

func TestFields(t *testing.T) {
	o, err := Parse([]byte(`{"once":"x","twice":1,"twice":"y"}`))
	if err != nil {
		t.Fatal(err)
	}
	var b bool
	var s string
	f := Fields{Struct: "Response"}
	f.Decode("absent", o.Last("absent"), &b)
	if f.Err(false) != nil {
		t.Fatalf("an absent key: %v", f.Err(false))
	}
	f.Decode("twice", o.Last("twice"), &s)
	if f.Err(false) != nil || s != "y" {
		t.Fatalf("twice: %q, %v", s, f.Err(false))
	}
	one := func(v json.RawMessage) int {
		if string(v) == "1" {
			return 1
		}
		return 0
	}
	f.Decode("twice", o.Strictest("twice", one), &s)
	if err := f.Err(true); err != nil {
		t.Errorf("a repeated key's error with a block: %v", err)
	}
	const want = "json: cannot unmarshal number into Go struct field Response.twice of type string"
	if err := f.Err(false); err == nil || err.Error() != want {
		t.Errorf("a repeated key's error without a block: %v, want %s", err, want)
	}
	f.Decode("once", o.Last("once"), &b)
	const wantOnce = "json: cannot unmarshal string into Go struct field Response.once of type bool"
	if err := f.Err(true); err == nil || err.Error() != wantOnce {
		t.Errorf("a key given once: %v, want %s", err, wantOnce)
	}
	// A nested object read from several copies: all its keys count as
	// repeated.
	g := Fields{Struct: "Response", Prefix: "h.", Repeated: true}
	g.Decode("once", o.Last("once"), &b)
	var h Fields
	h.Add(&g)
	if h.Err(true) != nil || h.Err(false) == nil || !strings.Contains(h.Err(false).Error(), "Response.h.once") {
		t.Errorf("nested: %v / %v", h.Err(true), h.Err(false))
	}
}

// reference splits an object with encoding/json's tokens: what Parse
// must agree with, slowly.
func reference(data []byte) (Object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, ErrNotObject
	}
	o := Object{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, Member{Key: k.(string), Value: v})
	}
	return o, nil
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a":1,"a":2,"A":3}`, `{"a":{"b":[1,"]"]},"c":"\"}"}`, `{"bl\u006fcked":true}`,
		"{\"\xff\":\"\xfe\"}", `{ "x" : [ ] , "y" : { } }`, `{"a":1e400}`, `[]`, `{}}`, `{"a":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := Parse(data)
		if err != nil {
			if o != nil {
				t.Fatalf("%q: both %v and %v", data, o, err)
			}
			if json.Valid(data) && err != ErrNotObject {
				t.Fatalf("%q is valid JSON, yet %v", data, err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("%q is not valid JSON, yet parsed to %s", data, show(o))
		}
		want, err := reference(data)
		if err != nil {
			t.Fatalf("%q: Parse took it, the reference says %v", data, err)
		}
		if len(o) != len(want) {
			t.Fatalf("%q: %d members, want %d", data, len(o), len(want))
		}
		for i := range o {
			if o[i].Key != want[i].Key || !bytes.Equal(o[i].Value, want[i].Value) {
				t.Fatalf("%q: member %d is %q=%s, want %q=%s", data, i, o[i].Key, o[i].Value, want[i].Key, want[i].Value)
			}
		}
		if back := o.AppendJSON(nil); !json.Valid(back) {
			t.Fatalf("%q: AppendJSON gave %s", data, back)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	data := []byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"rm -rf is not allowed"},"systemMessage":"blocked","input":{"command":"ls -la","description":"` + strings.Repeat("x", 200) + `"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleObject_Strictest() {
	o, _ := Parse([]byte(`{"permissionDecision":"deny","PermissionDecision":"allow","permissionDecision":"allow"}`))
	rank := func(v json.RawMessage) int {
		if s, _ := Text(v); s == "deny" {
			return 1
		}
		return 0
	}
	fmt.Println(string(o.Strictest("permissionDecision", rank).Value))
	// Output: "deny"
}
