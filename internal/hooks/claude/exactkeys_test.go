package claude

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins/format"
)

// A handler's output is read with exact, case-sensitive keys, as Claude
// Code reads it, and a decision given twice takes its strictest value,
// unlike Claude, which takes the last (SPEC §8, §15): a guard's deny is
// never undone by a second spelling or a second copy.
func TestOutputExactKeys(t *testing.T) {
	const (
		pre    = format.BeforeToolCall
		prompt = format.UserMessageSend
		stop   = format.AgentStop
	)
	hso := func(members string) string { return `"hookSpecificOutput":{` + members + `}` }
	// A key that differs from one quiver reads only in letter case is
	// ignored, and the hook's report says so.
	note := func(key string) []string { return []string{misspelled(key)} }
	tests := []struct {
		name, event, stdout string
		want                Result
	}{
		// Another letter case is another key, ignored.
		{"PermissionDecision", pre, `{` + hso(`"PermissionDecision":"deny"`) + `}`, Result{Ignored: note("hookSpecificOutput.PermissionDecision")}},
		{"permissionDecision beside PermissionDecision", pre, `{` + hso(`"permissionDecision":"deny","PermissionDecision":"allow"`) + `}`, Result{Action: Block, Ignored: note("hookSpecificOutput.PermissionDecision")}},
		{"PermissionDecision first", pre, `{` + hso(`"PermissionDecision":"allow","permissionDecision":"deny","permissionDecisionReason":"no"`) + `}`, Result{Action: Block, Reason: "no", Ignored: note("hookSpecificOutput.PermissionDecision")}},
		{"HookSpecificOutput", pre, `{"HookSpecificOutput":{"permissionDecision":"deny"}}`, Result{Ignored: note("HookSpecificOutput")}},
		{"hookSpecificOutput beside HookSpecificOutput", pre, `{` + hso(`"permissionDecision":"deny"`) + `,"HookSpecificOutput":{"permissionDecision":"allow"}}`, Result{Action: Block, Ignored: note("HookSpecificOutput")}},
		{"Decision", pre, `{"Decision":"block","reason":"x"}`, Result{Ignored: note("Decision")}},
		{"Decision on a prompt", prompt, `{"Decision":"block","reason":"x"}`, Result{Ignored: note("Decision")}},
		{"Reason", pre, `{"decision":"block","Reason":"x"}`, Result{Action: Block, Ignored: note("Reason")}},
		{"PermissionDecisionReason", pre, `{` + hso(`"permissionDecision":"deny","PermissionDecisionReason":"x"`) + `}`, Result{Action: Block, Ignored: note("hookSpecificOutput.PermissionDecisionReason")}},
		{"Continue", stop, `{"Continue":false}`, Result{Ignored: note("Continue")}},
		{"SystemMessage", pre, `{"SystemMessage":"x"}`, Result{Ignored: note("SystemMessage")}},
		{"UpdatedInput", pre, `{` + hso(`"UpdatedInput":{"command":"rm -rf /"}`) + `}`, Result{Ignored: note("hookSpecificOutput.UpdatedInput")}},
		{"escaped key", pre, `{` + hso(`"permissionDecisi\u006fn":"deny"`) + `}`, Result{Action: Block}},
		// permissionDecision twice: the stricter, in either order, with
		// the reason given beside it.
		{"deny then allow", pre, `{` + hso(`"permissionDecision":"deny","permissionDecisionReason":"no","permissionDecision":"allow","permissionDecisionReason":"yes"`) + `}`, Result{Action: Block, Reason: "no"}},
		{"allow then deny", pre, `{` + hso(`"permissionDecision":"allow","permissionDecisionReason":"yes","permissionDecision":"deny","permissionDecisionReason":"no"`) + `}`, Result{Action: Block, Reason: "no"}},
		{"ask then allow", pre, `{` + hso(`"permissionDecision":"ask","permissionDecisionReason":"prod","permissionDecision":"allow","permissionDecisionReason":"fine"`) + `}`, Result{Action: Ask, Reason: "prod"}},
		{"allow then ask", pre, `{` + hso(`"permissionDecision":"allow","permissionDecisionReason":"fine","permissionDecision":"ask","permissionDecisionReason":"prod"`) + `}`, Result{Action: Ask, Reason: "prod"}},
		{"ask then deny", pre, `{` + hso(`"permissionDecision":"ask","permissionDecision":"deny"`) + `}`, Result{Action: Block}},
		{"defer then ask", pre, `{` + hso(`"permissionDecision":"defer","permissionDecision":"ask","permissionDecisionReason":"prod"`) + `}`, Result{Action: Defer, Reason: "prod"}},
		{"deny then null", pre, `{` + hso(`"permissionDecision":"deny","permissionDecision":null`) + `}`, Result{Action: Block}},
		{"deny twice, two reasons", pre, `{` + hso(`"permissionDecision":"deny","permissionDecisionReason":"a","permissionDecision":"deny","permissionDecisionReason":"b"`) + `}`, Result{Action: Block, Reason: "b"}},
		{"deny once, two reasons", pre, `{` + hso(`"permissionDecision":"deny","permissionDecisionReason":"a","permissionDecisionReason":"b"`) + `}`, Result{Action: Block, Reason: "b"}},
		// hookSpecificOutput twice is one object: the deny meets the allow.
		{"two objects, deny first", pre, `{` + hso(`"permissionDecision":"deny","permissionDecisionReason":"no"`) + `,` + hso(`"permissionDecision":"allow","permissionDecisionReason":"yes"`) + `}`, Result{Action: Block, Reason: "no"}},
		{"two objects, deny second", pre, `{` + hso(`"permissionDecision":"allow"`) + `,` + hso(`"permissionDecision":"deny","permissionDecisionReason":"no"`) + `}`, Result{Action: Block, Reason: "no"}},
		{"two objects, then null", pre, `{` + hso(`"permissionDecision":"deny"`) + `,"hookSpecificOutput":null}`, Result{Action: Block}},
		// A second copy that Claude could not read never undoes a deny...
		{"deny, then a number", pre, `{` + hso(`"permissionDecision":"deny","permissionDecision":5`) + `}`, Result{Action: Block}},
		{"deny, then unknown", pre, `{` + hso(`"permissionDecision":"deny","permissionDecision":"maybe"`) + `}`, Result{Action: Block}},
		{"deny, then another event", pre, `{` + hso(`"hookEventName":"PreToolUse","permissionDecision":"deny"`) + `,` + hso(`"hookEventName":"PostToolUse"`) + `}`, Result{Action: Block}},
		{"deny, then a string", pre, `{` + hso(`"permissionDecision":"deny"`) + `,"hookSpecificOutput":"allow"}`, Result{Action: Block}},
		{"deny, then a bad context", pre, `{` + hso(`"permissionDecision":"deny"`) + `,` + hso(`"additionalContext":1`) + `}`, Result{Action: Block}},
		{"deny, bad second reason", pre, `{` + hso(`"permissionDecision":"deny","permissionDecisionReason":"no","permissionDecisionReason":7`) + `}`, Result{Action: Block}},
		// ...and without a deny it fails as it would alone.
		{"allow, then a number", pre, `{` + hso(`"permissionDecision":"allow","permissionDecision":5`) + `}`,
			Result{Action: Fail, Error: "output does not follow Claude's hook output: json: cannot unmarshal number into Go struct field specificOutput.hookSpecificOutput.permissionDecision of type string"}},
		{"allow, then unknown", pre, `{` + hso(`"permissionDecision":"allow","permissionDecision":"maybe"`) + `}`, Result{Action: Fail, Error: `unknown permissionDecision "maybe"`}},
		{"ask, then unknown", pre, `{` + hso(`"permissionDecision":"ask","permissionDecision":"maybe"`) + `}`, Result{Action: Fail, Error: `unknown permissionDecision "maybe"`}},
		{"a string alone", pre, `{"hookSpecificOutput":"deny"}`,
			Result{Action: Fail, Error: "output does not follow Claude's hook output: json: cannot unmarshal string into Go struct field jsonOutput.hookSpecificOutput of type claude.specificOutput"}},
		{"another event alone", pre, `{` + hso(`"hookEventName":"PostToolUse","permissionDecision":"deny"`) + `}`, Result{Action: Fail, Error: "hookSpecificOutput is for PostToolUse, not PreToolUse"}},
		{"a bad reason given once", pre, `{` + hso(`"permissionDecision":"deny","permissionDecisionReason":7`) + `}`,
			Result{Action: Fail, Error: "output does not follow Claude's hook output: json: cannot unmarshal number into Go struct field specificOutput.hookSpecificOutput.permissionDecisionReason of type string"}},
		// decision twice: block wins, with its own reason.
		{"block then approve", pre, `{"decision":"block","reason":"tests fail","decision":"approve","reason":"ok"}`, Result{Action: Block, Reason: "tests fail"}},
		{"approve then block", pre, `{"decision":"approve","reason":"ok","decision":"block","reason":"tests fail"}`, Result{Action: Block, Reason: "tests fail"}},
		{"block twice, two reasons", pre, `{"decision":"block","reason":"a","decision":"block","reason":"b"}`, Result{Action: Block, Reason: "b"}},
		{"block then unknown", pre, `{"decision":"block","reason":"no","decision":"maybe"}`, Result{Action: Block, Reason: "no"}},
		{"approve then unknown", pre, `{"decision":"approve","decision":"maybe"}`, Result{Action: Fail, Error: `unknown "decision" "maybe"`}},
		{"prompt: block then approve", prompt, `{"decision":"block","reason":"secret","decision":"approve"}`, Result{Action: Block, Reason: "secret"}},
		{"prompt: approve then block", prompt, `{"decision":"approve","reason":"ok","decision":"block","reason":"secret"}`, Result{Action: Block, Reason: "secret"}},
		{"stop: block then approve", stop, `{"decision":"block","reason":"keep going","decision":"approve","reason":"done"}`, Result{FollowUp: "keep going"}},
		// continue twice: false wins.
		{"continue false then true", stop, `{"continue":false,"continue":true}`, Result{AgentOutput: map[string]json.RawMessage{"continue": json.RawMessage("false")}}},
		{"continue true then false", stop, `{"continue":true,"continue":false}`, Result{AgentOutput: map[string]json.RawMessage{"continue": json.RawMessage("false")}}},
		// Keys that decide nothing: the last copy, as in Claude.
		{"systemMessage twice", pre, `{"systemMessage":"a","systemMessage":"b","SystemMessage":"c"}`, Result{Notice: "b", Ignored: note("SystemMessage")}},
		// Tool data is not a decision: Path and path are both real, and
		// kept as written, white space aside; a repeated key inside it too.
		{"updatedInput", pre, `{` + hso(`"permissionDecision":"allow","updatedInput":{"Path": "/a", "path":"/b","path":"/c"}`) + `}`, Result{Input: json.RawMessage(`{"Path":"/a","path":"/b","path":"/c"}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			claudeEvent := map[string]string{pre: "PreToolUse", prompt: "UserPromptSubmit", stop: "Stop"}[tt.event]
			got := Output(tt.event, claudeEvent, 0, []byte(tt.stdout), nil)
			g, _ := json.Marshal(resultJSON(got))
			w, _ := json.Marshal(resultJSON(tt.want))
			if string(g) != string(w) {
				t.Errorf("%s\n got %s\nwant %s", tt.stdout, g, w)
			}
			if string(got.Input) != string(tt.want.Input) {
				t.Errorf("%s\n input %s\n  want %s", tt.stdout, got.Input, tt.want.Input)
			}
		})
	}
}

// fuzzOutputKeys are the keys of Claude's output quiver reads, each with a
// value it may hold alone; hookSpecificOutput's come apart.
var fuzzOutputKeys = []struct{ key, value string }{
	{"decision", `"approve"`}, {"reason", `"r"`}, {"systemMessage", `"s"`}, {"continue", "true"},
	{"stopReason", `"x"`}, {"suppressOutput", "false"},
}

var fuzzSpecificKeys = []struct{ key, value string }{
	{"permissionDecision", `"deny"`}, {"permissionDecisionReason", `"first"`}, {"hookEventName", `"PreToolUse"`},
	{"additionalContext", `"c"`}, {"updatedInput", `{"Path":"/a","path":"/b"}`}, {"updatedMCPToolOutput", `"o"`},
}

// fuzzValues are what the copies hold; the fuzzer adds its own text.
var fuzzValues = []string{
	`"deny"`, `"allow"`, `"ask"`, `"defer"`, `"block"`, `"approve"`, `""`, `"maybe"`, `"PostToolUse"`,
	`true`, `false`, `null`, `0`, `5`, `[]`, `{}`, `{"command":"rm -rf /"}`,
	`{"permissionDecision":"allow"}`, `{"PermissionDecision":"allow"}`, `{"hookEventName":"PostToolUse","additionalContext":1}`,
	`{"updatedMCPToolOutput":{"x":1},"permissionDecisionReason":[]}`,
}

// mixCase returns key with the letters whose bit is set in mask in the
// other case (bit 0 for the first letter).
func mixCase(key string, mask uint16) string {
	b := []byte(key)
	for i := range b {
		if mask&(1<<(i%16)) != 0 && ('a' <= b[i] && b[i] <= 'z' || 'A' <= b[i] && b[i] <= 'Z') {
			b[i] ^= 0x20
		}
	}
	return string(b)
}

// copies builds members from ops, three bytes each: which key, which
// letters to change the case of, which value.
func copies(ops []byte, free string, keys []string) []string {
	var out []string
	for i := 0; i+2 < len(ops); i += 3 {
		key := keys[int(ops[i])%len(keys)]
		if ops[i+1]&0x80 != 0 {
			key = mixCase(key, uint16(ops[i+1]&0x7f)|1)
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
// keys follow, a handler output whose first permissionDecision says deny
// (PreToolUse), or whose first decision says block (PreToolUse and
// UserPromptSubmit), blocks: never an allow, an ask or a failure.
func FuzzDuplicateDecisionKeys(f *testing.F) {
	f.Add(false, []byte{}, []byte{}, "")
	f.Add(false, []byte{0, 0, 1}, []byte{}, "")                       // permissionDecision allow
	f.Add(false, []byte{0, 0x81, 1, 0, 0, 13}, []byte{}, "")          // PermissionDecision allow, permissionDecision 5
	f.Add(false, []byte{2, 0, 8}, []byte{6, 0, 17}, "")               // hookEventName PostToolUse; a second hookSpecificOutput
	f.Add(true, []byte{}, []byte{0, 0, 5, 1, 0, 13, 0, 0, 7}, "")     // decision approve, reason 5, decision maybe
	f.Add(true, []byte{}, []byte{6, 0, 19, 6, 0, 0}, "")              // hookSpecificOutput twice more, one a string
	f.Add(false, []byte{0, 0, 22}, []byte{}, `"allow"`)               // the fuzzer's own value
	f.Add(true, []byte{}, []byte{0, 0x83, 5, 0, 0, 22}, `{"x":true}`) // DEcision approve
	var top, inner []string
	for _, k := range fuzzOutputKeys {
		top = append(top, k.key)
	}
	top = append(top, "hookSpecificOutput")
	for _, k := range fuzzSpecificKeys {
		inner = append(inner, k.key)
	}
	f.Fuzz(func(t *testing.T, byDecision bool, specific, after []byte, free string) {
		members := []string{}
		for _, k := range fuzzOutputKeys {
			v := k.value
			if k.key == "decision" && byDecision {
				v = `"block"`
			}
			members = append(members, `"`+k.key+`":`+v)
		}
		var sm []string
		for _, k := range fuzzSpecificKeys {
			v := k.value
			if k.key == "permissionDecision" && byDecision {
				v = `"allow"`
			}
			sm = append(sm, `"`+k.key+`":`+v)
		}
		sm = append(sm, copies(specific, free, inner)...)
		members = append(members, `"hookSpecificOutput":{`+strings.Join(sm, ",")+`}`)
		members = append(members, copies(after, free, top)...)
		out := "{" + strings.Join(members, ",") + "}"
		events := []string{format.BeforeToolCall}
		if byDecision {
			events = append(events, format.UserMessageSend)
		}
		for _, event := range events {
			claudeEvent := map[string]string{format.BeforeToolCall: "PreToolUse", format.UserMessageSend: "UserPromptSubmit"}[event]
			// On a prompt, hookSpecificOutput is for UserPromptSubmit.
			o := out
			if event == format.UserMessageSend {
				o = strings.Replace(out, `"hookEventName":"PreToolUse"`, `"hookEventName":"UserPromptSubmit"`, 1)
			}
			if r := Output(event, claudeEvent, 0, []byte(o), nil); r.Action != Block {
				t.Fatalf("%s %s: %+v; want a block", claudeEvent, o, r)
			}
		}
	})
}

// TestOutputAfterByteOrderMark: Claude trims a byte order mark before it
// reads JSON (second attack review of contract v3): so does quiver.
func TestOutputAfterByteOrderMark(t *testing.T) {
	deny := "\ufeff" + `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`
	if r := Output(format.BeforeToolCall, "PreToolUse", 0, []byte(deny), nil); r.Action != Block {
		t.Errorf("a deny after a BOM: %+v", r)
	}
	block := "\ufeff\n" + `{"decision":"block","reason":"no"}`
	if r := Output(format.UserMessageSend, "UserPromptSubmit", 0, []byte(block), nil); r.Action != Block {
		t.Errorf("a block after a BOM: %+v", r)
	}
}
