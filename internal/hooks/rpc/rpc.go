// Package rpc is the JSON-RPC 2.0 server side of `quiver hook serve`
// (SPEC §14): one message per line in, one per line out, requests handled
// concurrently and answered as they finish.
//
// It is a small codec of our own rather than a library: the ones in use
// (sourcegraph/jsonrpc2, creachadair/jrpc2, x/exp/jsonrpc2) frame with
// headers or stream decoders that cannot bound a line before reading it,
// and what serve needs beyond that (a size limit per request, an error
// response for a bad line rather than a dropped connection, backpressure)
// is most of the code either way.
package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// JSON-RPC 2.0 error codes.
const (
	ParseError     = -32700
	InvalidRequest = -32600
	MethodNotFound = -32601
	InvalidParams  = -32602
	InternalError  = -32603
	// ServerError is quiver's own failure to answer (-32000 to -32099 are
	// the server's to define).
	ServerError = -32000
)

// Error is a JSON-RPC error object; handlers return it to choose the code.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Message }

// Errorf builds an *Error.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Handler answers one request. A nil error with a nil result answers
// null. An error that is not an *Error is a ServerError with its text.
type Handler func(ctx context.Context, method string, params json.RawMessage) (any, error)

// Server reads requests from a stream and writes responses to another.
type Server struct {
	Handler Handler
	// MaxLine bounds one message line; a longer one is discarded up to
	// its end and answered with an error.
	MaxLine int
	// MaxInFlight bounds the requests handled at once; reading waits
	// while that many are running, so memory stays bounded.
	MaxInFlight int

	stopOnce sync.Once
	stop     chan struct{}
	wmu      sync.Mutex
	w        io.Writer
	werr     error
}

// Stop makes Serve return once the requests already read are answered:
// the shutdown method. Safe to call from a handler.
func (s *Server) Stop() {
	s.init()
	s.stopOnce.Do(func() { close(s.stop) })
}

func (s *Server) init() {
	s.wmu.Lock()
	if s.stop == nil {
		s.stop = make(chan struct{})
	}
	s.wmu.Unlock()
}

