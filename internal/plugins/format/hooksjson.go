// Package claude translates between quiver's hook protocol and the Claude
// Code plugin format (SPEC §11): it reads hooks.json, decides whether a
// handler's matcher and `if` condition select an event, turns quiver's
// payload into the input a Claude handler expects and the handler's
// output into quiver's result.
//
// Everything here is a pure function over bytes and plain data: it starts
// no process and touches no file, so the mapping is tested with golden
// files taken from Claude Code's published examples. Discovery turns the
// handlers into hook items; the executor runs them; the trigger combines
// their results exactly like native hooks'.
package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/quiver-cli/quiver/internal/safefs"

	"github.com/quiver-cli/quiver/internal/timeouts"
)

// Handler is one entry of a hooks.json: a command Claude would run for
// an event, with what selects it.
type Handler struct {
	// Event is Claude's event name (PreToolUse, Stop, ...).
	Event string
	// N counts the event's handlers from 1 in file order; the hook item
	// is named "<prefix>hooks.json/<Event>.<N>".
	N int
	// Matcher, If, Type, Command and Shell are the handler's fields as
	// written ("" when absent).
	Matcher, If, Type, Command, Shell string
	// Timeout is the handler's own timeout, written in seconds and
	// bounded by timeouts.DecodeSeconds (from 1 ms to 1 h); 0 when
	// absent or when it is the Problem.
	Timeout time.Duration
	// Async handlers never delay the event; their context and notices
	// reach the agent later. AsyncRewake ones too, and when one exits 2
	// its stderr, after RewakeMessage, wakes the model (SPEC §15).
	Async, AsyncRewake bool
	RewakeMessage      string
	// Args is a command handler's exec form: the command is started
	// directly with these arguments, no shell, each variable expanded
	// in place (SPEC §15). nil is the shell form; an empty list is the
	// exec form without arguments.
	Args []string
	// OnFailure is "block" when a failure of the handler blocks a
	// blocking event whatever --fail-closed says; "" (or "continue")
	// when it does not.
	OnFailure string
	// StatusMessage is what an agent that can shows while it runs.
	StatusMessage string
	// URL, Headers and AllowedEnvVars are an http handler's: where the
	// event is posted, with which headers, and the variables the
	// headers' $VAR may read.
	URL            string
	Headers        map[string]string
	AllowedEnvVars []string
	// Native is, for the handlers only Claude Code can run (prompt,
	// agent, mcp_tool), the definition Claude reads: the keys its
	// schema knows for the type, checked, and nothing else. nil for
	// every other type, and for one whose definition is wrong.
	Native json.RawMessage
	// Problem says why quiver cannot run the handler ("" when it can):
	// an event without a quiver equivalent, a type quiver cannot run,
	// a matcher that does not compile, a condition quiver cannot
	// evaluate, a timeout that is no limit, a field it cannot trust.
	// Such a handler is listed invalid, never run.
	Problem string
}

// ItemName is the handler's name within its hooks.json folder, such as
// "hooks.json/PreToolUse.1".
func (h Handler) ItemName() string { return fmt.Sprintf("hooks.json/%s.%d", h.Event, h.N) }

// Config is a parsed hooks.json (or a manifest's inline hooks object).
type Config struct {
	// Description is the file's optional description.
	Description string
	// Handlers in a stable order: by event name, then N.
	Handlers []Handler
}

// ParseConfig reads a hooks.json document: {"hooks": {EVENT: [{"matcher":
// M, "hooks": [HANDLER...]}...]}}. A document whose shape is wrong is an
// error; a handler quiver cannot run is kept with its Problem, so that it
// is listed (invalid) rather than dropped.
func ParseConfig(data []byte) (*Config, error) {
	var doc struct {
		Description string          `json:"description"`
		Hooks       json.RawMessage `json:"hooks"`
	}
	if err := strictObject(data, &doc); err != nil {
		return nil, err
	}
	c, err := ParseHooksObject(doc.Hooks)
	if err != nil {
		return nil, err
	}
	c.Description = doc.Description
	return c, nil
}

