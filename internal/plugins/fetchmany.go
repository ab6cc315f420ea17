package plugins

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A command that fetches several plugins (plugin install, add with
// several names, update, outdated, marketplace update) asks the hosts
// concurrently, then puts the plugins in place one at a time, in the
// lock's order, under the scope lock: the network is waited for once,
// not once per plugin, and what is written, and said, stays in order.
// The concurrent part only reads and fills the machine's store (a
// prefetch); everything the user sees change is done after it, as
// before, from the store.

// DefaultJobs is how many fetches a command runs at once unless --jobs or
// QUIVER_JOBS says otherwise. A fetch mostly waits on the host, so more
// than a laptop's cores; few enough that a CI runner's memory (each fetch
// is a git helper holding its pack) and a host's rate limits hold. pnpm's
// network-concurrency defaults to 16, cargo's to its HTTP/2 streams, go's
// module downloads to GOMAXPROCS.
const DefaultJobs = 8

// MaxJobs bounds --jobs and QUIVER_JOBS.
const MaxJobs = 64

// ParseJobs reads a --jobs or QUIVER_JOBS value: a whole number from 1 to
// MaxJobs ("" is 0, the default).
func ParseJobs(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxJobs {
		return 0, fmt.Errorf("%q is not a number of fetches from 1 to %d", s, MaxJobs)
	}
	return n, nil
}

// Fetching is what a command's concurrent fetches are doing: the names of
// those in flight, in the order they started, and how many of all are
// done.
type Fetching struct {
	InFlight    []string
	Done, Total int
}

// each runs do(i) for every label, at most Jobs at once, and returns when
// all have returned; OnFetching hears each change (and a last report
// with nothing in flight). One label, or Jobs 1, runs in this goroutine.
func (in *Installer) each(labels []string, do func(i int)) {
	var mu sync.Mutex
	st := Fetching{Total: len(labels)}
	tell := func(start bool, label string) {
		if in.OnFetching == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if start {
			st.InFlight = append(st.InFlight, label)
		} else {
			if i := slices.Index(st.InFlight, label); i >= 0 {
				st.InFlight = slices.Delete(st.InFlight, i, i+1)
			}
			st.Done++
		}
		in.OnFetching(Fetching{InFlight: slices.Clone(st.InFlight), Done: st.Done, Total: st.Total})
	}
	run := func(i int) {
		tell(true, labels[i])
		do(i)
		tell(false, labels[i])
	}
	Concurrently(in.Jobs, len(labels), run)
}

// Concurrently runs do(i) for each i from 0 to n-1, at most jobs at once
// (DefaultJobs if jobs is 0), and returns when all have returned; n 1,
// or jobs 1, runs in this goroutine.
func Concurrently(jobs, n int, do func(i int)) {
	if jobs <= 0 {
		jobs = DefaultJobs
	}
	if n <= 1 || jobs == 1 {
		for i := range n {
			do(i)
		}
		return
	}
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			do(i)
		}()
	}
	wg.Wait()
}

// prefetcher is a SourceFetcher that can fill the machine's store ahead
// of the fetches (*Fetcher).
type prefetcher interface {
	Prefetch(ctx context.Context, spec Spec)
}

// prefetch puts req's commit into the machine's store ahead of its put,
// if the policy lets its source in (SPEC §17: nothing is downloaded
// before that); ref is what the lock will record. A refusal or a failure
// is the put's to report.
func (in *Installer) prefetch(ctx context.Context, req AddRequest, ref string) {
	pf, ok := in.Fetcher.(prefetcher)
	if !ok || req.Link {
		return
	}
	if _, _, err := in.checkSource(ctx, req, ref); err != nil {
		return
	}
	pf.Prefetch(ctx, req.Spec)
}

// A batch defers the lock file write of several puts to one (flush): the
// lock is written once per command, and a kill before it leaves each
// plugin's journal, which the next command finishes.
type batch struct {
	dirty bool
	// after are what each put does once the lock is written.
	after []func()
}

// flush writes lock if a put of b changed it, then finishes each put.
func (in *Installer) flush(lock *Lock, b *batch) error {
	if b.dirty {
		if err := WriteLock(in.Scope.LockPath(), lock); err != nil {
			return err // the journals let the next command finish
		}
	}
	for _, f := range b.after {
		f()
	}
	b.dirty, b.after = false, nil
	return nil
}
