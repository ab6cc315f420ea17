package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/quiver-cli/quiver/internal/plugins/format"
)

// jsonSeeds are the shapes hooks and agents print, right and wrong.
var jsonSeeds = []string{
	``, ` `, "\n\t\r ", `{}`, ` {} `, "{}\n",
	`{"blocked":true,"reason":"x"}`, `{"blocked":false}`, `{"BLOCKED":true,"Reason":"case"}`,
	`{"input":null}`, `{"input": null }`, `{"input":{"a":[1,2]}}`, `{"input":"s"}`, `{"input":0}`,
	`{"output":"s"}`, `{"output":null}`, `{"output":{"x":[true,false,null]}}`,
	`{"follow_up_messages":["a",{"b":1}]}`, `{"follow_up_messages":[]}`, `{"follow_up_messages":null}`,
	`{"follow_up_messages":[null]}`,
	`{"event":"before_tool_call","tool_input":{"command":"ls"}}`, `{"event":"agent_stop"}`,
	`{"event":null}`, `{"event":7}`, `{"cwd":"/elsewhere","invoked_by":"subagent"}`, `{"cwd":null}`,
	`{"tool_input":{"command":"rm -rf /"},"tool_output":"raw","messages":[{"role":"user"}]}`,
	`{"a":1,"a":2}`, `{"input":1,"input":null}`, `{"blocked":true,"blocked":null}`,
	`{"unknown":{"deep":[1,{"x":"<&>"}]},"blocked":true}`,
	// wrong types
	`{"blocked":"yes"}`, `{"blocked":1}`, `{"reason":5}`, `{"follow_up_messages":"a"}`,
	`{"follow_up_messages":{}}`, `{"blocked":1e400}`,
	// trailing garbage and truncation
	`{} {}`, `{}x`, `{}]`, `{"blocked":true}}`, `{"a":`, `{`, `{"a":1,}`, "{}\x00",
	// deep nesting, around encoding/json's limit of 10000
	`{"input":` + strings.Repeat("[", 9990) + strings.Repeat("]", 9990) + `}`,
	`{"input":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
	// numbers out of float64 range or precision
	`{"input":1e400}`, `{"input":-1e-400}`, `{"output":123456789012345678901234567890}`,
	`{"follow_up_messages":[1.0,1e2,-0]}`,
	// invalid UTF-8 and escapes
	"{\"reason\":\"\xff\xfe\"}", "{\"input\":\"\xc3\x28\"}", "{\"\xff\":1}", `{"reason":"\ud800"}`,
	`{"input":"\u2028<script>"}`, "\xef\xbb\xbf{}",
	// not objects
	`[1]`, `[]`, `null`, `"str"`, `1`, `true`, "\u00a0{}\u00a0",
}

// sameJSON reports whether two JSON texts hold the same value. Numbers are
// compared by their text, so huge ones need no float64.
func sameJSON(a, b []byte) bool {
	va, erra := decodeJSON(a)
	vb, errb := decodeJSON(b)
	return erra == nil && errb == nil && reflect.DeepEqual(va, vb)
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// A stray '}' or ']' after the object is not one JSON object:
// json.Decoder.More() reports false at a closing delimiter, which once let
// `{"blocked":true}}` block a tool call.
func TestDecodeResponseTrailingCloser(t *testing.T) {
	for _, in := range []string{`{}]`, `{}}`, `{"blocked":true,"reason":"x"}}`, "{} ]", `{}]]]`, `{}}{`} {
		if r, err := DecodeResponse([]byte(in)); err == nil {
			t.Errorf("DecodeResponse(%q) = %+v, nil; want an error", in, r)
		}
	}
}

func FuzzDecodeResponse(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := DecodeResponse(data)
		trimmed := bytes.TrimSpace(data)
		if len(trimmed) == 0 {
			if r != nil || err != nil {
				t.Fatalf("blank %q: %+v, %v; want nil, nil", data, r, err)
			}
			return
		}
		if err != nil {
			if r != nil {
				t.Fatalf("%q: both %+v and %v", data, r, err)
			}
			return
		}
		if r == nil {
			t.Fatalf("%q: nil, nil for output that is not blank", data)
		}
		if trimmed[0] != '{' || !json.Valid(trimmed) {
			t.Fatalf("%q is not one JSON object, yet decoded to %+v", data, r)
		}
		if isNull(r.Input) || isNull(r.Output) {
			t.Fatalf("%q: an explicit null survived: %+v", data, r)
		}

		out, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("%q: Marshal(%+v): %v", data, r, err)
		}
		back, err := DecodeResponse(out)
		if err != nil || back == nil {
			t.Fatalf("%q: re-decoding %s: %+v, %v", data, out, back, err)
		}
		if back.Blocked != r.Blocked || back.Reason != r.Reason {
			t.Fatalf("%q: round trip through %s changed blocked/reason: %+v -> %+v", data, out, r, back)
		}
		sameRaw := func(a, b json.RawMessage) bool {
			return (a == nil) == (b == nil) && (a == nil || sameJSON(a, b))
		}
		if !sameRaw(r.Input, back.Input) || !sameRaw(r.Output, back.Output) {
			t.Fatalf("%q: round trip through %s changed input/output: %s, %s -> %s, %s", data, out, r.Input, r.Output, back.Input, back.Output)
		}
		// omitempty drops an empty list: no follow-ups either way.
		if len(r.FollowUpMessages) != len(back.FollowUpMessages) {
			t.Fatalf("%q: round trip through %s changed follow_up_messages: %d -> %d", data, out, len(r.FollowUpMessages), len(back.FollowUpMessages))
		}
		for i := range r.FollowUpMessages {
			if !sameJSON(r.FollowUpMessages[i], back.FollowUpMessages[i]) {
				t.Fatalf("%q: round trip through %s changed follow-up %d: %s -> %s", data, out, i, r.FollowUpMessages[i], back.FollowUpMessages[i])
			}
		}
	})
}

func FuzzParsePayload(f *testing.F) {
	for i, s := range jsonSeeds {
		f.Add(uint8(i), []byte(s), "/proj")
	}
	f.Add(uint8(0), []byte(`{}`), "")
	f.Add(uint8(1), []byte(`{"x":1}`), "/a \"quoted\" <dir>\n")
	f.Add(uint8(2), []byte(``), "/b/\xff")
	f.Fuzz(func(t *testing.T, which uint8, data []byte, projectDir string) {
		event := format.Events()[int(which)%len(format.Events())]
		p, err := ParsePayload(event, data, projectDir)
		if err != nil {
			if p != nil {
				t.Fatalf("%q: both %v and %v", data, p, err)
			}
			if !errors.Is(err, ErrPayload) && !errors.Is(err, ErrEventMismatch) {
				t.Fatalf("%q: error %v is neither ErrPayload nor ErrEventMismatch", data, err)
			}
		}

		// What the payload should be, worked out with the decoder alone.
		var in map[string]any
		blank := len(bytes.TrimSpace(data)) == 0
		if !blank {
			if !json.Valid(data) {
				if err == nil {
					t.Fatalf("%q is not valid JSON, yet parsed to %v", data, p)
				}
				return
			}
			v, _ := decodeJSON(data)
			if in, _ = v.(map[string]any); in == nil {
				if !errors.Is(err, ErrPayload) {
					t.Fatalf("%q is not an object: got %v, %v; want ErrPayload", data, p, err)
				}
				return
			}
		}
		if named, ok := in["event"]; ok && named != event {
			if !errors.Is(err, ErrEventMismatch) {
				t.Fatalf("%q names another event than %s: got %v, %v; want ErrEventMismatch", data, event, p, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q for %s: %v", data, event, err)
		}

		want := maps.Clone(in)
		if want == nil {
			want = map[string]any{}
		}
		for k, v := range map[string]string{"event": event, "cwd": projectDir, "invoked_by": "main"} {
			if _, ok := want[k]; !ok {
				want[k] = v
			}
		}
		if got, keys := slices.Sorted(maps.Keys(p)), slices.Sorted(maps.Keys(want)); !slices.Equal(got, keys) {
			t.Fatalf("%q: keys %q, want %q", data, got, keys)
		}
		for k, w := range want {
			got, err := decodeJSON(p[k])
			if err != nil {
				t.Fatalf("%q: field %q = %s does not decode: %v", data, k, p[k], err)
			}
			if _, given := in[k]; given {
				// Passed through untouched: the very bytes the agent sent.
				if !bytes.Contains(data, p[k]) {
					t.Fatalf("%q: field %q = %s is not a part of the input", data, k, p[k])
				}
			} else if k == "cwd" && !utf8.ValidString(projectDir) {
				// JSON strings hold Unicode only: invalid bytes become U+FFFD.
				continue
			}
			if !reflect.DeepEqual(got, w) {
				t.Fatalf("%q: field %q = %s, want %#v", data, k, p[k], w)
			}
		}
		if p.String("event") != event {
			t.Fatalf("%q: event = %s, want %q", data, p["event"], event)
		}
	})
}