// ParseHooksObject reads the value of a "hooks" key (the event map), as a
// manifest or marketplace entry writes it inline.
func ParseHooksObject(raw json.RawMessage) (*Config, error) {
	c := &Config{}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return c, nil
	}
	var events map[string][]struct {
		Matcher *json.RawMessage  `json:"matcher"`
		Hooks   []json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &events); err != nil {
		return nil, fmt.Errorf(`"hooks" must map event names to lists of {"matcher", "hooks"}: %v`, err)
	}
	names := make([]string, 0, len(events))
	for name := range events {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, event := range names {
		if !safeName(event) {
			return nil, fmt.Errorf("event name %q is not a name", event)
		}
		n := 0
		for gi, group := range events[event] {
			matcher, err := stringField(group.Matcher)
			if err != nil {
				return nil, fmt.Errorf("%s[%d].matcher: %v", event, gi, err)
			}
			for _, rawHandler := range group.Hooks {
				n++
				h, err := parseHandler(rawHandler)
				if err != nil {
					return nil, fmt.Errorf("%s[%d] handler %d: %v", event, gi, n, err)
				}
				h.Event, h.N, h.Matcher = event, n, matcher
				if h.Problem == "" { // a bad timeout was found while parsing
					h.Problem = problem(h)
				}
				c.Handlers = append(c.Handlers, h)
			}
		}
	}
	return c, nil
}

func parseHandler(raw json.RawMessage) (Handler, error) {
	// Keys are read exactly, as Claude Code reads them: encoding/json
	// would also take "Type" or "IF" for "type" and "if", which Claude
	// ignores, and a native handler's definition is copied by its exact
	// keys (nativeDefinition), so the two readings would differ.
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		return Handler{}, fmt.Errorf("not an object: %v", err)
	}
	get := func(key string) *json.RawMessage {
		if v, ok := all[key]; ok {
			return &v
		}
		return nil
	}
	f := struct {
		Type, Command, If, Shell, Timeout, Async, Rewake, Message, Args *json.RawMessage
		OnFailure, StatusMessage, Once, URL, Headers, AllowedEnv        *json.RawMessage
	}{
		Type: get("type"), Command: get("command"), If: get("if"), Shell: get("shell"), Timeout: get("timeout"),
		Async: get("async"), Rewake: get("asyncRewake"), Message: get("rewakeMessage"), Args: get("args"),
		OnFailure: get("onFailure"), StatusMessage: get("statusMessage"), Once: get("once"), URL: get("url"),
		Headers: get("headers"), AllowedEnv: get("allowedEnvVars"),
	}
	var h Handler
	var err error
	for _, s := range []struct {
		name string
		raw  *json.RawMessage
		dst  *string
	}{
		{"type", f.Type, &h.Type}, {"command", f.Command, &h.Command}, {"if", f.If, &h.If}, {"shell", f.Shell, &h.Shell},
		{"rewakeMessage", f.Message, &h.RewakeMessage}, {"onFailure", f.OnFailure, &h.OnFailure},
		{"statusMessage", f.StatusMessage, &h.StatusMessage}, {"url", f.URL, &h.URL},
	} {
		if *s.dst, err = stringField(s.raw); err != nil {
			return h, fmt.Errorf("%s: %v", s.name, err)
		}
	}
	if f.Timeout != nil && string(*f.Timeout) != "null" {
		// A timeout that is no limit (0, 1e-10, 1e10, "5") makes this
		// handler invalid, not the whole file: its neighbours still run,
		// and it is listed with the value, never run with no timeout.
		if h.Timeout, err = timeouts.DecodeSeconds(*f.Timeout); err != nil {
			h.Problem = "timeout " + err.Error()
		}
	}
	var once bool // Claude Code honours it only in skills' hooks; ignored here as there
	for _, b := range []struct {
		name string
		raw  *json.RawMessage
		dst  *bool
	}{{"async", f.Async, &h.Async}, {"asyncRewake", f.Rewake, &h.AsyncRewake}, {"once", f.Once, &once}} {
		if b.raw != nil && string(*b.raw) != "null" {
			if err := json.Unmarshal(*b.raw, b.dst); err != nil {
				return h, fmt.Errorf("%s must be true or false, not %s", b.name, safefs.Excerpt(*b.raw, 40))
			}
		}
	}
	if f.Args != nil && string(*f.Args) != "null" {
		if err := json.Unmarshal(*f.Args, &h.Args); err != nil {
			return h, fmt.Errorf("args must be a list of strings, not %s", safefs.Excerpt(*f.Args, 40))
		}
		if h.Args == nil {
			h.Args = []string{}
		}
	}
	if f.Headers != nil && string(*f.Headers) != "null" {
		if err := json.Unmarshal(*f.Headers, &h.Headers); err != nil {
			return h, fmt.Errorf("headers must map names to strings, not %s", safefs.Excerpt(*f.Headers, 40))
		}
	}
	if f.AllowedEnv != nil && string(*f.AllowedEnv) != "null" {
		if err := json.Unmarshal(*f.AllowedEnv, &h.AllowedEnvVars); err != nil {
			return h, fmt.Errorf("allowedEnvVars must be a list of names, not %s", safefs.Excerpt(*f.AllowedEnv, 40))
		}
	}
	if h.Problem == "" && NativeType(h.Type) {
		h.Native, h.Problem = nativeDefinition(h.Type, raw)
	}
	if h.Problem == "" {
		h.Problem = fieldProblem(h)
	}
	return h, nil
}

