package discovery

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/marketplace"
	"github.com/quiver-cli/quiver/internal/plugins/policy"
)

// Env is what one quiver command works in: its scopes, the environment
// variables it reads and how it speaks to the person. From it, every
// command builds each room's working objects (the fetcher, the
// installer, the policy, the marketplaces, its own changes) one way.
type Env struct {
	Layout plugins.Layout
	Getenv func(string) string
	// Warn hears what the person should know: a bad setting, a leftover
	// repaired, what a content scan found, what trust renewal did.
	Warn func(msg string)
	// Waiting hears that the command waits for another quiver command;
	// unlike Warn, --quiet does not silence it: a pause must not look
	// like a hang.
	Waiting func(msg string)
	// Progress receives git's progress (a terminal), or nil.
	Progress io.Writer
	// Jobs bounds the fetches a command runs at once (--jobs,
	// QUIVER_JOBS; 0 is plugins.DefaultJobs).
	Jobs int
	// Fetching hears what concurrent fetches are doing (a terminal's
	// status line), or nil.
	Fetching func(plugins.Fetching)

	fetcher *plugins.Fetcher
	policy  *policy.Policy
	// checkouts caches checkout's answers (installs run in parallel).
	checkouts struct {
		sync.Mutex
		dirs map[string]string
	}
}

func (e *Env) warn(format string, a ...any) {
	if e.Warn != nil {
		e.Warn(fmt.Sprintf(format, a...))
	}
}

// Wait says that the command waits for another quiver command.
func (e *Env) Wait(format string, a ...any) {
	if e.Waiting != nil {
		e.Waiting(fmt.Sprintf(format, a...))
	}
}

// Options is how discovery reads the scopes (OptionsFor), warning of a
// bad QUIVER_QUERY_TIMEOUT.
func (e *Env) Options() Options {
	o, err := OptionsFor(e.Layout, e.Getenv)
	if err != nil {
		e.warn("quiver: %v", err)
	}
	return o
}

// QueryTimeout is QueryTimeout, warning of a bad value.
func (e *Env) QueryTimeout() time.Duration {
	d, err := QueryTimeout(e.Getenv)
	if err != nil {
		e.warn("quiver: %v", err)
	}
	return d
}

// Fetcher is the command's one fetcher (plugins.NewFetcher), shared by
// its installs and its policy, so that git's configuration is read, and
// a source's rewrite asked of quiver-git, once.
func (e *Env) Fetcher() *plugins.Fetcher {
	if e.fetcher == nil {
		f := plugins.NewFetcher(e.Getenv)
		f.OnConfigError = func(err error) { e.warn("quiver: %v; fetching without its url.insteadOf rewrites", err) }
		f.Progress = e.Progress
		f.Checkout = e.checkout
		f.Store = e.Layout.Global.Store
		f.Jobs = e.Jobs
		e.fetcher = f
	}
	return e.fetcher
}

// checkout is the command's Fetcher.Checkout: a marketplace checkout of
// either scope verified once per command (hashing it reads every file).
func (e *Env) checkout(source, commit string) string {
	e.checkouts.Lock()
	defer e.checkouts.Unlock()
	key := source + "\x00" + commit
	if dir, ok := e.checkouts.dirs[key]; ok {
		return dir
	}
	dir := plugins.VerifiedCheckout(e.Layout.Scopes(), source, commit)
	if e.checkouts.dirs == nil {
		e.checkouts.dirs = map[string]string{}
	}
	e.checkouts.dirs[key] = dir
	return dir
}

// Policy is the team's policy (SPEC §17), read once; what its files say
// that quiver ignores is said once. Each command takes the view of the
// scope it acts on (Policy.Scope).
func (e *Env) Policy() *policy.Policy {
	if e.policy == nil {
		e.policy = policy.Load(e.Layout, e.Getenv, e.Fetcher().Rewrite)
		for _, w := range e.policy.Warnings() {
			e.warn("quiver: warning: policy %s", w)
		}
	}
	return e.policy
}

// Installer changes the chosen scope, through the command's fetcher and
// under its policy.
func (e *Env) Installer(global bool) *plugins.Installer {
	in := plugins.NewInstaller(e.Layout, global)
	in.OnWait = func() {
		e.Wait("quiver: waiting for another quiver command to finish in %s (up to %s)...", in.Scope.Root, plugins.DefaultMutexWait)
	}
	in.OnRecover = func(msg string) { e.warn("quiver: %s", msg) }
	in.OnScan = func(r plugins.ScanReport) {
		for _, line := range r.Lines() {
			e.warn("%s", line)
		}
	}
	in.Fetcher, in.GitBase = e.Fetcher(), e.Getenv("QUIVER_GIT_BASE")
	in.Jobs, in.OnFetching = e.Jobs, e.Fetching
	in.Policy = e.Policy().Scope(global)
	return in
}

// Marketplaces is the Store a command reads marketplaces through: the
// user's scope only for global, and a project marketplace whose source
// no file may choose only when the user added it here.
func (e *Env) Marketplaces(global bool) *marketplace.Store {
	l := e.Layout
	return &marketplace.Store{Layout: l, Global: global, GitBase: e.Getenv("QUIVER_GIT_BASE"),
		Chosen: func(name, source string) bool { return ChosenMarketplace(l, name, source) }}
}

// Changes makes the user's own changes to the scope (plugin add, remove,
// update, enable, disable, config; marketplace add, update, remove),
// renewing the project's trust for exactly what each changed.
func (e *Env) Changes(global bool) *Changes {
	c := e.Settings(global)
	c.Installer = e.Installer(global)
	return c
}

// Settings is Changes without an installer, for plugin config, which
// installs nothing.
func (e *Env) Settings(global bool) *Changes {
	return &Changes{
		Layout: e.Layout, Global: global,
		Agent:  AgentSession(e.Getenv),
		Repair: func() error { return e.Installer(false).Repair(context.Background()) },
		Notify: func(n string) { e.warn("%s", n) },
	}
}