// message is one request as it arrives.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	// ID is absent (nil) for a notification; "null" is a request whose
	// id is null.
	ID json.RawMessage `json:"id"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// MarshalJSON writes result null explicitly for a success with no value.
func (r response) MarshalJSON() ([]byte, error) {
	type plain response
	if r.Error == nil {
		result, err := json.Marshal(r.Result)
		if err != nil {
			return nil, err
		}
		return json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
		}{r.JSONRPC, r.ID, result})
	}
	return json.Marshal(plain(r))
}

var null = json.RawMessage("null")

// Request is one decoded call, or the error response it gets instead.
type Request struct {
	Method string
	Params json.RawMessage
	// ID is nil for a notification.
	ID json.RawMessage
	// Err, when set, is answered without calling the handler.
	Err *Error
}

// Decode reads one line: a request, or a batch (a JSON array) of them.
// What cannot be a request comes back as a Request with Err set (and the
// id, when one could be read). It never fails: every line gets an answer.
func Decode(line []byte) (reqs []Request, batch bool) {
	line = bytes.TrimSpace(line)
	if len(line) > 0 && line[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(line, &items); err != nil {
			return []Request{{ID: null, Err: Errorf(ParseError, "parse error: %v", err)}}, false
		}
		if len(items) == 0 {
			return []Request{{ID: null, Err: Errorf(InvalidRequest, "invalid request: empty batch")}}, false
		}
		reqs = make([]Request, len(items))
		for i, it := range items {
			reqs[i] = decodeOne(it)
		}
		return reqs, true
	}
	if !json.Valid(line) {
		var v any
		err := json.Unmarshal(line, &v)
		return []Request{{ID: null, Err: Errorf(ParseError, "parse error: %v", err)}}, false
	}
	return []Request{decodeOne(line)}, false
}

func decodeOne(raw json.RawMessage) Request {
	var m message
	if err := json.Unmarshal(raw, &m); err != nil {
		return Request{ID: null, Err: Errorf(InvalidRequest, "invalid request: not a request object")}
	}
	id := m.ID
	if id != nil && !validID(id) {
		return Request{ID: null, Err: Errorf(InvalidRequest, "invalid request: id must be a string, a number or null")}
	}
	reply := id
	if reply == nil {
		reply = null
	}
	switch {
	case m.JSONRPC != "2.0":
		return Request{ID: reply, Err: Errorf(InvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)}
	case m.Method == nil || *m.Method == "":
		return Request{ID: reply, Err: Errorf(InvalidRequest, `invalid request: "method" must be a non-empty string`)}
	case m.Params != nil && !bytes.Equal(m.Params, null) && m.Params[0] != '{' && m.Params[0] != '[':
		return Request{ID: reply, Err: Errorf(InvalidRequest, `invalid request: "params" must be an object or an array`)}
	}
	return Request{Method: *m.Method, Params: m.Params, ID: id}
}

func validID(id json.RawMessage) bool {
	switch id[0] {
	case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// ErrLineTooLong reports a message line over MaxLine.
var ErrLineTooLong = errors.New("message line too long")

// Serve answers requests from r on w until r ends, Stop is called or ctx
// is done; then it waits for the requests in flight (whose context is ctx)
// and returns. It returns an error only when writing fails.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	s.init()
	s.w = w
	maxLine := s.MaxLine
	if maxLine <= 0 {
		maxLine = 1 << 20
	}
	slots := make(chan struct{}, max(1, s.MaxInFlight))
	// Leader and follower: the goroutine that read a request starts a
	// fresh one to read the next line, and answers the request itself, so
	// no hand-off between goroutines lies on a request's path (each costs
	// a thread wake-up, tens of microseconds on a busy 2-core machine).
	// Once Serve is ending no request starts (ending, under mu, orders
	// wg.Add before wg.Wait). Reading stays sequential: one reader at a
	// time, each started by the last.
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		ending bool
	)
	begin := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if !ending {
			wg.Add(1)
		}
		return !ending
	}
	readerDone := make(chan struct{})
	br := bufio.NewReaderSize(r, 64<<10)
	var read func()
	read = func() {
		for {
			line, err := readLine(br, maxLine)
			switch {
			case errors.Is(err, ErrLineTooLong):
				s.write(response{JSONRPC: "2.0", ID: null, Error: Errorf(InvalidRequest, "invalid request: message line exceeds %d bytes", maxLine)})
				continue
			case len(line) == 0 && err == nil:
				continue // a blank line is no message
			case len(line) == 0:
				close(readerDone) // EOF (or a failed read): done
				return
			}
			reqs, batch := Decode(line)
			select {
			case slots <- struct{}{}:
			case <-s.stop:
				close(readerDone)
				return
			case <-ctx.Done():
				close(readerDone)
				return
			}
			if !begin() {
				<-slots
				close(readerDone)
				return
			}
			if err != nil {
				close(readerDone) // the last line had no newline before EOF
			} else {
				go read()
			}
			s.answer(ctx, reqs, batch)
			<-slots
			wg.Done()
			return
		}
	}
	go read()
	select {
	case <-readerDone:
	case <-s.stop:
	case <-ctx.Done():
	}
	mu.Lock()
	ending = true
	mu.Unlock()
	wg.Wait()
	return s.writeErr()
}

// answer handles one line's requests and writes the responses: one
// object, or one array for a batch. A batch's requests run one after
// another within the line's slot, so a batch of thousands costs what one
// request costs at a time, not thousands of processes at once (MaxInFlight
// bounds lines; clients wanting concurrency pipeline lines).
func (s *Server) answer(ctx context.Context, reqs []Request, batch bool) {
	out := make([]*response, len(reqs))
	for i, req := range reqs {
		out[i] = s.call(ctx, req)
	}
	var list []*response
	for _, r := range out {
		if r != nil {
			list = append(list, r)
		}
	}
	switch {
	case len(list) == 0: // notifications only
	case batch:
		s.write(list)
	default:
		s.write(list[0])
	}
}

// call runs the handler for one request; nil for a notification.
func (s *Server) call(ctx context.Context, req Request) (resp *response) {
	if req.Err != nil {
		return &response{JSONRPC: "2.0", ID: req.ID, Error: req.Err}
	}
	defer func() {
		if v := recover(); v != nil {
			resp = &response{JSONRPC: "2.0", ID: req.ID, Error: Errorf(InternalError, "internal error: %v", v)}
			if req.ID == nil {
				resp = nil
			}
		}
	}()
	result, err := s.Handler(ctx, req.Method, req.Params)
	if req.ID == nil {
		return nil
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{Code: ServerError, Message: err.Error()}
		}
		return &response{JSONRPC: "2.0", ID: req.ID, Error: e}
	}
	return &response{JSONRPC: "2.0", ID: req.ID, Result: result}
}

// write sends one message line; the first failure is kept and ends Serve.
func (s *Server) write(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		data, _ = json.Marshal(response{JSONRPC: "2.0", ID: null, Error: Errorf(InternalError, "internal error: %v", err)})
	}
	data = append(data, '\n')
	s.wmu.Lock()
	failed := false
	if s.werr == nil {
		_, s.werr = s.w.Write(data)
		failed = s.werr != nil
	}
	s.wmu.Unlock()
	if failed {
		s.Stop() // nobody reads the answers: stop reading requests
	}
}

func (s *Server) writeErr() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.werr
}

// readLine reads one line without its newline. A line over max is read
// to its end (or the stream's) and dropped with ErrLineTooLong, so
// memory stays bounded whatever arrives.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !over {
			if len(line)+len(chunk) > max+1 { // +1: the newline
				over, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case over:
			return nil, ErrLineTooLong // the next read sees the stream's end, if it came
		case err != nil:
			return line, err
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}
