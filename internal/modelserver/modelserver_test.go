package modelserver

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestToolCall: with a tool scripted, the Messages answer calls it while
// the conversation has no tool result, and says Reply once it has one.
func TestToolCall(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Tool = &ToolUse{Name: "bash", Input: map[string]any{"command": "echo hi"}}
	post := func(body string) string {
		resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return string(out)
	}
	first := post(`{"model":"m","stream":true,"tools":[{"name":"bash"}],"messages":[{"role":"user","content":"go"}]}`)
	if !strings.Contains(first, `"type":"tool_use"`) || !strings.Contains(first, `{\"command\":\"echo hi\"}`) {
		t.Errorf("no tool call:\n%s", first)
	}
	then := post(`{"model":"m","stream":true,"tools":[{"name":"bash"}],"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"denied"}]}]}`)
	if !strings.Contains(then, s.Reply) || strings.Contains(then, "tool_use") {
		t.Errorf("called the tool again:\n%s", then)
	}
	if plain := post(`{"model":"m","messages":[]}`); !strings.Contains(plain, `"text":"Done."`) {
		t.Errorf("a request without tools got %s", plain)
	}
	if len(s.Requests()) != 3 {
		t.Errorf("%d requests kept", len(s.Requests()))
	}
}
