package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func echo(_ context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case "echo":
		return params, nil
	case "fail":
		return nil, errors.New("it failed")
	case "bad":
		return nil, Errorf(InvalidParams, "bad params")
	case "panic":
		panic("boom")
	case "null":
		return nil, nil
	}
	return nil, Errorf(MethodNotFound, "no %s", method)
}

// serve runs a server over input and returns its output lines.
func serve(t *testing.T, s *Server, input string) []string {
	t.Helper()
	if s.Handler == nil {
		s.Handler = echo
	}
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), strings.NewReader(input), &out) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return at the end of its input")
	}
	var lines []string
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

func TestServeAnswers(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}}`, `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`},
		{`{"jsonrpc":"2.0","id":"x","method":"null"}`, `{"jsonrpc":"2.0","id":"x","result":null}`},
		{`{"jsonrpc":"2.0","id":null,"method":"null"}`, `{"jsonrpc":"2.0","id":null,"result":null}`},
		{`{"jsonrpc":"2.0","id":2,"method":"fail"}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"it failed"}}`},
		{`{"jsonrpc":"2.0","id":3,"method":"bad"}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad params"}}`},
		{`{"jsonrpc":"2.0","id":4,"method":"panic"}`, `{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"internal error: boom"}}`},
		{`{"jsonrpc":"2.0","id":5,"method":"echo","params":3}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"invalid request: \"params\" must be an object or an array"}}`},
		{`{"jsonrpc":"2.0","id":true,"method":"echo"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: id must be a string, a number or null"}}`},
		{`{"jsonrpc":"1.0","id":6,"method":"echo"}`, `{"jsonrpc":"2.0","id":6,"error":{"code":-32600,"message":"invalid request: \"jsonrpc\" must be \"2.0\""}}`},
		{`{"jsonrpc":"2.0","method":"echo"}`, ``}, // a notification
		{`{"jsonrpc":"2.0","method":"panic"}`, ``},
		{`[{"jsonrpc":"2.0","method":"echo"}]`, ``}, // a batch of notifications
		{`[1]`, `[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: not a request object"}}]`},
	} {
		got := strings.Join(serve(t, &Server{}, tc.in+"\n"), "\n")
		if got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// A line over MaxLine is answered with an error, at its newline or at
// the end of the stream, and the lines around it are served.
func TestServeBoundsLines(t *testing.T) {
	long := strings.Repeat("x", 5000)
	in := `{"jsonrpc":"2.0","id":1,"method":"null"}` + "\n" + long + "\n\n\r\n" + `{"jsonrpc":"2.0","id":2,"method":"null"}` + "\r\n" + long
	got := serve(t, &Server{MaxLine: 100}, in)
	want := []string{ // sorted: requests are answered as they finish
		`{"jsonrpc":"2.0","id":1,"result":null}`,
		`{"jsonrpc":"2.0","id":2,"result":null}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: message line exceeds 100 bytes"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: message line exceeds 100 bytes"}}`,
	}
	slices.Sort(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Stop ends Serve once the requests read are answered, even while the
// input stays open.
func TestStop(t *testing.T) {
	s := &Server{}
	s.Handler = func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		if method == "shutdown" {
			s.Stop()
		}
		return "ok", nil
	}
	r, w := io.Pipe()
	defer w.Close()
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), r, &out) }()
	io.WriteString(w, `{"jsonrpc":"2.0","id":1,"method":"shutdown"}`+"\n")
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Stop did not end Serve")
	}
	if got := strings.TrimSpace(out.String()); got != `{"jsonrpc":"2.0","id":1,"result":"ok"}` {
		t.Errorf("answered %s", got)
	}
}

// FuzzServe: whatever bytes arrive, Serve returns at their end, and every
// line it writes is a JSON-RPC response (or a batch of them) with an id.
func FuzzServe(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":[1,2]}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"echo"},{"jsonrpc":"2.0","method":"x"}]`,
		`{"jsonrpc":"2.0","id":"\u0000","method":"panic"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1e400,\"method\":\"echo\"}\n\n[]\n[[]]\n{}",
		`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":"` + strings.Repeat("y", 300) + `"}}`,
		"\xff\xfe{\"id\":-0}",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var out bytes.Buffer
		s := &Server{Handler: echo, MaxLine: 256, MaxInFlight: 2}
		done := make(chan error, 1)
		go func() { done <- s.Serve(context.Background(), strings.NewReader(in), &out) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Serve hung on %q", in)
		}
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if line == "" {
				continue
			}
			var one map[string]json.RawMessage
			var batch []map[string]json.RawMessage
			switch {
			case json.Unmarshal([]byte(line), &one) == nil:
				batch = append(batch, one)
			case json.Unmarshal([]byte(line), &batch) == nil && len(batch) > 0:
			default:
				t.Fatalf("wrote %q, not a response", line)
			}
			for _, r := range batch {
				_, hasResult := r["result"]
				_, hasError := r["error"]
				if string(r["jsonrpc"]) != `"2.0"` || r["id"] == nil || hasResult == hasError {
					t.Fatalf("wrote %q, not a response", line)
				}
			}
		}
	})
}

// A batch's requests run one after another: a batch of thousands must not
// become thousands of hook runs at once.
func TestBatchRunsInTurn(t *testing.T) {
	var mu sync.Mutex
	running, most := 0, 0
	s := &Server{Handler: func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		time.Sleep(time.Millisecond)
		mu.Lock()
		running--
		mu.Unlock()
		return nil, nil
	}}
	batch := "[" + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"x"},`, 50) + `{"jsonrpc":"2.0","id":2,"method":"x"}]` + "\n"
	out := serve(t, s, batch)
	var got []map[string]any
	if len(out) != 1 || json.Unmarshal([]byte(out[0]), &got) != nil || len(got) != 51 {
		t.Fatalf("answered %v", out)
	}
	if most != 1 {
		t.Errorf("%d requests of one batch ran at once", most)
	}
}
