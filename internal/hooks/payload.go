package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/quiver-cli/quiver/internal/discovery"
)

// Errors about payloads; the command maps ErrPayload to exit 1 and
// ErrEventMismatch to a usage error.
var (
	ErrPayload       = errors.New("payload is not a JSON object")
	ErrEventMismatch = errors.New("payload names another event")
	ErrUnknownEvent  = errors.New("unknown event")
)

// Payload is an event payload with every field kept as the raw JSON the
// agent sent, so fields quiver does not know reach the hooks untouched.
type Payload map[string]json.RawMessage

// Field names quiver fills or chains (SPEC §8).
const (
	fieldEvent      = "event"
	fieldCwd        = "cwd"
	fieldInvokedBy  = "invoked_by"
	fieldToolInput  = "tool_input"
	fieldToolOutput = "tool_output"
)

// CheckEvent returns ErrUnknownEvent unless event is one of SPEC §8's.
func CheckEvent(event string) error {
	if !discovery.ValidEvent(event) {
		return fmt.Errorf("%w %q; want one of %s", ErrUnknownEvent, event, strings.Join(discovery.Events, ", "))
	}
	return nil
}

// ParsePayload decodes the agent's payload for event and fills event, cwd
// (with projectDir) and invoked_by ("main") when they are absent. Empty
// input is an empty payload.
func ParsePayload(event string, data []byte, projectDir string) (Payload, error) {
	p := Payload{}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &p); err != nil || p == nil {
			return nil, ErrPayload
		}
	}
	if raw, ok := p[fieldEvent]; ok {
		var named string
		if json.Unmarshal(raw, &named) != nil || named != event {
			return nil, fmt.Errorf("%w: it says %s, the command says %q", ErrEventMismatch, raw, event)
		}
	}
	setDefault := func(k, v string) {
		if _, ok := p[k]; !ok {
			p[k], _ = json.Marshal(v)
		}
	}
	setDefault(fieldEvent, event)
	setDefault(fieldCwd, projectDir)
	setDefault(fieldInvokedBy, "main")
	return p, nil
}

// String returns a string field, "" when absent or not a string.
func (p Payload) String(key string) string {
	var s string
	json.Unmarshal(p[key], &s)
	return s
}

// clone copies the map (the raw values are never modified in place).
func (p Payload) clone() Payload {
	c := make(Payload, len(p)+1)
	for k, v := range p {
		c[k] = v
	}
	return c
}

// Response is what one hook printed on stdout.
type Response struct {
	Blocked          bool              `json:"blocked,omitempty"`
	Reason           string            `json:"reason,omitempty"`
	Input            json.RawMessage   `json:"input,omitempty"`
	Output           json.RawMessage   `json:"output,omitempty"`
	FollowUpMessages []json.RawMessage `json:"follow_up_messages,omitempty"`
	// Ask (before_tool_call) asks the agent to get the user's approval.
	Ask bool `json:"ask,omitempty"`
	// Context is for the model, Notice for the person using the agent.
	Context string `json:"context,omitempty"`
	Notice  string `json:"notice,omitempty"`

	// notes say what had no effect (a Claude handler's fields without a
	// quiver equivalent), for the hook's report.
	notes []string
}

// empty reports a response that asks for nothing.
func (r *Response) empty() bool {
	return !r.Blocked && !r.Ask && r.Input == nil && r.Output == nil && len(r.FollowUpMessages) == 0 &&
		r.Context == "" && r.Notice == "" && len(r.notes) == 0
}

// DecodeResponse parses a hook's stdout. Empty (or blank) output is nil:
// no action. Anything but a JSON object is an error; so are fields of the
// wrong type, since guessing what a hook meant is not safe.
func DecodeResponse(stdout []byte) (*Response, error) {
	trimmed := bytes.TrimSpace(stdout)
	if len(trimmed) == 0 {
		return nil, nil
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("stdout is not a JSON object: %s", excerpt(trimmed))
	}
	var r Response
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("stdout is not a valid JSON object: %v", err)
	}
	// More() is false before a stray '}' or ']', so check that the object
	// really was all there is.
	if dec.InputOffset() != int64(len(trimmed)) {
		return nil, fmt.Errorf("stdout has more than one JSON object, or text after it: %s", excerpt(trimmed[dec.InputOffset():]))
	}
	// An explicit null means "nothing", like an absent field.
	if isNull(r.Input) {
		r.Input = nil
	}
	if isNull(r.Output) {
		r.Output = nil
	}
	return &r, nil
}

func isNull(raw json.RawMessage) bool {
	return raw != nil && string(bytes.TrimSpace(raw)) == "null"
}

// excerpt shows the start of some output safely on one line.
func excerpt(b []byte) string {
	const max = 80
	s := string(b)
	if len(s) > max {
		s = s[:max] + "..."
	}
	q := fmt.Sprintf("%q", s)
	return q
}
