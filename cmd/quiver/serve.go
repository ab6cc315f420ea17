package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/hooks/rpc"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/timeouts"
)

// Bounds of what hook serve holds at once: one request line (an event
// payload with a large tool output fits; hook run itself takes up to
// maxPayload from a file), and the requests handled concurrently, so its
// memory stays bounded whatever a client sends.
const (
	maxServeLine     = 32 << 20
	maxServeInFlight = 16
)

type hookServeOptions struct {
	Timeout    string
	FailClosed bool
}

func (a *App) newHookServeCmd() *cobra.Command {
	var o hookServeOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Answer events over JSON-RPC on stdin/stdout, for agents that stay running",
		Long: `Serve hook run as a long-lived process: JSON-RPC 2.0, one message per line,
requests on stdin and responses on stdout (nothing else is written there;
warnings go to stderr). An agent pays one process start instead of one per
event.

Methods: run {"event", "payload", "timeout"?, "fail_closed"?} answers
exactly what hook run prints; list {"kind": "hooks"|"skills"|"recipes",
"all"?} answers the --json list; shutdown stops the server once the
requests already read are answered. Requests may be pipelined, and
responses come back as they finish, with the request's id. Every request
sees the current state: installs, removals, edits, trust and enable or
disable made meanwhile take effect at once.

Hooks that answer "EVENT persistent" to "hook" are started once as
"HOOK serve" and kept running: one JSON line in per event, one out (see
docs/hooks.md). They are restarted after a timeout, a crash, a malformed
line or a change to their file. EOF on stdin, shutdown, or SIGTERM ends
the server and every hook process it started.`,
		Example: `  quiver hook serve
  echo '{"jsonrpc":"2.0","id":1,"method":"run","params":{"event":"before_tool_call","payload":{"tool_name":"bash","tool_input":{"command":"ls"}}}}' | quiver hook serve`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runHookServe(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Timeout, "timeout", "", "time limit per hook for requests that give none, a Go `duration`, 1ms to 1h (default $QUIVER_HOOK_TIMEOUT or 30s)")
	f.BoolVar(&o.FailClosed, "fail-closed", false, "a failing blocking hook blocks the event, for requests that do not say (also QUIVER_FAIL_CLOSED=1)")
	return cmd
}

// hookServer is hook serve's state between requests.
type hookServer struct {
	layout plugins.Layout
	opts   discovery.Options
	pool   *hooks.Pool
	// session answers discovery from memory until something changes
	// (SPEC §14: every request sees the current state).
	session *discovery.Session
	// runner is the runtime every door uses, fed by the session and
	// running persistent hooks in the pool.
	runner     *hooks.Runner
	timeout    time.Duration
	failClosed bool
	rpc        *rpc.Server

	warnedMu sync.Mutex
	warned   map[string]bool
}

// newHookServer builds the server's state: a discovery session, a pool
// of persistent hooks, and the Runner every door uses, fed by both.
func (a *App) newHookServer(layout plugins.Layout, timeout time.Duration, failClosed bool) *hookServer {
	s := &hookServer{
		layout: layout, opts: a.discoveryOptions(layout), pool: hooks.NewPool(),
		timeout: timeout, failClosed: failClosed, warned: map[string]bool{},
	}
	s.opts.KeepGoing = true
	s.session = discovery.NewSession(s.opts)
	s.runner = a.runner(layout)
	s.runner.Hooks = s.session.ForEvent
	s.runner.Executor.Pool = s.pool
	s.runner.Warn = func(msg string) {
		// A long-lived server says each warning once, not at every
		// request.
		if !s.repeated(msg) {
			a.warnf("%s", msg)
		}
	}
	return s
}

// close ends the session and every hook process the server started.
func (s *hookServer) close() {
	s.session.Close()
	s.pool.Close()
}

