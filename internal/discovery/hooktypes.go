package discovery

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
	"github.com/quiver-cli/quiver/internal/timeouts"

	"github.com/quiver-cli/quiver/internal/proc"
)

// DefaultQueryTimeout bounds the `<hook> hook` question.
const DefaultQueryTimeout = 5 * time.Second

// QueryTimeout is how long a hook may take to answer `hook` (its event):
// QUIVER_QUERY_TIMEOUT, a Go duration from 1ms to 1h, else
// DefaultQueryTimeout. A slow interpreter (a pyenv shim on a busy
// machine) may need more; tests of hooks that never answer need less. A
// bad value gives DefaultQueryTimeout and the error that says so.
func QueryTimeout(getenv func(string) string) (time.Duration, error) {
	v := getenv("QUIVER_QUERY_TIMEOUT")
	if v == "" {
		return DefaultQueryTimeout, nil
	}
	d, err := timeouts.Parse(v)
	if err != nil {
		return DefaultQueryTimeout, fmt.Errorf("QUIVER_QUERY_TIMEOUT %v; using %s", err, DefaultQueryTimeout)
	}
	return d, nil
}

// OptionsFor wires discovery of layout to the environment: hooks are
// asked their event in the environment every hook gets (proc.Environ),
// with QUIVER_PROJECT_DIR, within QueryTimeout (whose error it passes
// on); QUIVER_TRUST_ALL=1 trusts all.
func OptionsFor(layout plugins.Layout, getenv func(string) string) (Options, error) {
	timeout, err := QueryTimeout(getenv)
	return Options{
		Layout:       layout,
		Env:          []string{"QUIVER_PROJECT_DIR=" + layout.ProjectDir},
		TrustAll:     getenv("QUIVER_TRUST_ALL") == "1",
		QueryTimeout: timeout,
	}, err
}

const typeCacheFile = "hook-types"

// docCacheFile holds parsed skill and recipe frontmatter for listings.
const docCacheFile = "docs"

// hookType is what the type cache keeps per hook: its answer to `hook`,
// or why it gave none and when it was asked.
type hookType struct {
	Declared
	Error string
	// Asked is when a failed question was asked (Unix seconds).
	Asked int64
}

// RetryFailedAfter is how long a hook whose `hook` question failed (timed
// out, crashed, answered nothing usable) is left alone before it is asked
// again: only real answers are kept for good, so a slow first start never
// switches a guard off for good, and a broken hook costs at most one
// question a minute (SPEC §8).
const RetryFailedAfter = time.Minute

// retry reports whether a cached failure is old enough to ask again.
func (h hookType) retry(now time.Time) bool {
	return h.Error != "" && now.Unix()-h.Asked >= int64(RetryFailedAfter/time.Second)
}

// retryAt is when a cached failure is asked again.
func (h hookType) retryAt() time.Time {
	return time.Unix(h.Asked+int64(RetryFailedAfter/time.Second), 0)
}

// typeQuery is one hook whose event must be learned.
type typeQuery struct {
	hook  *Hook
	info  os.FileInfo
	cache *fileCache[hookType]
}

// askTypes asks each hook `hook` in dir, at most NumCPU at a time, and
// records the answers in the caches.
func askTypes(ctx context.Context, qs []typeQuery, dir string, env []string, timeout time.Duration, now func() time.Time) {
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
				d, err := AskType(ctx, q.hook.Path, dir, env, timeout)
				e := hookType{Declared: d}
				if err != nil {
					e.Error, e.Asked = err.Error(), now().Unix()
				}
				if ctx.Err() != nil {
					// Interrupted: the question was never really
					// answered, so nothing is learned.
					e = hookType{Error: "not asked: " + context.Cause(ctx).Error()}
				} else {
					mu.Lock()
					q.cache.store(q.hook.Path, q.info, e)
					mu.Unlock()
				}
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

// Declared is a hook's answer to `hook`: its event, and whether it asks
// to be kept running by `hook serve` (SPEC §14).
type Declared struct {
	Event      string
	Persistent bool
}

// String is the answer as the hook gave it (without unknown words).
func (d Declared) String() string {
	if d.Persistent {
		return d.Event + " " + wordPersistent
	}
	return d.Event
}

// wordPersistent, after the event, asks for a long-lived `<hook> serve`.
const wordPersistent = "persistent"

// parseDeclared reads the first line of a `hook` answer: an event,
// optionally followed by words; "persistent" is the one quiver knows,
// others are ignored so that later protocol words do not break older
// quivers.
func parseDeclared(answer string) (Declared, bool) {
	f := strings.Fields(answer)
	if len(f) == 0 || !format.ValidEvent(f[0]) {
		return Declared{}, false
	}
	return Declared{Event: f[0], Persistent: slices.Contains(f[1:], wordPersistent)}, true
}

// AskType runs `<path> hook` in dir (the project directory, where hooks
// also run) and returns what it declares, or why it is not a valid hook.
// It executes the file: never call it on an untrusted project hook.
func AskType(ctx context.Context, path, dir string, env []string, timeout time.Duration) (Declared, error) {
	r := proc.Run(ctx, proc.Spec{
		Path: path, Args: []string{"hook"}, Dir: dir, Env: env,
		Timeout: timeout, MaxStdout: 4096, MaxStderr: 4096,
	})
	switch {
	case r.StartErr != nil:
		return Declared{}, fmt.Errorf("cannot run it: %v (is there a #! line?)", unwrapExec(r.StartErr))
	case r.TimedOut:
		return Declared{}, fmt.Errorf("did not answer `hook` within %s", timeout)
	case r.ExitCode != 0:
		msg := fmt.Sprintf("`hook` exited with status %d", r.ExitCode)
		if r.ExitCode < 0 {
			msg = "`hook` was killed"
		}
		if s := firstLine(r.Stderr); s != "" {
			msg += ": " + s
		}
		return Declared{}, fmt.Errorf("%s", msg)
	}
	answer, _, _ := strings.Cut(strings.TrimSpace(string(r.Stdout)), "\n")
	d, ok := parseDeclared(answer)
	if !ok {
		if len(answer) > 60 {
			answer = answer[:60] + "..."
		}
		if answer == "" {
			return Declared{}, errors.New("answered nothing to `hook`; it should print the event it handles")
		}
		first, _, _ := strings.Cut(answer, " ")
		return Declared{}, fmt.Errorf("answered %q to `hook`: %s", answer, format.UnknownEvent(first))
	}
	return d, nil
}

// applyType sets a hook's event, or marks it invalid.
func applyType(h *Hook, e hookType) {
	if e.Error != "" {
		h.Status, h.Reason = Invalid, e.Error
		return
	}
	h.Event, h.Persistent = e.Event, e.Persistent
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