// Background reports a handler that never delays its event: async or
// asyncRewake.
func (h Handler) Background() bool { return h.Async || h.AsyncRewake }

// Exec reports a command handler in exec form (args), which no shell
// reads.
func (h Handler) Exec() bool { return h.Args != nil }

// BlocksOnFailure reports a handler whose failure blocks a blocking
// event, whatever --fail-closed says (onFailure: block).
func (h Handler) BlocksOnFailure() bool { return h.OnFailure == "block" }

// problem says why quiver cannot run h, or "".
func problem(h Handler) string {
	if NativeType(h.Type) {
		// Claude Code runs these itself, whatever quiver calls its
		// event: they are checked as Claude would use them, then listed
		// as needing it.
		if _, err := CompileMatcher(h.Matcher); err != nil {
			return err.Error()
		}
		if h.If != "" {
			if _, err := ParseCondition(h.If); err != nil {
				return err.Error()
			}
		}
		return NeedsClaude(h.Type)
	}
	if _, ok := QuiverEvent(h.Event); !ok {
		return "event " + h.Event + " has no quiver equivalent"
	}
	switch h.Type {
	case "command":
		if strings.TrimSpace(h.Command) == "" {
			return "command handler has no command"
		}
		if h.Shell != "" && h.Shell != "bash" {
			return fmt.Sprintf("shell %q is not supported (quiver runs commands with bash)", h.Shell)
		}
	case "http": // its fields were checked when it was read
	case "":
		return `handler has no "type"`
	default:
		return fmt.Sprintf("handler type %q is not one of command, http, prompt, agent, mcp_tool", h.Type)
	}
	if _, err := CompileMatcher(h.Matcher); err != nil {
		return err.Error()
	}
	if h.If != "" {
		if !ToolEvent(h.Event) {
			return fmt.Sprintf("condition %q on %s: conditions apply to tool events only", h.If, h.Event)
		}
		if _, err := ParseCondition(h.If); err != nil {
			return err.Error()
		}
	}
	return ""
}

// strictObject decodes a JSON object into v; anything else is an error.
func strictObject(data []byte, v any) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return fmt.Errorf("not a JSON object")
	}
	if err := json.Unmarshal(trimmed, v); err != nil {
		return fmt.Errorf("not valid JSON: %v", err)
	}
	return nil
}

// stringField decodes an optional string.
func stringField(raw *json.RawMessage) (string, error) {
	if raw == nil || string(*raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(*raw, &s); err != nil {
		return "", fmt.Errorf("must be a string, not %s", safefs.Excerpt(*raw, 40))
	}
	return s, nil
}

// safeName accepts event names that are plain identifiers: they become
// part of item names and file-like paths.
func safeName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}
