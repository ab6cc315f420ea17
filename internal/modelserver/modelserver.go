// Package modelserver is a scripted model server on 127.0.0.1 for tests
// that drive real agents offline: it answers Anthropic's Messages API,
// Gemini's generateContent and OpenAI's Responses API, streaming, with a
// short text (or, on Anthropic's, a scripted tool call), and keeps every
// request, so a test sees exactly which
// tools, subagents and context an agent offered its model.
package modelserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Server is a running model server.
type Server struct {
	URL string
	// Reply is the text every answer carries.
	Reply string
	// Tool, when set before the agent runs, is a tool call the answer
	// makes instead of Reply (Anthropic's Messages, Gemini's
	// generateContent, OpenAI's Responses), once per conversation: on a
	// request that offers tools and carries no tool result yet. A test
	// sees in the next request what became of the call (a hook's deny,
	// the context a hook added to its result).
	Tool *ToolUse

	srv *http.Server
	mu  sync.Mutex
	log []Request
}

// Request is one request an agent sent.
type Request struct {
	Path string
	Body []byte
}

// Start listens on a free port of 127.0.0.1.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), Reply: "Done."}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go s.srv.Serve(ln)
	return s, nil
}

// ToolUse is a tool call the server makes.
type ToolUse struct {
	Name  string
	Input map[string]any
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Requests returns what was sent so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// All is every request body joined, for a test that looks for a string
// anywhere the agent sent it.
func (s *Server) All() string {
	var b strings.Builder
	for _, r := range s.Requests() {
		b.WriteString(r.Path)
		b.WriteByte('\n')
		b.Write(r.Body)
		b.WriteByte('\n')
	}
	return b.String()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	s.mu.Lock()
	s.log = append(s.log, Request{Path: r.URL.Path, Body: body})
	s.mu.Unlock()
	switch {
	case strings.HasSuffix(r.URL.Path, "/messages"):
		s.anthropic(w, body)
	case strings.Contains(r.URL.Path, ":streamGenerateContent"):
		s.gemini(w, body, true)
	case strings.Contains(r.URL.Path, ":generateContent"):
		s.gemini(w, body, false)
	case strings.Contains(r.URL.Path, ":countTokens"):
		fmt.Fprint(w, `{"totalTokens": 10}`)
	case strings.HasSuffix(r.URL.Path, "/responses"):
		s.openai(w, body)
	case strings.HasSuffix(r.URL.Path, "/models"):
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"data": [], "models": []}`)
	default:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{}`)
	}
}

func sse(w http.ResponseWriter, events ...[2]string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	for _, e := range events {
		if e[0] != "" {
			fmt.Fprintf(w, "event: %s\n", e[0])
		}
		fmt.Fprintf(w, "data: %s\n\n", e[1])
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func (s *Server) anthropic(w http.ResponseWriter, body []byte) {
	var req struct {
		Model  string            `json:"model"`
		Stream bool              `json:"stream"`
		Tools  []json.RawMessage `json:"tools"`
	}
	json.Unmarshal(body, &req)
	msg := map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": req.Model,
		"content": []any{}, "stop_reason": nil, "usage": map[string]int{"input_tokens": 10, "output_tokens": 1}}
	if s.Tool != nil && len(req.Tools) > 0 && !strings.Contains(string(body), `"tool_result"`) {
		s.anthropicTool(w, msg, req.Stream)
		return
	}
	if !req.Stream {
		msg["content"] = []any{map[string]string{"type": "text", "text": s.Reply}}
		msg["stop_reason"] = "end_turn"
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, js(msg))
		return
	}
	sse(w,
		[2]string{"message_start", js(map[string]any{"type": "message_start", "message": msg})},
		[2]string{"content_block_start", js(map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]string{"type": "text", "text": ""}})},
		[2]string{"content_block_delta", js(map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]string{"type": "text_delta", "text": s.Reply}})},
		[2]string{"content_block_stop", js(map[string]any{"type": "content_block_stop", "index": 0})},
		[2]string{"message_delta", js(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 1}})},
		[2]string{"message_stop", js(map[string]any{"type": "message_stop"})},
	)
}

// anthropicTool answers with the scripted tool call.
func (s *Server) anthropicTool(w http.ResponseWriter, msg map[string]any, stream bool) {
	use := map[string]any{"type": "tool_use", "id": "toolu_1", "name": s.Tool.Name, "input": s.Tool.Input}
	if !stream {
		msg["content"] = []any{use}
		msg["stop_reason"] = "tool_use"
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, js(msg))
		return
	}
	sse(w,
		[2]string{"message_start", js(map[string]any{"type": "message_start", "message": msg})},
		[2]string{"content_block_start", js(map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": "toolu_1", "name": s.Tool.Name, "input": map[string]any{}}})},
		[2]string{"content_block_delta", js(map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]string{"type": "input_json_delta", "partial_json": js(s.Tool.Input)}})},
		[2]string{"content_block_stop", js(map[string]any{"type": "content_block_stop", "index": 0})},
		[2]string{"message_delta", js(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "tool_use", "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 1}})},
		[2]string{"message_stop", js(map[string]any{"type": "message_stop"})},
	)
}

func (s *Server) gemini(w http.ResponseWriter, body []byte, stream bool) {
	var req struct {
		Tools []struct {
			FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
		} `json:"tools"`
	}
	json.Unmarshal(body, &req)
	offered := false
	for _, t := range req.Tools {
		offered = offered || len(t.FunctionDeclarations) > 0
	}
	var part any = map[string]string{"text": s.Reply}
	// Gemini CLI asks its model other things on the side (is the turn
	// over, is it looping), with no tools: those get the text.
	if s.Tool != nil && offered && !strings.Contains(string(body), `"functionResponse"`) {
		part = map[string]any{"functionCall": map[string]any{"name": s.Tool.Name, "args": s.Tool.Input}}
	}
	resp := js(map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]int{"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11},
	})
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, resp)
		return
	}
	sse(w, [2]string{"", resp})
}

