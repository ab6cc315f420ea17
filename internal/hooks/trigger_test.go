package hooks

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/quiver-cli/quiver/internal/discovery"
)

// scripted is a RunFunc whose hooks answer from a table and record the
// payload each one received.
type scripted struct {
	mu      sync.Mutex // hooks of some events run at once
	answers map[string]Outcome
	seen    map[string]map[string]json.RawMessage
	order   []string
}

func (s *scripted) run(_ context.Context, h discovery.Hook, _ string, payload []byte, _ string) Outcome {
	var p map[string]json.RawMessage
	json.Unmarshal(payload, &p)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[h.Name] = p
	s.order = append(s.order, h.Name)
	o := s.answers[h.Name]
	o.Hook = h
	if o.Status == "" {
		o.Status = NoAction
	}
	return o
}

func ok(resp string) Outcome {
	r, err := DecodeResponse([]byte(resp))
	if err != nil {
		panic(err)
	}
	if r == nil {
		return Outcome{Status: NoAction}
	}
	if r.Blocked {
		return Outcome{Status: Blocked, Response: r, Reason: r.Reason}
	}
	return Outcome{Status: OK, Response: r}
}

func asked(resp string) Outcome {
	o := ok(resp)
	o.Status, o.Reason = Asked, o.Response.Reason
	return o
}

func failed(msg string) Outcome { return Outcome{Status: Failed, Error: msg} }

func hookSet(names ...string) []discovery.Hook {
	var hs []discovery.Hook
	for _, n := range names {
		hs = append(hs, discovery.Hook{Name: n, Status: discovery.Active})
	}
	return hs
}

