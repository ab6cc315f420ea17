package hooks

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/quiver-cli/quiver/internal/hooks/exact"
	"github.com/quiver-cli/quiver/internal/proc"
)

// A hook's result is read with exact, case-sensitive keys, and a decision
// given twice takes its strictest value (SPEC §8 "Protocol"): a guard's
// block is never undone by a second spelling or a second copy.
func TestDecodeResponseExactKeys(t *testing.T) {
	tests := []struct {
		name, in string
		blocked  bool
		ask      bool
		reason   string
		input    string // "" for none
		err      string // the whole error, when it fails
		noted    []string
	}{
		// Another letter case is another key, ignored.
		{name: "Blocked", in: `{"Blocked":true}`, noted: []string{"Blocked"}},
		{name: "BLOCKED and Reason", in: `{"BLOCKED":true,"Reason":"case"}`, noted: []string{"BLOCKED", "Reason"}},
		{name: "Ask", in: `{"Ask":true,"reason":"r"}`, reason: "r", noted: []string{"Ask"}},
		{name: "Kelvin sign", in: `{"bloc\u212aed":true}`, noted: []string{"bloc\u212aed"}},
		{name: "Input", in: `{"Input":{"command":"rm -rf /"}}`, noted: []string{"Input"}},
		{name: "lowercase beside a variant", in: `{"blocked":true,"Blocked":false,"reason":"no","Reason":"yes"}`, blocked: true, reason: "no", noted: []string{"Blocked", "Reason"}},
		{name: "variant first", in: `{"Blocked":false,"blocked":true}`, blocked: true, noted: []string{"Blocked"}},
		{name: "escaped key", in: `{"bl\u006fcked":true}`, blocked: true},
		// Twice: the stricter value, in either order, with its reason.
		{name: "true then false", in: `{"blocked":true,"blocked":false}`, blocked: true},
		{name: "false then true", in: `{"blocked":false,"blocked":true}`, blocked: true},
		{name: "true then null", in: `{"blocked":true,"blocked":null}`, blocked: true},
		{name: "block reason first", in: `{"blocked":true,"reason":"rm -rf","blocked":false,"reason":"fine"}`, blocked: true, reason: "rm -rf"},
		{name: "block reason second", in: `{"blocked":false,"reason":"fine","blocked":true,"reason":"rm -rf"}`, blocked: true, reason: "rm -rf"},
		{name: "reasons before decisions", in: `{"reason":"fine","reason":"rm -rf","blocked":false,"blocked":true}`, blocked: true, reason: "rm -rf"},
		{name: "ask then no ask", in: `{"ask":true,"reason":"prod","ask":false}`, ask: true, reason: "prod"},
		{name: "no ask then ask", in: `{"ask":false,"ask":true,"reason":"prod"}`, ask: true, reason: "prod"},
		{name: "ask and block", in: `{"ask":true,"reason":"a","blocked":false,"blocked":true,"reason":"b"}`, blocked: true, ask: true, reason: "b"},
		// A second copy that is not a boolean: it cannot undo a block...
		{name: "true then a string", in: `{"blocked":true,"blocked":"no"}`, blocked: true},
		{name: "a bad second reason", in: `{"blocked":true,"reason":"r","reason":5}`, blocked: true},
		{name: "a bad second context", in: `{"blocked":true,"context":"c","context":[]}`, blocked: true},
		// ...and without a block it fails the hook as it would alone.
		{name: "false then a string", in: `{"blocked":false,"blocked":"yes"}`,
			err: "stdout is not a valid JSON object: json: cannot unmarshal string into Go struct field Response.blocked of type bool"},
		{name: "a string alone", in: `{"blocked":"yes"}`,
			err: "stdout is not a valid JSON object: json: cannot unmarshal string into Go struct field Response.blocked of type bool"},
		{name: "a bad reason given once", in: `{"blocked":true,"reason":5}`,
			err: "stdout is not a valid JSON object: json: cannot unmarshal number into Go struct field Response.reason of type string"},
		{name: "a bad second context without a block", in: `{"context":"c","context":1}`,
			err: "stdout is not a valid JSON object: json: cannot unmarshal number into Go struct field Response.context of type string"},
		// Tool data is not a decision: Path and path are both real, and
		// kept byte for byte; a repeated input is its last copy.
		{name: "tool data", in: `{"input": {"Path": "/a", "path":"/b","path" :"/c"}}`, input: `{"Path": "/a", "path":"/b","path" :"/c"}`},
		{name: "input twice", in: `{"input":{"command":"rm"},"input":{"command":"ls"}}`, input: `{"command":"ls"}`},
		{name: "input then null", in: `{"input":{"command":"rm"},"input":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := DecodeResponse([]byte(tt.in))
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("got %+v, %v; want the error %s", r, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Blocked != tt.blocked || r.Ask != tt.ask || r.Reason != tt.reason || string(r.Input) != tt.input {
				t.Errorf("got blocked %v, ask %v, reason %q, input %s; want %v, %v, %q, %s",
					r.Blocked, r.Ask, r.Reason, r.Input, tt.blocked, tt.ask, tt.reason, tt.input)
			}
			// Another spelling of a key is ignored, and the report says so.
			var want []string
			for _, k := range tt.noted {
				want = append(want, misspelled(k))
			}
			if !slices.Equal(r.notes, want) {
				t.Errorf("notes %q, want %q", r.notes, want)
			}
		})
	}
}

// verdict is what `hook run` makes of a native hook's answer on
// before_tool_call: "blocked: REASON", "asked: REASON", "ok", "no_action"
// or "failed: ERROR".
func verdict(r proc.Result) string {
	o := nativeOutcome(fake("guard"), format.BeforeToolCall, r, DefaultTimeout)
	switch o.Status {
	case Blocked, Asked:
		return string(o.Status) + ": " + o.Reason
	case Failed:
		return "failed: " + o.Error
	}
	return string(o.Status)
}

// A persistent hook's answer line follows the same rules, envelope and
// result alike (SPEC §14).
func TestPersistentAnswerExactKeys(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{"result", `{"id":1,"result":{"blocked":true,"reason":"no"}}`, "blocked: no"},
		{"Blocked in the result", `{"id":1,"result":{"Blocked":true}}`, "ok"},
		{"result twice in the result", `{"id":1,"result":{"blocked":true,"reason":"no","blocked":false}}`, "blocked: no"},
		// Another spelling of the envelope's keys is another key.
		{"Result", `{"id":1,"Result":{"blocked":true}}`, "no_action"},
		{"Exit", `{"id":1,"Exit":2,"stderr":"no"}`, "no_action"},
		{"ID", `{"ID":1,"result":{}}`, "error: answered for id none, was asked 1"},
		{"Exit beside exit", `{"id":1,"exit":2,"stderr":"no","Exit":0}`, "blocked: no"},
		{"Result beside result", `{"id":1,"result":{"blocked":true},"Result":{"blocked":false}}`, "blocked: blocked by guard"},
		// A result given twice is one result: the block stands, and its
		// reason goes with it.
		{"result then allow", `{"id":1,"result":{"blocked":true,"reason":"no"},"result":{"blocked":false,"reason":"yes"}}`, "blocked: no"},
		{"allow then result", `{"id":1,"result":{"blocked":false,"reason":"yes"},"result":{"blocked":true,"reason":"no"}}`, "blocked: no"},
		{"result then null", `{"id":1,"result":{"blocked":true,"reason":"no"},"result":null}`, "blocked: no"},
		{"result then a string", `{"id":1,"result":{"blocked":true,"reason":"no"},"result":"x"}`, "blocked: no"},
		{"result then a bad key", `{"id":1,"result":{"blocked":true,"reason":"no"},"result":{"context":5}}`, "blocked: no"},
		{"ask then more", `{"id":1,"result":{"ask":true,"reason":"prod"},"result":{"ask":false,"input":{"a":1}}}`, "asked: prod"},
		{"a bad second result without a block", `{"id":1,"result":{},"result":"x"}`, `failed: stdout is not a JSON object: "\"x\""`},
		{"a bad key in a second result", `{"id":1,"result":{"context":"c"},"result":{"context":5}}`,
			"failed: stdout is not a valid JSON object: json: cannot unmarshal number into Go struct field Response.context of type string"},
		// exit given twice: 2 wins, and its stderr with it.
		{"exit 2 then 0", `{"id":1,"exit":2,"stderr":"no","exit":0,"stderr":""}`, "blocked: no"},
		{"exit 0 then 2", `{"id":1,"exit":0,"stderr":"","exit":2,"stderr":"no"}`, "blocked: no"},
		{"exit 2 then 1", `{"id":1,"exit":2,"stderr":"no","exit":1,"stderr":"crash"}`, "blocked: no"},
		{"exit 2 then bad", `{"id":1,"exit":2,"exit":"x","stderr":"no"}`, "blocked: no"},
		{"exit 2, bad second stderr", `{"id":1,"exit":2,"stderr":"no","stderr":7}`, "blocked: blocked by guard"},
		// A failing copy of exit does not undo a result that blocks...
		{"blocking result, exit 0 then 1", `{"id":1,"result":{"blocked":true,"reason":"no"},"exit":0,"exit":1}`, "blocked: no"},
		{"blocking result, exit 0 then 300", `{"id":1,"result":{"blocked":true,"reason":"no"},"exit":0,"exit":300}`, "blocked: no"},
		// ...but fails a hook that said nothing stricter.
		{"exit 0 then 1", `{"id":1,"exit":0,"exit":1,"stderr":"crash"}`, "failed: exit status 1: crash"},
		{"exit 1 alone beside a block", `{"id":1,"result":{"blocked":true},"exit":1}`, "failed: exit status 1"},
		{"exit 0 then bad", `{"id":1,"exit":0,"exit":"x"}`, `error: answered a line that is not one JSON object: "{\"id\":1,\"exit\":0,\"exit\":\"x\"}"`},
		// id must be the one asked, in every copy.
		{"id twice", `{"id":1,"id":1,"result":{"blocked":true}}`, "blocked: blocked by guard"},
		{"another id twice", `{"id":1,"id":2,"result":{"blocked":true}}`, "error: answered for id 2, was asked 1"},
		// Not one object.
		{"trailing closer", `{"id":1,"result":{"blocked":false}}}`, `error: answered a line that is not one JSON object: "{\"id\":1,\"result\":{\"blocked\":false}}}"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hp := &hookProcess{stderr: &tail{max: MaxStderr}}
			r, err := hp.decode(1, []byte(tt.line+"\n"))
			got := "error: "
			if err == nil {
				got = verdict(r)
			} else {
				got += err.Error()
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// decisionKeys are the keys of a native result, each with a value it may
// hold alone; the first is the decision.
var decisionKeys = []struct{ key, value string }{
	{"blocked", "true"}, {"reason", `"first"`}, {"ask", "false"}, {"context", `"c"`}, {"notice", `"n"`},
	{"follow_up_messages", `[]`}, {"input", `{"Path":"/a","path":"/b"}`}, {"output", `"o"`},
}

// fuzzValues are what the copies hold; the fuzzer adds its own text.
var fuzzValues = []string{
	`true`, `false`, `null`, `0`, `1`, `2`, `300`, `-1`, `""`, `"yes"`, `"deny"`, `[]`, `{}`, `[1,"a"]`,
	`{"blocked":false}`, `{"Blocked":true}`, `{"path":"/x","Path":"/y"}`, `{"context":5}`,
}

// mixCase returns key with the letters whose bit is set in mask upper case
// (bit 0 for the first letter); a mask of 0 is the key itself.
func mixCase(key string, mask uint16) string {
	b := []byte(key)
	for i := range b {
		if mask&(1<<(i%16)) != 0 && 'a' <= b[i] && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}

// copies builds members from ops, three bytes each: which key, which
// letters to upper-case, which value. before says whether they go before
// the first decision; a copy of the decision itself never does.
func copies(ops []byte, free string, keys []string, before bool) []string {
	var out []string
	for i := 0; i+2 < len(ops); i += 3 {
		key := keys[int(ops[i])%len(keys)]
		if ops[i+1]&0x80 != 0 {
			key = mixCase(key, uint16(ops[i+1]&0x7f)|1)
		}
		if before && key == keys[0] {
			continue
		}
		var v string
		switch n := int(ops[i+2]) % (len(fuzzValues) + 2); {
		case n < len(fuzzValues):
			v = fuzzValues[n]
		case n == len(fuzzValues):
			q, _ := json.Marshal(free)
			v = string(q)
		default:
			if !json.Valid([]byte(free)) {
				continue
			}
			v = free
		}
		k, _ := json.Marshal(key)
		out = append(out, string(k)+":"+v)
	}
	return out
}

// FuzzDuplicateDecisionKeys: whatever copies and other spellings of its
// keys follow (or, for other keys, precede) a native result whose first
// "blocked" says true, the hook still blocks; the same holds for a
// persistent answer line carrying that result, whatever copies of its
// exit, stderr and result it adds. A block is never undone, and never
// turned into a failure.
func FuzzDuplicateDecisionKeys(f *testing.F) {
	f.Add([]byte{}, []byte{}, []byte{}, "")
	f.Add([]byte{0, 0, 1}, []byte{}, []byte{}, "")                            // "blocked": false
	f.Add([]byte{0, 0x81, 1, 0, 0, 9}, []byte{}, []byte{}, "")                // "Blocked": false, "blocked": "yes"
	f.Add([]byte{1, 0, 3, 2, 0, 0}, []byte{0, 0x81, 0}, []byte{}, "")         // "reason": 0, "ask": true; "Blocked" before
	f.Add([]byte{3, 0, 11}, []byte{}, []byte{0, 0, 15, 1, 0, 2, 2, 0, 4}, "") // a result, exit 2, stderr 1
	f.Add([]byte{}, []byte{}, []byte{1, 0, 1, 1, 0, 5, 0, 0, 19}, "x")        // exit 0 then 300, result "x"
	f.Add([]byte{0, 0, 19}, []byte{}, []byte{0, 0x81, 14}, `{"blocked":false}`)
	var keys []string
	for _, k := range decisionKeys {
		keys = append(keys, k.key)
	}
	envelope := []string{"result", "exit", "stderr"}
	f.Fuzz(func(t *testing.T, after, before, answer []byte, free string) {
		members := copies(before, free, keys, true)
		for _, k := range decisionKeys {
			members = append(members, `"`+k.key+`":`+k.value)
		}
		members = append(members, copies(after, free, keys, false)...)
		out := "{" + strings.Join(members, ",") + "}"
		r, err := DecodeResponse([]byte(out))
		if err != nil || r == nil || !r.Blocked {
			t.Fatalf("%s: %+v, %v; want a block", out, r, err)
		}
		if o, _ := exact.Parse([]byte(out)); !bytes.Equal(r.Input, o.Last("input").Value) && !isNull(o.Last("input").Value) {
			t.Fatalf("%s: input %s, want its last copy byte for byte", out, r.Input)
		}

		line := `{"id":1,"result":` + out + `,"exit":0,"stderr":""`
		for _, m := range copies(answer, free, envelope, false) {
			line += "," + m
		}
		line += "}"
		hp := &hookProcess{stderr: &tail{max: MaxStderr}}
		pr, err := hp.decode(1, []byte(line))
		if err != nil {
			t.Fatalf("%s: %v; want a block", line, err)
		}
		if v := verdict(pr); !strings.HasPrefix(v, "blocked: ") {
			t.Fatalf("%s: %s; want a block", line, v)
		}
	})
}
