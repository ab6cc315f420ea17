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

// TestToolCallGeminiAndOpenAI: the scripted call is made in Gemini's and
// OpenAI's wire formats too, only on a request that offers tools and
// carries no tool result; Gemini CLI's side questions (no tools) get text.
func TestToolCallGeminiAndOpenAI(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Tool = &ToolUse{Name: "run_shell_command", Input: map[string]any{"command": "echo hi"}}
	post := func(path, body string) string {
		resp, err := http.Post(s.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return string(out)
	}
	const gemini = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
	tools := `"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]`
	if got := post(gemini, `{`+tools+`,"contents":[{"role":"user","parts":[{"text":"go"}]}]}`); !strings.Contains(got, `"functionCall":{"args":{"command":"echo hi"},"name":"run_shell_command"}`) {
		t.Errorf("gemini: no tool call:\n%s", got)
	}
	if got := post(gemini, `{`+tools+`,"contents":[{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command"}}]}]}`); strings.Contains(got, "functionCall") || !strings.Contains(got, s.Reply) {
		t.Errorf("gemini: called the tool again:\n%s", got)
	}
	if got := post(gemini, `{"contents":[{"role":"user","parts":[{"text":"is the turn over?"}]}]}`); strings.Contains(got, "functionCall") {
		t.Errorf("gemini: a request without tools got the call:\n%s", got)
	}
	if got := post("/v1/responses", `{"tools":[{"type":"function","name":"exec_command"}],"input":[]}`); !strings.Contains(got, `"type":"function_call"`) || !strings.Contains(got, `"arguments":"{\"command\":\"echo hi\"}"`) {
		t.Errorf("openai: no tool call:\n%s", got)
	}
	if got := post("/v1/responses", `{"tools":[{"type":"function","name":"exec_command"}],"input":[{"type":"function_call_output","call_id":"call_1","output":"hi"}]}`); strings.Contains(got, "function_call\"") || !strings.Contains(got, s.Reply) {
		t.Errorf("openai: called the tool again:\n%s", got)
	}
}