func (a *App) runHookServe(cmd *cobra.Command, o hookServeOptions) error {
	timeout, err := a.hookTimeout(cmd, o.Timeout)
	if err != nil {
		return err
	}
	layout, err := a.layout()
	if err != nil {
		return err
	}
	s := a.newHookServer(layout, timeout, a.failClosed(o.FailClosed))
	defer s.close()
	// A client that goes away makes writing a response fail with EPIPE
	// rather than kill quiver by SIGPIPE before it stops its hooks.
	// Notify, not Ignore: an ignored signal stays ignored in every hook
	// started, and `yes | head -1` in a hook would then never end.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	// When a signal ends the server by force (a request stuck writing to
	// a client that stopped reading), its hooks go first.
	a.lastWords = func(ie interruptedError) int {
		s.pool.Kill()
		return ie.exitCode()
	}
	s.rpc = &rpc.Server{Handler: s.handle, MaxLine: maxServeLine, MaxInFlight: maxServeInFlight}
	err = s.rpc.Serve(cmd.Context(), a.Stdin, a.Stdout)
	if err != nil {
		return fmt.Errorf("hook serve: writing a response: %w", err)
	}
	// SIGTERM, SIGINT, EOF and shutdown all end a server cleanly: the
	// requests in flight were answered and the pool stops every hook.
	return nil
}

func (s *hookServer) handle(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case "run":
		return s.run(ctx, params)
	case "list":
		return s.list(ctx, params)
	case "shutdown":
		s.rpc.Stop()
		return nil, nil
	}
	return nil, rpc.Errorf(rpc.MethodNotFound, "method not found: %q; hook serve has run, list and shutdown", method)
}

type runParams struct {
	Event      string          `json:"event"`
	Payload    json.RawMessage `json:"payload"`
	Timeout    json.RawMessage `json:"timeout"`
	FailClosed *bool           `json:"fail_closed"`
}

// run is hook run's work, through the same Runner.
func (s *hookServer) run(ctx context.Context, raw json.RawMessage) (any, error) {
	var p runParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if err := hooks.CheckEvent(p.Event); err != nil {
		return nil, rpc.Errorf(rpc.InvalidParams, "invalid params: %v", err)
	}
	timeout := s.timeout
	if p.Timeout != nil {
		// A duration string or a number of seconds, bounded like every
		// other timeout.
		d, err := timeouts.Decode(p.Timeout)
		if err != nil {
			return nil, rpc.Errorf(rpc.InvalidParams, "invalid params: timeout %v", err)
		}
		timeout = d
	}
	failClosed := s.failClosed
	if p.FailClosed != nil {
		failClosed = *p.FailClosed
	}
	payload, err := hooks.ParsePayload(p.Event, p.Payload, s.layout.ProjectDir)
	if err != nil {
		return nil, rpc.Errorf(rpc.InvalidParams, "invalid params: %v", err)
	}
	res, err := s.runner.Run(ctx, p.Event, payload, failClosed, timeout)
	if ie := (interruptedError{}); errors.As(err, &ie) {
		return nil, rpc.Errorf(rpc.ServerError, "quiver was %s before every hook had run", ie)
	}
	return res, err
}

type listParams struct {
	Kind string `json:"kind"`
	All  bool   `json:"all"`
}

// list answers the --json listing of one kind.
func (s *hookServer) list(ctx context.Context, raw json.RawMessage) (any, error) {
	var p listParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	switch p.Kind {
	case "hooks":
		hs, err := s.session.Hooks(ctx)
		if err != nil {
			return nil, err
		}
		return hookListJSON(hs, p.All), nil
	case "skills", "recipes":
		find := discovery.Skills
		if p.Kind == "recipes" {
			find = discovery.Recipes
		}
		docs, err := find(s.opts)
		if err != nil {
			return nil, err
		}
		return docListJSON(docs, p.All), nil
	}
	return nil, rpc.Errorf(rpc.InvalidParams, `invalid params: kind %s; want "hooks", "skills" or "recipes"`, strconv.Quote(p.Kind))
}

// decodeParams reads by-name params into v; absent params are {}.
func decodeParams(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if raw[0] != '{' {
		return rpc.Errorf(rpc.InvalidParams, "invalid params: give them by name, as an object")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return rpc.Errorf(rpc.InvalidParams, "invalid params: %v", err)
	}
	return nil
}

// repeated reports a warning given before, so a long-lived server says
// each one once rather than at every request (at most a thousand are
// remembered; after that they repeat).
func (s *hookServer) repeated(msg string) bool {
	s.warnedMu.Lock()
	defer s.warnedMu.Unlock()
	if s.warned[msg] {
		return true
	}
	if len(s.warned) < 1000 {
		s.warned[msg] = true
	}
	return false
}
