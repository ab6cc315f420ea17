package hooks

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/rpc"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// TestServerHandle: hook serve's methods answer bad requests with the
// JSON-RPC error a client can act on, and an empty setup with [].
func TestServerHandle(t *testing.T) {
	base := t.TempDir()
	layout := plugins.NewLayout(filepath.Join(base, "project"), filepath.Join(base, "home"))
	var warned []string
	r := &Runner{Executor: Executor{ProjectDir: layout.ProjectDir}, Warn: func(m string) { warned = append(warned, m) }}
	s := NewServer(discovery.Options{Layout: layout}, r, DefaultTimeout, false)
	defer s.Close()
	for _, tc := range []struct {
		method, params string
		code           int
	}{
		{"nope", `{}`, rpc.MethodNotFound},
		{"run", `[1]`, rpc.InvalidParams},
		{"run", `{"event":"no_such_event"}`, rpc.InvalidParams},
		{"run", `{"event":"turn_end","timeout":"1ns"}`, rpc.InvalidParams},
		{"list", `{"kind":"plugins"}`, rpc.InvalidParams},
	} {
		_, err := s.Handle(t.Context(), tc.method, json.RawMessage(tc.params))
		var re *rpc.Error
		if !errors.As(err, &re) || re.Code != tc.code {
			t.Errorf("%s %s: %v, want code %d", tc.method, tc.params, err, tc.code)
		}
	}
	for _, kind := range []string{"hooks", "skills", "recipes"} {
		res, err := s.Handle(t.Context(), "list", json.RawMessage(`{"kind":"`+kind+`"}`))
		if data, _ := json.Marshal(res); err != nil || string(data) != "[]" {
			t.Errorf("list %s: %s %v", kind, data, err)
		}
	}
	s.runner.Warn("once")
	s.runner.Warn("once")
	if len(warned) != 1 {
		t.Errorf("a warning is said once: %v", warned)
	}
}

// TestNewServerBounds: a server holds at most one MaxServeLine request
// line and MaxServeInFlight requests at once, whatever a client sends.
func TestNewServerBounds(t *testing.T) {
	layout := plugins.NewLayout(t.TempDir(), t.TempDir())
	s := NewServer(discovery.Options{Layout: layout}, &Runner{}, DefaultTimeout, false)
	defer s.Close()
	if s.MaxLine != MaxServeLine || s.MaxInFlight != MaxServeInFlight {
		t.Errorf("bounds %d, %d", s.MaxLine, s.MaxInFlight)
	}
}