func (s *Server) openai(w http.ResponseWriter, body []byte) {
	var req struct {
		Tools []json.RawMessage `json:"tools"`
	}
	json.Unmarshal(body, &req)
	if s.Tool != nil && len(req.Tools) > 0 && !strings.Contains(string(body), `"function_call_output"`) {
		s.openaiTool(w)
		return
	}
	item := map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": s.Reply, "annotations": []any{}}}}
	resp := map[string]any{"id": "resp_1", "object": "response", "status": "completed", "output": []any{item},
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 1, "total_tokens": 11,
			"input_tokens_details": map[string]int{"cached_tokens": 0}, "output_tokens_details": map[string]int{"reasoning_tokens": 0}}}
	sse(w,
		[2]string{"response.created", js(map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_1", "status": "in_progress", "output": []any{}}})},
		[2]string{"response.output_item.added", js(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []any{}}})},
		[2]string{"response.output_text.delta", js(map[string]any{"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": s.Reply})},
		[2]string{"response.output_item.done", js(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})},
		[2]string{"response.completed", js(map[string]any{"type": "response.completed", "response": resp})},
	)
}

// openaiTool answers a Responses request with the scripted call, as a
// function call whose arguments are a JSON string.
func (s *Server) openaiTool(w http.ResponseWriter) {
	item := map[string]any{"id": "fc_1", "type": "function_call", "status": "completed", "call_id": "call_1",
		"name": s.Tool.Name, "arguments": js(s.Tool.Input)}
	resp := map[string]any{"id": "resp_1", "object": "response", "status": "completed", "output": []any{item},
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 1, "total_tokens": 11,
			"input_tokens_details": map[string]int{"cached_tokens": 0}, "output_tokens_details": map[string]int{"reasoning_tokens": 0}}}
	sse(w,
		[2]string{"response.created", js(map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_1", "status": "in_progress", "output": []any{}}})},
		[2]string{"response.output_item.added", js(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})},
		[2]string{"response.output_item.done", js(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})},
		[2]string{"response.completed", js(map[string]any{"type": "response.completed", "response": resp})},
	)
}

// ProbeTool is the tool ServeMCP offers; ProbeDescription its
// description, which a test finds in what the agent sent its model.
const (
	ProbeTool        = "probe_tool"
	ProbeDescription = "PROBE-TOOL-DESCRIPTION: answers nothing"
)

// ServeMCP is a minimal MCP server over stdio (newline-delimited JSON-RPC)
// offering one tool, for tests that check an agent started a plugin's
// server and offered its tool to the model. It returns at end of input.
func ServeMCP(in io.Reader, out io.Writer) error {
	dec := json.NewDecoder(in)
	enc := json.NewEncoder(out)
	for {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if err := dec.Decode(&m); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		if len(m.ID) == 0 {
			continue // a notification
		}
		var result any = map[string]any{}
		switch m.Method {
		case "initialize":
			v := m.Params.ProtocolVersion
			if v == "" {
				v = "2024-11-05"
			}
			result = map[string]any{"protocolVersion": v, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]string{"name": "probe", "version": "1.0.0"}}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{"name": ProbeTool, "description": ProbeDescription,
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{}}}}}
		case "tools/call":
			result = map[string]any{"content": []any{map[string]string{"type": "text", "text": "probed"}}}
		}
		if err := enc.Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result}); err != nil {
			return err
		}
	}
}

// ServeLSP is a minimal language server over stdio (Content-Length framed
// JSON-RPC) for tests that check an agent starts a plugin's LSP server:
// it answers initialize with no capabilities and every other request with
// null, and ends at exit or end of input.
func ServeLSP(in io.Reader, out io.Writer) error {
	r := bufio.NewReader(in)
	for {
		n := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return nil
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
				n, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		if n < 0 {
			return fmt.Errorf("a message without Content-Length")
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return nil
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(body, &msg); err != nil {
			return err
		}
		if msg.Method == "exit" {
			return nil
		}
		if len(msg.ID) == 0 {
			continue // a notification
		}
		var result any
		if msg.Method == "initialize" {
			result = map[string]any{"capabilities": map[string]any{"hoverProvider": true}}
		}
		reply, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
		if _, err := fmt.Fprintf(out, "Content-Length: %d\r\n\r\n%s", len(reply), reply); err != nil {
			return err
		}
	}
}