// The combination rules of SPEC §8, including the chaining bugs earlier
// runtimes had (FIELD-NOTES): a later hook never undoes an earlier rewrite.
func TestCombination(t *testing.T) {
	tests := []struct {
		name       string
		event      string
		hooks      []string
		answers    map[string]Outcome
		failClosed bool
		want       string   // the result without the hooks report
		statuses   []Status // per hook, in order
		ran        []string
	}{
		{
			name: "v2: an ask is kept while later hooks run", event: format.BeforeToolCall,
			hooks:    []string{"A", "B", "C"},
			answers:  map[string]Outcome{"A": asked(`{"ask":true,"reason":"prod host"}`), "B": asked(`{"ask":true,"reason":"second"}`), "C": ok(`{"input":{"command":"ls"}}`)},
			want:     `{"event":"before_tool_call","decision":"ask","blocked":false,"reason":"prod host","asked_by":"A","input":{"command":"ls"},"context":[],"notices":[]}`,
			statuses: []Status{Asked, Asked, OK}, ran: []string{"A", "B", "C"},
		},
		{
			name: "v2: a later block overrides an ask; rewrites before it still count", event: format.BeforeToolCall,
			hooks:    []string{"A", "B", "C", "D"},
			answers:  map[string]Outcome{"A": ok(`{"input":{"command":"ls -l"}}`), "B": asked(`{"ask":true}`), "C": ok(`{"blocked":true,"reason":"no","input":{"command":"x"}}`)},
			want:     `{"event":"before_tool_call","decision":"block","blocked":true,"reason":"no","blocked_by":"C","input":{"command":"ls -l"},"context":[],"notices":[]}`,
			statuses: []Status{OK, Asked, Blocked, Skipped}, ran: []string{"A", "B", "C"},
		},
		{
			name: "v2: context and notices in hook order, a blocking hook's too", event: format.UserMessageSend,
			hooks:    []string{"A", "B", "C"},
			answers:  map[string]Outcome{"A": ok(`{"context":"lint: 2 warnings"}`), "B": ok(`{"notice":"saved a copy"}`), "C": ok(`{"blocked":true,"reason":"secret","context":"the prompt held a key","notice":"blocked a key"}`)},
			want:     `{"event":"user_message_send","decision":"block","blocked":true,"reason":"secret","blocked_by":"C","context":[{"hook":"A","text":"lint: 2 warnings"},{"hook":"C","text":"the prompt held a key"}],"notices":[{"hook":"B","text":"saved a copy"},{"hook":"C","text":"blocked a key"}]}`,
			statuses: []Status{OK, OK, Blocked}, ran: []string{"A", "B", "C"},
		},
		{
			name: "v2: session_start collects context from every hook", event: format.SessionStart,
			hooks:    []string{"A", "B"},
			answers:  map[string]Outcome{"A": ok(`{"context":"branch main"}`), "B": ok(`{"context":"3 open issues","ask":true}`)},
			want:     `{"event":"session_start","blocked":false,"context":[{"hook":"A","text":"branch main"},{"hook":"B","text":"3 open issues"}],"notices":[]}`,
			statuses: []Status{OK, OK}, ran: []string{"A", "B"},
		},
		{
			name: "v2: an ask outside before_tool_call changes nothing", event: format.UserMessageSend,
			hooks:    []string{"A"},
			answers:  map[string]Outcome{"A": ok(`{"ask":true,"reason":"r"}`)},
			want:     `{"event":"user_message_send","decision":"allow","blocked":false,"context":[],"notices":[]}`,
			statuses: []Status{OK}, ran: []string{"A"},
		},
		{
			name: "A rewrites input, B answers blocked:false: A's input stands", event: format.BeforeToolCall,
			hooks:    []string{"A", "B"},
			answers:  map[string]Outcome{"A": ok(`{"input":{"command":"ls -l"}}`), "B": ok(`{"blocked":false}`)},
			want:     `{"event":"before_tool_call","blocked":false,"input":{"command":"ls -l"}}`,
			statuses: []Status{OK, OK}, ran: []string{"A", "B"},
		},
		{
			name: "A blocks: B never runs", event: format.BeforeToolCall,
			hooks:    []string{"A", "B"},
			answers:  map[string]Outcome{"A": ok(`{"blocked":true,"reason":"nope"}`), "B": ok(`{"input":{"x":1}}`)},
			want:     `{"event":"before_tool_call","blocked":true,"reason":"nope","blocked_by":"A"}`,
			statuses: []Status{Blocked, Skipped}, ran: []string{"A"},
		},
		{
			name: "A rewrites input, then B blocks: block wins, rewrite reported", event: format.BeforeToolCall,
			hooks:    []string{"A", "B", "C"},
			answers:  map[string]Outcome{"A": ok(`{"input":{"command":"x"}}`), "B": ok(`{"blocked":true,"reason":"r"}`)},
			want:     `{"event":"before_tool_call","blocked":true,"reason":"r","blocked_by":"B","input":{"command":"x"}}`,
			statuses: []Status{OK, Blocked, Skipped}, ran: []string{"A", "B"},
		},
		{
			name: "two rewrites: the later one is final", event: format.BeforeToolCall,
			hooks:    []string{"A", "B"},
			answers:  map[string]Outcome{"A": ok(`{"input":{"v":1}}`), "B": ok(`{"input":{"v":2}}`)},
			want:     `{"event":"before_tool_call","blocked":false,"input":{"v":2}}`,
			statuses: []Status{OK, OK}, ran: []string{"A", "B"},
		},
		{
			name: "A rewrites output, B returns nothing: A's output stands", event: format.AfterToolCall,
			hooks:    []string{"A", "B"},
			answers:  map[string]Outcome{"A": ok(`{"output":"redacted"}`), "B": ok(``)},
			want:     `{"event":"after_tool_call","blocked":false,"output":"redacted"}`,
			statuses: []Status{OK, NoAction}, ran: []string{"A", "B"},
		},
		{
			name: "output: null is no change", event: format.AfterToolCall,
			hooks:    []string{"A", "B"},
			answers:  map[string]Outcome{"A": ok(`{"output":"x"}`), "B": ok(`{"output":null}`)},
			want:     `{"event":"after_tool_call","blocked":false,"output":"x"}`,
			statuses: []Status{OK, OK}, ran: []string{"A", "B"},
		},
		{
			name: "follow-ups from three hooks, in order", event: format.AgentStop,
			hooks: []string{"A", "B", "C", "D"},
			answers: map[string]Outcome{
				"A": ok(`{"follow_up_messages":["a1","a2"]}`), "B": ok(``),
				"C": ok(`{"follow_up_messages":["c"]}`), "D": ok(`{"follow_up_messages":[{"role":"user","content":"d"}]}`),
			},
			want:     `{"event":"agent_stop","blocked":false,"follow_up_messages":["a1","a2","c",{"role":"user","content":"d"}]}`,
			statuses: []Status{OK, NoAction, OK, OK}, ran: []string{"A", "B", "C", "D"},
		},
		{
			name: "agent_stop with no follow-ups: an empty list, never null", event: format.AgentStop,
			hooks: []string{"A"}, answers: map[string]Outcome{},
			want:     `{"event":"agent_stop","blocked":false,"follow_up_messages":[]}`,
			statuses: []Status{NoAction}, ran: []string{"A"},
		},
		{
			name: "user_message_send: first block wins", event: format.UserMessageSend,
			hooks:    []string{"A", "B", "C"},
			answers:  map[string]Outcome{"B": ok(`{"blocked":true,"reason":"secret"}`), "C": ok(`{"blocked":true,"reason":"other"}`)},
			want:     `{"event":"user_message_send","blocked":true,"reason":"secret","blocked_by":"B"}`,
			statuses: []Status{NoAction, Blocked, Skipped}, ran: []string{"A", "B"},
		},
		{
			name: "fail open: a crashing guard is reported and skipped", event: format.BeforeToolCall,
			hooks:    []string{"A", "B"},
			answers:  map[string]Outcome{"A": failed("exit status 1: boom"), "B": ok(`{"input":{"ok":true}}`)},
			want:     `{"event":"before_tool_call","blocked":false,"input":{"ok":true}}`,
			statuses: []Status{Failed, OK}, ran: []string{"A", "B"},
		},
		{
			name: "fail closed: a crashing guard blocks", event: format.BeforeToolCall, failClosed: true,
			hooks:    []string{"A", "B"},
			answers:  map[string]Outcome{"A": failed("exit status 1: boom")},
			want:     `{"event":"before_tool_call","blocked":true,"reason":"hook A failed: exit status 1: boom","blocked_by":"A"}`,
			statuses: []Status{Failed, Skipped}, ran: []string{"A"},
		},
		{
			name: "fail closed: a timeout blocks too", event: format.UserMessageSend, failClosed: true,
			hooks:    []string{"A"},
			answers:  map[string]Outcome{"A": {Status: TimedOut, Error: "timed out after 1s"}},
			want:     `{"event":"user_message_send","blocked":true,"reason":"hook A failed: timed out after 1s","blocked_by":"A"}`,
			statuses: []Status{TimedOut}, ran: []string{"A"},
		},
		{
			name: "fail closed does not apply to non-blocking events", event: format.AfterToolCall, failClosed: true,
			hooks:    []string{"A", "B"},
			answers:  map[string]Outcome{"A": failed("x"), "B": ok(`{"output":1}`)},
			want:     `{"event":"after_tool_call","blocked":false,"output":1}`,
			statuses: []Status{Failed, OK}, ran: []string{"A", "B"},
		},
		{
			name: "turn_end: all run, results ignored", event: format.TurnEnd,
			hooks:    []string{"A", "B"},
			answers:  map[string]Outcome{"A": ok(`{"output":"ignored"}`), "B": failed("x")},
			want:     `{"event":"turn_end","blocked":false}`,
			statuses: []Status{OK, Failed},
		},
		{
			name: "no hooks: the empty result", event: format.BeforeToolCall,
			want: `{"event":"before_tool_call","blocked":false}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &scripted{answers: tt.answers, seen: map[string]map[string]json.RawMessage{}}
			trig := &Trigger{Run: s.run, FailClosed: tt.failClosed}
			p, err := ParsePayload(tt.event, []byte(`{"tool_input":{"command":"rm -rf /"},"tool_output":"raw"}`), "/proj")
			if err != nil {
				t.Fatal(err)
			}
			res := trig.Fire(t.Context(), tt.event, p, hookSet(tt.hooks...))
			var statuses []Status
			for _, h := range res.Hooks {
				statuses = append(statuses, h.Status)
			}
			res.Hooks = nil
			if !strings.Contains(tt.want, `"decision"`) && !strings.Contains(tt.want, `"context"`) {
				v1View(t, res)
			}
			got, _ := json.Marshal(res)
			gotStr := strings.Replace(string(got), `,"hooks":null`, "", 1)
			if gotStr != tt.want {
				t.Errorf("result\n got  %s\n want %s", gotStr, tt.want)
			}
			if !slices.Equal(statuses, tt.statuses) {
				t.Errorf("statuses %v, want %v", statuses, tt.statuses)
			}
			ran := s.order
			if tt.event == format.TurnEnd || together(tt.event) {
				// They start together: which runs first is the scheduler's.
				ran = slices.Sorted(slices.Values(ran))
			}
			if tt.event != format.TurnEnd && !slices.Equal(ran, tt.ran) {
				t.Errorf("ran %v, want %v", s.order, tt.ran)
			}
		})
	}
}

// v1View checks that the protocol v2 fields of a result agree with the v1
// ones and have nothing to say, then removes them: what a v1 caller reads
// stays exactly as it was.
func v1View(t *testing.T, res *Result) {
	t.Helper()
	if blocking(res.Event) {
		want := Allow
		if res.Blocked {
			want = Block
		}
		if res.Decision != want {
			t.Errorf("decision %q with blocked=%v", res.Decision, res.Blocked)
		}
	} else if res.Decision != "" {
		t.Errorf("decision %q on %s", res.Decision, res.Event)
	}
	if res.Event == format.TurnEnd {
		if res.Context != nil || res.Notices != nil {
			t.Error("turn_end has no context or notices")
		}
	} else if res.Context == nil || res.Notices == nil || len(*res.Context)+len(*res.Notices) != 0 {
		t.Errorf("context %v and notices %v, want empty lists", res.Context, res.Notices)
	}
	res.Decision, res.Context, res.Notices = "", nil, nil
}

// Text over the limit is cut on a rune boundary, and the hook's report says
// so; an ask on an event that cannot ask is noted.
func TestTextLimits(t *testing.T) {
	long := strings.Repeat("é", MaxText) // 2 bytes each: twice the limit
	s := &scripted{answers: map[string]Outcome{
		"A": ok(`{"context":"` + long + `","notice":"n"}`),
		"B": ok(`{"ask":true}`),
	}, seen: map[string]map[string]json.RawMessage{}}
	res := (&Trigger{Run: s.run}).Fire(t.Context(), format.AgentStop, Payload{}, hookSet("A", "B"))
	got := (*res.Context)[0].Text
	if len(got) != MaxText || !utf8.ValidString(got) {
		t.Errorf("context cut to %d bytes (valid UTF-8: %v), want %d", len(got), utf8.ValidString(got), MaxText)
	}
	if res.Hooks[0].Note != "context cut to 10240 bytes" || res.Hooks[1].Note != "ask applies to before_tool_call only" {
		t.Errorf("notes %q, %q", res.Hooks[0].Note, res.Hooks[1].Note)
	}
	if (*res.Notices)[0].Text != "n" {
		t.Errorf("notices %v", *res.Notices)
	}
}

// Later hooks see earlier rewrites in their payload.
func TestChainedPayload(t *testing.T) {
	s := &scripted{answers: map[string]Outcome{"A": ok(`{"input":{"command":"ls"}}`), "C": ok(`{"output":"o2"}`)}, seen: map[string]map[string]json.RawMessage{}}
	trig := &Trigger{Run: s.run}
	p, _ := ParsePayload(format.BeforeToolCall, []byte(`{"tool_input":{"command":"rm"}}`), "/proj")
	trig.Fire(t.Context(), format.BeforeToolCall, p, hookSet("A", "B"))
	if got := string(s.seen["B"]["tool_input"]); got != `{"command":"ls"}` {
		t.Errorf("B saw tool_input %s", got)
	}
	if got := string(s.seen["A"]["tool_input"]); got != `{"command":"rm"}` {
		t.Errorf("A saw tool_input %s", got)
	}
	p, _ = ParsePayload(format.AfterToolCall, []byte(`{"tool_output":"o1"}`), "/proj")
	trig.Fire(t.Context(), format.AfterToolCall, p, hookSet("C", "D"))
	if got := string(s.seen["D"]["tool_output"]); got != `"o2"` {
		t.Errorf("D saw tool_output %s", got)
	}
}

// recipe_name, conv_id, tool_user_id and fields quiver does not know reach
// a real hook process byte for byte; event, cwd and invoked_by are filled.
func TestPayloadPassThrough(t *testing.T) {
	ex := newExecutor(t, 10*time.Second)
	trig := &Trigger{Run: ex.Run, ProjectDir: ex.ProjectDir}
	in := `{"tool_name":"bash","tool_output":"x","recipe_name":"code-review","conv_id":"c-42","tool_user_id":"u-7","x_custom":{"deep":[1,2.50,"três"]},"invoked_by":"subagent"}`
	p, err := ParsePayload(format.AfterToolCall, []byte(in), ex.ProjectDir)
	if err != nil {
		t.Fatal(err)
	}
	res := trig.Fire(t.Context(), format.AfterToolCall, p, []discovery.Hook{fake("echo")})
	var got struct {
		Payload map[string]json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(res.Output, &got); err != nil {
		t.Fatalf("%v: %s", err, res.Output)
	}
	want := map[string]string{
		"recipe_name": `"code-review"`, "conv_id": `"c-42"`, "tool_user_id": `"u-7"`,
		"x_custom": `{"deep":[1,2.5,"três"]}`, "invoked_by": `"subagent"`,
		"event": `"after_tool_call"`, "cwd": `"` + ex.ProjectDir + `"`,
	}
	for k, v := range want {
		if string(got.Payload[k]) != v {
			t.Errorf("%s = %s, want %s", k, got.Payload[k], v)
		}
	}
}

func TestParsePayload(t *testing.T) {
	tests := []struct {
		in      string
		wantErr error
	}{
		{``, nil},
		{`{}`, nil},
		{`{"event":"before_tool_call"}`, nil},
		{`{"event":"after_tool_call"}`, ErrEventMismatch},
		{`{"event":7}`, ErrEventMismatch},
		{`[1]`, ErrPayload},
		{`null`, ErrPayload},
		{`"s"`, ErrPayload},
		{`{"a":`, ErrPayload},
	}
	for _, tt := range tests {
		_, err := ParsePayload(format.BeforeToolCall, []byte(tt.in), "/p")
		if (err == nil) != (tt.wantErr == nil) || (tt.wantErr != nil && !strings.Contains(err.Error(), tt.wantErr.Error())) {
			t.Errorf("%q: err %v, want %v", tt.in, err, tt.wantErr)
		}
	}
	p, _ := ParsePayload(format.TurnEnd, nil, "/proj")
	if p.String("cwd") != "/proj" || p.String("invoked_by") != "main" || p.String("event") != "turn_end" {
		t.Errorf("defaults not filled: %v", p)
	}
	p, _ = ParsePayload(format.TurnEnd, []byte(`{"cwd":"/elsewhere"}`), "/proj")
	if p.String("cwd") != "/elsewhere" {
		t.Errorf("cwd overwritten: %v", p)
	}
}

// The hook runs in the payload's cwd when it exists, else the project dir.
func TestWorkingDirectoryRule(t *testing.T) {
	ex := newExecutor(t, 10*time.Second)
	trig := &Trigger{Run: ex.Run, ProjectDir: ex.ProjectDir}
	cwdOf := func(payload string) string {
		p, _ := ParsePayload(format.AfterToolCall, []byte(payload), ex.ProjectDir)
		res := trig.Fire(t.Context(), format.AfterToolCall, p, []discovery.Hook{fake("echo")})
		var got struct {
			Cwd string `json:"cwd"`
		}
		json.Unmarshal(res.Output, &got)
		return got.Cwd
	}
	other := t.TempDir()
	if got := cwdOf(`{"cwd":"` + other + `"}`); got != other {
		t.Errorf("existing cwd: ran in %s", got)
	}
	if got := cwdOf(`{"cwd":"/does/not/exist"}`); got != ex.ProjectDir {
		t.Errorf("missing cwd: ran in %s, want %s", got, ex.ProjectDir)
	}
	_ = os.Remove
}

func TestAuditLog(t *testing.T) {
	path := t.TempDir() + "/audit.jsonl"
	log, err := OpenAuditLog(path)
	if err != nil {
		t.Fatal(err)
	}
	s := &scripted{answers: map[string]Outcome{"A": ok(`{"input":{"a":1}}`), "B": ok(`{"blocked":true,"reason":"r"}`)}, seen: map[string]map[string]json.RawMessage{}}
	trig := &Trigger{Run: s.run, OnOutcome: log.Record}
	p, _ := ParsePayload(format.BeforeToolCall, nil, "/p")
	trig.Fire(t.Context(), format.BeforeToolCall, p, hookSet("A", "B", "C"))
	log.Close()
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 { // C was skipped, not executed
		t.Fatalf("got %d lines:\n%s", len(lines), data)
	}
	var a, b map[string]any
	json.Unmarshal([]byte(lines[0]), &a)
	json.Unmarshal([]byte(lines[1]), &b)
	if a["hook"] != "A" || a["changed"] != true || a["blocked"] != false || a["status"] != "ok" || a["event"] != "before_tool_call" {
		t.Errorf("line A: %v", a)
	}
	if b["hook"] != "B" || b["blocked"] != true || b["changed"] != false {
		t.Errorf("line B: %v", b)
	}
	if _, err := time.Parse(time.RFC3339Nano, a["time"].(string)); err != nil {
		t.Errorf("time: %v", err)
	}
}

// TestBackgroundHandlers: what each AsyncMode runs of an event's
// background handlers, and how what they say combines (SPEC §15).
func TestBackgroundHandlers(t *testing.T) {
	bg := func(name string, hd format.Handler) discovery.Hook {
		return discovery.Hook{Name: name, Status: discovery.Active, Handler: &hd}
	}
	set := []discovery.Hook{
		{Name: "plain", Status: discovery.Active},
		bg("a1", format.Handler{Async: true}),
		bg("r1", format.Handler{AsyncRewake: true, RewakeMessage: "Review:"}),
		bg("a2", format.Handler{Async: true}),
		bg("r2", format.Handler{AsyncRewake: true}),
	}
	answers := map[string]Outcome{
		"plain": ok(`{"context": "from plain"}`),
		"a1":    ok(`{"context": "from a1", "blocked": true, "reason": "no"}`),
		"a2":    ok(`{"notice": "from a2"}`),
		"r1":    {Status: Failed, ExitCode: 2, Stderr: []byte("found a secret\n")},
		"r2":    {Status: OK, ExitCode: 0, Stderr: []byte("nothing to say")},
	}
	for _, c := range []struct {
		mode            AsyncMode
		ran             string
		context, rewake string
	}{
		{AsyncDetach, "a1 a2 plain r1 r2", "from plain", ""},
		{AsyncElsewhere, "plain", "from plain", ""},
		{AsyncOnly, "a1 a2", "from a1", ""},
		{RewakeOnly, "r1 r2", "", "Review: found a secret"},
	} {
		var mu sync.Mutex
		var ran []string
		run := func(_ context.Context, h discovery.Hook, _ string, _ []byte, _ string) Outcome {
			mu.Lock()
			defer mu.Unlock()
			ran = append(ran, h.Name)
			o := answers[h.Name]
			o.Hook = h
			return o
		}
		tr := &Trigger{Run: run, Async: c.mode}
		res := tr.Fire(t.Context(), format.SessionStart, Payload{}, set)
		slices.Sort(ran)
		if got := strings.Join(ran, " "); got != c.ran {
			t.Errorf("mode %d ran %q, want %q", c.mode, got, c.ran)
		}
		var ctx []string
		for _, x := range *res.Context {
			ctx = append(ctx, x.Text)
		}
		if got := strings.Join(ctx, "|"); got != c.context {
			t.Errorf("mode %d: context %q, want %q", c.mode, got, c.context)
		}
		var wake []string
		for _, x := range res.Rewake {
			wake = append(wake, x.Hook+": "+x.Text)
		}
		want := ""
		if c.rewake != "" {
			want = "r1: " + c.rewake
		}
		if got := strings.Join(wake, "|"); got != want {
			t.Errorf("mode %d: rewake %q, want %q", c.mode, got, want)
		}
		if c.mode == AsyncOnly && (res.Blocked || res.Decision == Block) {
			t.Errorf("an async handler decided: %+v", res)
		}
	}
}

// TestTogetherEventsRunAtOnce: the hooks of session_start and agent_stop
// start together (each of these waits until every other has started,
// which in sequence never happens), and their results combine in
// precedence order, not in the order they finish.
func TestTogetherEventsRunAtOnce(t *testing.T) {
	for _, event := range []string{format.SessionStart, format.AgentStop} {
		names := []string{"a", "b", "c"}
		var started sync.WaitGroup
		started.Add(len(names))
		allStarted := make(chan struct{})
		go func() { started.Wait(); close(allStarted) }()
		finish := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{}), "c": make(chan struct{})}
		run := func(ctx context.Context, h discovery.Hook, _ string, _ []byte, _ string) Outcome {
			started.Done()
			select {
			case <-allStarted:
			case <-time.After(time.Minute): // a failure detector only: in sequence this never ends
				return Outcome{Hook: h, Status: Failed, Error: "ran alone"}
			}
			if h.Name != "c" { // c finishes first, a last
				<-finish[h.Name]
			}
			if h.Name == "c" {
				close(finish["b"])
			} else if h.Name == "b" {
				close(finish["a"])
			}
			o := ok(`{"context": "from ` + h.Name + `", "follow_up_messages": ["` + h.Name + `"]}`)
			o.Hook = h
			return o
		}
		res := (&Trigger{Run: run}).Fire(t.Context(), event, Payload{}, hookSet(names...))
		var got []string
		for _, c := range *res.Context {
			got = append(got, c.Text)
		}
		if strings.Join(got, ",") != "from a,from b,from c" {
			t.Errorf("%s: context %v, want precedence order", event, got)
		}
		for _, h := range res.Hooks {
			if h.Status != OK {
				t.Errorf("%s: %s %s %s", event, h.Name, h.Status, h.Error)
			}
		}
		if event == format.AgentStop && len(*res.FollowUpMessages) != 3 {
			t.Errorf("agent_stop: follow-ups %s", *res.FollowUpMessages)
		}
	}
}

// TestInvalidBackgroundHandlerBlocksNothing: under fail-closed an invalid
// hook blocks a blocking event, but an invalid background handler, which
// could never have decided, does not, whichever door runs it.
func TestInvalidBackgroundHandlerBlocksNothing(t *testing.T) {
	hd := format.Handler{Async: true}
	set := []discovery.Hook{{Name: "bad-async", Status: discovery.Invalid, Reason: "matcher ( does not compile", Handler: &hd}}
	for _, mode := range []AsyncMode{AsyncDetach, AsyncElsewhere} {
		tr := &Trigger{Run: func(context.Context, discovery.Hook, string, []byte, string) Outcome {
			t.Fatal("an invalid hook ran")
			return Outcome{}
		}, FailClosed: true, Async: mode}
		if res := tr.Fire(t.Context(), format.BeforeToolCall, Payload{}, set); res.Blocked {
			t.Errorf("mode %d: an invalid async handler blocked: %s", mode, res.Reason)
		}
	}
}
