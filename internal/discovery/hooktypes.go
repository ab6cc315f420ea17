package discovery

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/proc"
)

// The five lifecycle events a hook can handle (SPEC §8).
const (
	BeforeToolCall  = "before_tool_call"
	AfterToolCall   = "after_tool_call"
	UserMessageSend = "user_message_send"
	AgentStop       = "agent_stop"
	TurnEnd         = "turn_end"
)

// Events lists the events in the order the docs present them.
var Events = []string{BeforeToolCall, AfterToolCall, UserMessageSend, AgentStop, TurnEnd}

// ValidEvent reports whether s is one of the five events.
func ValidEvent(s string) bool {
	for _, e := range Events {
		if s == e {
			return true
		}
	}
	return false
}

// DefaultQueryTimeout bounds the `<hook> hook` question.
const DefaultQueryTimeout = 5 * time.Second

const typeCacheFile = "hook-types.json"

// typeCache remembers each hook's answer to `hook`, keyed by absolute path
// and validated by size, mtime and mode, so an unchanged hook is never
// asked twice. One file per scope, under the disposable cache/ folder.
type typeCache struct {
	Version int                   `json:"version"`
	Hooks   map[string]cachedType `json:"hooks"`

	path  string
	seen  map[string]bool
	dirty bool
}

type cachedType struct {
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime_ns"`
	Mode  uint32 `json:"mode"`
	Event string `json:"event,omitempty"`
	Error string `json:"error,omitempty"`
}

// loadTypeCache reads a scope's cache; a missing or corrupt one is empty.
func loadTypeCache(s plugins.Scope) *typeCache {
	c := &typeCache{path: filepath.Join(s.CacheDir(), typeCacheFile), seen: map[string]bool{}}
	if data, err := os.ReadFile(c.path); err == nil {
		if json.Unmarshal(data, c) != nil || c.Version != 1 {
			*c = typeCache{path: c.path, seen: c.seen, dirty: true}
		}
	}
	if c.Hooks == nil {
		c.Hooks = map[string]cachedType{}
	}
	c.Version = 1
	return c
}

// lookup returns the cached answer when the file is unchanged.
func (c *typeCache) lookup(path string, fi os.FileInfo) (cachedType, bool) {
	c.seen[path] = true
	e, ok := c.Hooks[path]
	if !ok || e.Size != fi.Size() || e.Mtime != fi.ModTime().UnixNano() || e.Mode != uint32(fi.Mode()) {
		return cachedType{}, false
	}
	return e, true
}

func (c *typeCache) store(path string, e cachedType) {
	c.Hooks[path] = e
	c.seen[path] = true
	c.dirty = true
}

// save writes the cache when something changed, dropping hooks that are
// gone. Failing to write a cache is not an error: it is only a cache.
func (c *typeCache) save() {
	for p := range c.Hooks {
		if !c.seen[p] {
			delete(c.Hooks, p)
			c.dirty = true
		}
	}
	if !c.dirty {
		return
	}
	data, err := json.Marshal(c)
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(c.path), 0o755) == nil {
		plugins.WriteFileAtomic(c.path, data, 0o644)
	}
}

// typeQuery is one hook whose event must be learned.
type typeQuery struct {
	hook  *Hook
	info  os.FileInfo
	cache *typeCache
}

// askTypes asks each hook `hook` in dir, at most NumCPU at a time, and
// records the answers in the caches.
func askTypes(ctx context.Context, qs []typeQuery, dir string, env []string, timeout time.Duration) {
	if len(qs) == 0 {
		return
	}
	workers := min(runtime.NumCPU(), len(qs))
	work := make(chan int)
	var mu sync.Mutex // guards the caches
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				q := qs[i]
				event, err := AskType(ctx, q.hook.Path, dir, env, timeout)
				e := cachedType{Size: q.info.Size(), Mtime: q.info.ModTime().UnixNano(), Mode: uint32(q.info.Mode()), Event: event}
				if err != nil {
					e.Error = err.Error()
				}
				mu.Lock()
				q.cache.store(q.hook.Path, e)
				mu.Unlock()
				applyType(q.hook, e)
			}
		}()
	}
	for i := range qs {
		work <- i
	}
	close(work)
	wg.Wait()
}

// AskType runs `<path> hook` in dir (the project directory, where hooks
// also run) and returns the event it names, or why it is not a valid hook. It executes the file: never call it on an untrusted
// project hook.
func AskType(ctx context.Context, path, dir string, env []string, timeout time.Duration) (string, error) {
	r := proc.Run(ctx, proc.Spec{
		Path: path, Args: []string{"hook"}, Dir: dir, Env: env,
		Timeout: timeout, MaxStdout: 4096, MaxStderr: 4096,
	})
	switch {
	case r.StartErr != nil:
		return "", fmt.Errorf("cannot run it: %v (is there a #! line?)", unwrapExec(r.StartErr))
	case r.TimedOut:
		return "", fmt.Errorf("did not answer `hook` within %s", timeout)
	case r.ExitCode != 0:
		msg := fmt.Sprintf("`hook` exited with status %d", r.ExitCode)
		if r.ExitCode < 0 {
			msg = "`hook` was killed"
		}
		if s := firstLine(r.Stderr); s != "" {
			msg += ": " + s
		}
		return "", fmt.Errorf("%s", msg)
	}
	answer := strings.TrimSpace(string(r.Stdout))
	if !ValidEvent(answer) {
		if len(answer) > 60 {
			answer = answer[:60] + "..."
		}
		return "", fmt.Errorf("answered %q to `hook`; want one of %s", answer, strings.Join(Events, ", "))
	}
	return answer, nil
}

// applyType sets a hook's event, or marks it invalid.
func applyType(h *Hook, e cachedType) {
	if e.Error != "" {
		h.Status, h.Reason = Invalid, e.Error
		return
	}
	h.Event = e.Event
}

func unwrapExec(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// firstLine returns the first non-empty line, trimmed and bounded, with
// control characters made visible.
func firstLine(b []byte) string {
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 200 {
				l = l[:200] + "..."
			}
			q := fmt.Sprintf("%q", l)
			return q[1 : len(q)-1]
		}
	}
	return ""
}
