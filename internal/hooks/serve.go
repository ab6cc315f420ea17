package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/rpc"
	"github.com/quiver-cli/quiver/internal/proc"
	"github.com/quiver-cli/quiver/internal/timeouts"
)

// Bounds of what hook serve holds at once, NewServer's: one request line
// (an event payload with a large tool output fits; hook run itself takes
// up to MaxPayload from a file), and the requests handled concurrently,
// so its memory stays bounded whatever a client sends.
const (
	MaxServeLine     = 32 << 20
	MaxServeInFlight = 16
)

// Server is hook serve (SPEC §14): its methods run, list and shutdown
// over JSON-RPC, and its state between requests. run is hook run's work
// through the same Runner, fed by a discovery Session and running
// persistent hooks in a Pool.
type Server struct {
	// MaxLine bounds one request line and MaxInFlight the requests
	// handled at once (rpc.Server's), so memory stays bounded whatever a
	// client sends.
	MaxLine, MaxInFlight int

	opts discovery.Options
	pool *Pool
	// session answers discovery from memory until something changes
	// (SPEC §14: every request sees the current state).
	session *discovery.Session
	// runner is the runtime every door uses, fed by the session and
	// running persistent hooks in the pool.
	runner     *Runner
	timeout    time.Duration
	failClosed bool
	rpc        *rpc.Server

	warnedMu sync.Mutex
	warned   map[string]bool
}

// NewServer builds the server's state: a discovery session over o, a
// pool of persistent hooks, and r (the Runner every door uses) fed by
// both. timeout and failClosed hold for requests that do not say. r's
// Warn hears each warning once, not at every request. Its bounds are
// MaxServeLine and MaxServeInFlight.
func NewServer(o discovery.Options, r *Runner, timeout time.Duration, failClosed bool) *Server {
	s := &Server{MaxLine: MaxServeLine, MaxInFlight: MaxServeInFlight,
		opts: o, pool: NewPool(), timeout: timeout, failClosed: failClosed, warned: map[string]bool{}}
	s.opts.KeepGoing = true
	s.session = discovery.NewSession(s.opts)
	s.runner = r
	s.runner.Hooks = s.session.ForEvent
	s.runner.Executor.Pool = s.pool
	warn := r.Warn
	s.runner.Warn = func(msg string) {
		// A long-lived server says each warning once, not at every
		// request.
		if !s.repeated(msg) && warn != nil {
			warn(msg)
		}
	}
	return s
}

// Close ends the session and every hook process the server started.
func (s *Server) Close() {
	s.session.Close()
	s.pool.Close()
}

// Kill kills the hook processes the server started at once, for a
// signal that ends the server by force.
func (s *Server) Kill() { s.pool.Kill() }

// Serve answers the requests read from in on out until EOF, shutdown or
// ctx's end; the requests in flight are answered first. Its error is a
// response that could not be written.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	s.rpc = &rpc.Server{Handler: s.Handle, MaxLine: s.MaxLine, MaxInFlight: s.MaxInFlight}
	return s.rpc.Serve(ctx, in, out)
}

// Handle answers one request: the rpc.Handler of Serve.
func (s *Server) Handle(ctx context.Context, method string, params json.RawMessage) (any, error) {
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
func (s *Server) run(ctx context.Context, raw json.RawMessage) (any, error) {
	var p runParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if err := CheckEvent(p.Event); err != nil {
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
	payload, err := ParsePayload(p.Event, p.Payload, s.opts.Layout.ProjectDir)
	if err != nil {
		return nil, rpc.Errorf(rpc.InvalidParams, "invalid params: %v", err)
	}
	res, err := s.runner.Run(ctx, p.Event, payload, failClosed, timeout)
	// A signal that ended the run early: the client hears "quiver was
	// interrupted (SIGTERM) before ...", not the bare error.
	if ie := (proc.Interrupted{}); errors.As(err, &ie) {
		return nil, rpc.Errorf(rpc.ServerError, "quiver was %s before every hook had run", ie.Error())
	}
	return res, err
}

type listParams struct {
	Kind string `json:"kind"`
	All  bool   `json:"all"`
}

// list answers the --json listing of one kind.
func (s *Server) list(ctx context.Context, raw json.RawMessage) (any, error) {
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
		return discovery.HookEntries(hs, p.All), nil
	case "skills", "recipes":
		find := discovery.Skills
		if p.Kind == "recipes" {
			find = discovery.Recipes
		}
		docs, err := find(s.opts)
		if err != nil {
			return nil, err
		}
		return discovery.DocEntries(docs, p.All), nil
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
func (s *Server) repeated(msg string) bool {
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
