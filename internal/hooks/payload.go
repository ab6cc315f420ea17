package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/quiver-cli/quiver/internal/safefs"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/quiver-cli/quiver/internal/hooks/exact"
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

// CheckEvent returns ErrUnknownEvent unless event is one of quiver's
// (SPEC §8, §15).
func CheckEvent(event string) error {
	if !format.ValidEvent(event) {
		return fmt.Errorf("%w: %s", ErrUnknownEvent, format.UnknownEvent(event))
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
	// AgentOutput holds what an event has beyond quiver's own answer,
	// under Claude's key names (sessionTitle, watchPaths, worktreePath,
	// ...: SPEC §15), for the agent that asked.
	AgentOutput map[string]json.RawMessage `json:"agent_output,omitempty"`

	// notes say what had no effect (a Claude handler's fields without a
	// quiver equivalent), for the hook's report.
	notes []string
}

// empty reports a response that asks for nothing.
func (r *Response) empty() bool {
	return !r.Blocked && !r.Ask && r.Input == nil && r.Output == nil && len(r.FollowUpMessages) == 0 &&
		r.Context == "" && r.Notice == "" && len(r.AgentOutput) == 0 && len(r.notes) == 0
}

// DecodeResponse parses a hook's stdout. Empty (or blank) output is nil:
// no action. Anything but a JSON object is an error; so are fields of the
// wrong type, since guessing what a hook meant is not safe.
//
// Keys are read as agents read them (SPEC §8): exactly, so "Blocked" is
// another key and ignored; a decision given more than once ("blocked",
// "ask") takes its strictest value, whatever the order, and a wrong value
// in a second copy never turns a block into a failure (see responseOf).
func DecodeResponse(stdout []byte) (*Response, error) {
	trimmed := bytes.TrimSpace(stdout)
	if len(trimmed) == 0 {
		return nil, nil
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("stdout is not a JSON object: %s", strconv.Quote(safefs.Excerpt(trimmed, 80)))
	}
	obj, err := exact.Parse(trimmed)
	if err == nil {
		var r *Response
		if r, err = responseOf(obj, false); err == nil {
			return r, nil
		}
	}
	if extra, ok := errors.AsType[*exact.TrailingError](err); ok {
		return nil, fmt.Errorf("stdout has more than one JSON object, or text after it: %s", strconv.Quote(safefs.Excerpt(trimmed[extra.Offset:], 80)))
	}
	return nil, fmt.Errorf("stdout is not a valid JSON object: %v", err)
}

// responseOf reads a hook's result from its exact keys. "blocked" and
// "ask" given more than once take their strictest copy (true over a value
// that is not a boolean over false), and "reason" goes with the copy that
// won (exact.Paired); every other key is its last copy, as agents read it.
// "input" and "output" are tool data, kept byte for byte. merged says obj
// joins several copies of a result (a persistent answer's), so that each of
// its keys counts as given more than once.
func responseOf(obj exact.Object, merged bool) (*Response, error) {
	var r Response
	f := exact.Fields{Struct: "Response", Repeated: merged}
	blocked := obj.Strictest("blocked", yesNo)
	ask := obj.Strictest("ask", yesNo)
	f.Decode("blocked", blocked, &r.Blocked)
	f.Decode("ask", ask, &r.Ask)
	reason := obj.Last("reason")
	switch {
	case r.Blocked:
		reason = obj.Paired("reason", blocked)
	case r.Ask:
		reason = obj.Paired("reason", ask)
	}
	f.Decode("reason", reason, &r.Reason)
	r.Input = value(obj.Last("input"))
	r.Output = value(obj.Last("output"))
	f.Decode("follow_up_messages", obj.Last("follow_up_messages"), &r.FollowUpMessages)
	f.Decode("context", obj.Last("context"), &r.Context)
	f.Decode("notice", obj.Last("notice"), &r.Notice)
	f.Decode("agent_output", obj.Last("agent_output"), &r.AgentOutput)
	if err := f.Err(r.Blocked); err != nil {
		return nil, err
	}
	for _, k := range obj.Misspelled(responseKeys) {
		r.notes = append(r.notes, misspelled(k))
	}
	return &r, nil
}

// responseKeys are the keys of a hook's result.
var responseKeys = []string{"blocked", "reason", "input", "output", "follow_up_messages", "ask", "context", "notice", "agent_output"}

// misspelled is the note for a key that differs from a known one only in
// letter case.
func misspelled(key string) string {
	return fmt.Sprintf("%q ignored: keys are case-sensitive", key)
}

// yesNo ranks the values of a yes/no decision (exact.Strictest): true
// stops; a value that is not a boolean fails the hook unless another copy
// stops; false and null let through.
func yesNo(v json.RawMessage) int {
	switch string(v) {
	case "true":
		return 2
	case "false", "null":
		return 0
	}
	return 1
}

// value is the raw value of a picked copy; an explicit null means
// "nothing", like an absent field.
func value(c exact.Copy) json.RawMessage {
	if c.Value == nil || isNull(c.Value) {
		return nil
	}
	return c.Value
}

func isNull(raw json.RawMessage) bool {
	return raw != nil && string(bytes.TrimSpace(raw)) == "null"
}
