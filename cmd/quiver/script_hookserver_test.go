package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdHookServer is `hookserver LOG FILE...`: it starts a server for http
// handlers on 127.0.0.1, for the rest of the script, and writes @HOOKURL@
// in each FILE as its URL. Each request is one line of LOG: its method,
// path, the event it posts, and its Authorization and X-Leak headers.
// /check denies a Bash command with "--force" in it and allows others
// with {}; /down answers 500.
func cmdHookServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: hookserver LOG FILE...")
	}
	log := ts.MkAbs(args[0])
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Event string `json:"hook_event_name"`
			Input struct {
				Command string `json:"command"`
			} `json:"tool_input"`
		}
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &in)
		mu.Lock()
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s %s %s type=%s auth=%q leak=%q\n", r.Method, r.URL.Path, in.Event, r.Header.Get("Content-Type"), r.Header.Get("Authorization"), r.Header.Get("X-Leak"))
			f.Close()
		}
		mu.Unlock()
		switch {
		case r.URL.Path == "/down":
			w.WriteHeader(http.StatusInternalServerError)
		case strings.Contains(in.Input.Command, "--force"):
			io.WriteString(w, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no force-push"}}`)
		default:
			io.WriteString(w, "{}")
		}
	}))
	ts.Defer(srv.Close)
	for _, file := range args[1:] {
		data, err := os.ReadFile(ts.MkAbs(file))
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(file), []byte(strings.ReplaceAll(string(data), "@HOOKURL@", srv.URL)), 0o644))
	}
}
