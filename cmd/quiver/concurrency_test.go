package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/gitserver"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// Mutating commands racing each other in one scope, as real processes,
// while readers look on. SPEC §6: mutating commands are serialized by the
// scope lock; a reader at any instant sees the complete old or the
// complete new plugin; the lock file matches the disk after every
// command. A command that loses a race fails with one "quiver: " line.

// raceHook answers before_tool_call with the version it belongs to, so a
// hook run shows which plugin version it ran.
func raceHook(version int) string {
	return fmt.Sprintf("#!/bin/sh\n[ \"$1\" = hook ] && { echo before_tool_call; exit 0; }\ncat >/dev/null\necho '{\"input\":{\"version\":%d}}'\n", version)
}

// raceVersions are two versions of acme/guard that differ in every item
// kind, v2 with enough files that installing it takes a while.
func raceVersions() (v1, v2 map[string]string) {
	v1 = map[string]string{
		"hooks/check":           raceHook(1),
		"hooks/only-v1":         "#!/bin/sh\n[ \"$1\" = hook ] && echo before_tool_call\nexit 0\n",
		"skills/alpha/SKILL.md": "---\nname: alpha\ndescription: v1 skill\n---\nBody.\n",
		"recipes/one.md":        "one\n",
	}
	v2 = map[string]string{
		"hooks/check":          raceHook(2),
		"hooks/only-v2":        "#!/bin/sh\n[ \"$1\" = hook ] && echo before_tool_call\nexit 0\n",
		"skills/beta/SKILL.md": "---\nname: beta\ndescription: v2 skill\n---\nBody.\n",
	}
	for i := range 120 {
		v2[fmt.Sprintf("recipes/r%03d.md", i)] = strings.Repeat(fmt.Sprintf("recipe %d\n", i), 30)
	}
	return v1, v2
}

// itemsOf is the signature of a version as plugin list shows it.
func itemsOf(files map[string]string) string {
	var hooks, skills, recipes []string
	for p := range files {
		switch dir, rest, _ := strings.Cut(p, "/"); dir {
		case "hooks":
			hooks = append(hooks, rest)
		case "skills":
			skills = append(skills, path.Dir(rest))
		case "recipes":
			recipes = append(recipes, strings.TrimSuffix(rest, ".md"))
		}
	}
	return itemSignature(hooks, skills, recipes)
}

func itemSignature(hooks, skills, recipes []string) string {
	for _, l := range [][]string{hooks, skills, recipes} {
		sort.Strings(l)
	}
	return fmt.Sprintf("hooks=%s skills=%s recipes=%s", strings.Join(hooks, ","), strings.Join(skills, ","), strings.Join(recipes, ","))
}

// watcher reads one plugin over and over while writers change it, and
// records any state that is not one of the complete versions. A read is
// judged only when the folder's identity is the same before and after
// it (no swap in between); reads that straddle a swap are counted and
// dropped, since no reader can be consistent across two instants.
type watcher struct {
	h      *harness
	name   plugins.Name
	hashes map[string]string // content hash -> version label
	items  map[string]string // plugin list signature -> version label
	hooks  map[string]string // hook list signature -> version label

	mu        sync.Mutex
	seen      map[string]int
	straddled int
	problems  []string
}

func newWatcher(h *harness, name string, versions map[string]map[string]string) *watcher {
	n, err := plugins.ParseName(name)
	if err != nil {
		h.t.Fatal(err)
	}
	w := &watcher{h: h, name: n, hashes: map[string]string{}, items: map[string]string{}, hooks: map[string]string{}, seen: map[string]int{}}
	for label, files := range versions {
		w.hashes[contentHash(h.t, files)] = label
		w.items[itemsOf(files)] = label
		var hooks []string
		for p := range files {
			if rest, ok := strings.CutPrefix(p, "hooks/"); ok {
				hooks = append(hooks, rest)
			}
		}
		sort.Strings(hooks)
		w.hooks[strings.Join(hooks, ",")] = label
	}
	return w
}

func (w *watcher) problem(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.problems) < 20 {
		w.problems = append(w.problems, fmt.Sprintf(format, args...))
	}
}

func (w *watcher) saw(what string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen[what]++
}

// read runs observe between two identity checks of the plugin folder and
// returns whether the folder stayed put and whether it was there. The
// plugins folder is checked too: every rename in or out of it changes its
// mtime, so a plugin that came and went during the read is caught.
func (w *watcher) read(observe func()) (stable, present bool) {
	dir := w.h.scope.PluginDir(w.name)
	before, there, err := identify(dir)
	parentBefore, _, perr := identify(filepath.Dir(dir))
	if err != nil || perr != nil {
		w.problem("stat %s: %v %v", dir, err, perr)
		return false, false
	}
	observe()
	after, stillThere, err := identify(dir)
	parentAfter, _, perr := identify(filepath.Dir(dir))
	if err != nil || perr != nil || there != stillThere || before != after || parentBefore != parentAfter {
		w.mu.Lock()
		w.straddled++
		w.mu.Unlock()
		return false, false
	}
	return true, there
}

// hashOnce hashes the plugin folder, as any tool reading it would.
func (w *watcher) hashOnce() {
	var sum string
	var hashErr error
	stable, present := w.read(func() {
		d, err := plugins.HashDir(w.h.scope.PluginDir(w.name))
		sum, hashErr = d.Sum, err
	})
	switch {
	case !stable:
	case !present:
		w.saw("hash:absent")
	case hashErr != nil:
		w.problem("the folder stayed put but could not be hashed: %v", hashErr)
	case w.hashes[sum] == "":
		w.problem("the folder hashed to %s, which is no complete version", sum)
	default:
		w.saw("hash:" + w.hashes[sum])
	}
}

// listOnce runs `plugin list --json` and checks the plugin's items.
func (w *watcher) listOnce() {
	var r ran
	stable, present := w.read(func() { r = w.h.run("", "plugin", "list", "--json") })
	if r.code != 0 || stackTrace.MatchString(r.stderr) {
		w.problem("a reader failed: %s", r)
		return
	}
	if !stable {
		return
	}
	var list []discovery.PluginInfo
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		w.problem("plugin list --json printed no JSON: %v\n%s", err, r.stdout)
		return
	}
	sig := "absent"
	for _, p := range list {
		if p.Name == w.name.String() && len(p.Hooks)+len(p.Skills)+len(p.Recipes) > 0 {
			sig = itemSignature(p.Hooks, p.Skills, p.Recipes)
		}
	}
	switch {
	case !present && sig != "absent":
		w.problem("plugin list shows items of a plugin whose folder is not there: %s", sig)
	case present && w.items[sig] == "":
		w.problem("plugin list shows %s, which is no complete version", sig)
	case present:
		w.saw("list:" + w.items[sig])
	default:
		w.saw("list:absent")
	}
}

// hookListOnce runs `hook list --all --json` and checks the plugin's
// hooks.
func (w *watcher) hookListOnce() {
	var r ran
	stable, present := w.read(func() { r = w.h.run("", "hook", "list", "--all", "--json") })
	if r.code != 0 || stackTrace.MatchString(r.stderr) {
		w.problem("a reader failed: %s", r)
		return
	}
	if !stable {
		return
	}
	var list []struct{ Name, Plugin string }
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		w.problem("hook list --json printed no JSON: %v\n%s", err, r.stdout)
		return
	}
	var hooks []string
	for _, hk := range list {
		if hk.Plugin == w.name.String() {
			hooks = append(hooks, strings.TrimPrefix(hk.Name, w.name.String()+"/"))
		}
	}
	sort.Strings(hooks)
	sig := strings.Join(hooks, ",")
	switch {
	case !present && sig != "":
		w.problem("hook list shows hooks of a plugin whose folder is not there: %s", sig)
	case present && w.hooks[sig] == "":
		w.problem("hook list shows hooks %q, which is no complete version", sig)
	case present:
		w.saw("hooks:" + w.hooks[sig])
	default:
		w.saw("hooks:absent")
	}
}

// start runs the readers until stop is called: one goroutine hashing the
// folder, one running quiver's list commands.
func (w *watcher) start() (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for !done.Load() {
			w.hashOnce()
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; !done.Load(); i++ {
			if i%2 == 0 {
				w.listOnce()
			} else {
				w.hookListOnce()
			}
		}
	}()
	return func() {
		done.Store(true)
		wg.Wait()
	}
}

// report fails the test for what the readers saw and logs the counts.
func (w *watcher) report(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.problems {
		t.Error(p)
	}
	judged := 0
	for _, n := range w.seen {
		judged += n
	}
	t.Logf("readers: %v; %d reads straddled a swap and were not judged", w.seen, w.straddled)
	if judged < 10 {
		t.Errorf("readers judged only %d states", judged)
	}
}

// together starts every command at once and waits for all of them.
func together(h *harness, runs [][]string) []ran {
	out := make([]ran, len(runs))
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i, args := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			out[i] = h.run("", args...)
		}()
	}
	close(gate)
	wg.Wait()
	return out
}

func checkLockMatchesDisk(t *testing.T, s plugins.Scope) {
	t.Helper()
	for _, p := range lockMatchesDisk(s) {
		t.Error(p)
	}
}

// Eight adds of eight plugins at once: all wait their turn and succeed.
func TestConcurrentAddsOfDifferentPlugins(t *testing.T) {
	t.Parallel() // its own project, home and git server
	srv := gitserver.New(t, gitserver.Options{})
	var runs [][]string
	for i := range 8 {
		name := fmt.Sprintf("acme/p%d", i)
		publish(t, srv, name, "", map[string]string{
			fmt.Sprintf("hooks/h%d", i):           raceHook(i),
			fmt.Sprintf("recipes/r%d.md", i):      "recipe\n",
			fmt.Sprintf("skills/s%d/SKILL.md", i): fmt.Sprintf("---\nname: s%d\ndescription: d\n---\n", i),
		})
		runs = append(runs, []string{"plugin", "add", name})
	}
	h := newHarness(t, srv)
	for _, r := range together(h, runs) {
		if r.code != 0 || cleanOutcome(r) != "" {
			t.Errorf("%s", r)
		}
	}
	lock, err := plugins.ReadLock(h.scope.LockPath())
	if err != nil {
		t.Fatal(err)
	}
	if len(lock.Plugins) != 8 {
		t.Errorf("lock has %d plugins, want 8: %v", len(lock.Plugins), lock.Names())
	}
	checkLockMatchesDisk(t, h.scope)
	h.must("plugin", "verify")
	var list []discovery.PluginInfo
	if err := json.Unmarshal([]byte(h.must("plugin", "list", "--json").stdout), &list); err != nil || len(list) != 8 {
		t.Errorf("plugin list: %d plugins, %v", len(list), err)
	}
}

// Eight forced adds of one plugin, alternating two versions, at once,
// while readers watch: every add succeeds, readers only ever see v1 or
// v2 whole, and the lock ends up describing the folder.
func TestConcurrentForcedAddsOfOnePlugin(t *testing.T) {
	t.Parallel() // its own project, home and git server
	srv := gitserver.New(t, gitserver.Options{})
	v1, v2 := raceVersions()
	publish(t, srv, "acme/guard", "v1", v1)
	publish(t, srv, "acme/guard", "v2", v2)
	h := newHarness(t, srv, "QUIVER_TRUST_ALL=1")
	h.must("plugin", "add", "acme/guard@v1")

	w := newWatcher(h, "acme/guard", map[string]map[string]string{"v1": v1, "v2": v2})
	stop := w.start()
	var runs [][]string
	for i := range 8 {
		runs = append(runs, []string{"plugin", "add", "--force", "acme/guard@" + []string{"v1", "v2"}[i%2]})
	}
	results := together(h, runs)
	stop()
	for _, r := range results {
		if r.code != 0 || cleanOutcome(r) != "" {
			t.Errorf("%s", r)
		}
	}
	w.report(t)
	checkLockMatchesDisk(t, h.scope)
	lock, err := plugins.ReadLock(h.scope.LockPath())
	if err != nil {
		t.Fatal(err)
	}
	e := lock.Plugins["acme/guard"]
	if want := map[string]string{"v1": contentHash(t, v1), "v2": contentHash(t, v2)}[e.Ref]; e.Hash != want {
		t.Errorf("lock says ref %q with hash %s; that ref's content hashes to %s", e.Ref, e.Hash, want)
	}
	h.must("plugin", "verify")
}

// add, add --force and remove of one plugin racing, round after round,
// while `hook run` runs the plugin's hook in a loop and readers watch.
// Losers fail with one clear line; readers see no plugin, v1 or v2, never
// a mix; hook run always answers; the lock matches the disk after every
// round.
func TestConcurrentAddRemoveAndHookRun(t *testing.T) {
	t.Parallel() // its own project, home and git server
	rng := seeded(t)
	srv := gitserver.New(t, gitserver.Options{})
	v1, v2 := raceVersions()
	publish(t, srv, "acme/guard", "v1", v1)
	publish(t, srv, "acme/guard", "v2", v2)
	h := newHarness(t, srv, "QUIVER_TRUST_ALL=1")
	rounds := 4
	if testing.Short() {
		rounds = 2
	}

	// hook run in a loop: exit 0 and a result naming a version (or no
	// input when no plugin was there), whatever the writers do.
	var hookRuns, hookFailures atomic.Int64
	var hookProblems []string
	var hookMu sync.Mutex
	var done atomic.Bool
	var wg sync.WaitGroup
	finished := make(chan struct{}, 1) // a hook run ended
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !done.Load() {
			r := h.run(`{"tool_name":"bash","tool_input":{"command":"ls"}}`, "hook", "run", "before_tool_call")
			hookRuns.Add(1)
			select {
			case finished <- struct{}{}:
			default:
			}
			var res struct {
				Event string          `json:"event"`
				Input json.RawMessage `json:"input"`
				Hooks []struct {
					Name, Status, Error string
				} `json:"hooks"`
			}
			bad := ""
			switch err := json.Unmarshal([]byte(r.stdout), &res); {
			case r.code != 0 || stackTrace.MatchString(r.stderr):
				bad = "hook run failed"
			case err != nil || res.Event != "before_tool_call":
				bad = "hook run printed no result"
			case res.Input != nil && !slices.Contains([]string{`{"version":1}`, `{"version":2}`}, string(res.Input)):
				bad = "hook run input from no complete version"
			}
			for _, hk := range res.Hooks {
				if hk.Status == "failed" {
					hookFailures.Add(1)
					// The only excuses: the plugin was removed, or
					// replaced, between discovery and the run.
					if !strings.Contains(hk.Error, "no such file") && !strings.Contains(hk.Error, "its file changed since quiver read it") {
						bad = "a hook failed: " + hk.Error
					}
				}
			}
			if bad != "" {
				hookMu.Lock()
				if len(hookProblems) < 10 {
					hookProblems = append(hookProblems, bad+": "+r.String())
				}
				hookMu.Unlock()
			}
		}
	}()

	w := newWatcher(h, "acme/guard", map[string]map[string]string{"v1": v1, "v2": v2})
	stop := w.start()
	outcomes := map[string]int{}
	for round := range rounds {
		runs := [][]string{
			{"plugin", "add", "acme/guard@v1"},
			{"plugin", "remove", "acme/guard"},
			{"plugin", "add", "--force", "acme/guard@v2"},
			{"plugin", "remove", "acme/guard"},
			{"plugin", "add", "acme/guard@v1"},
			{"plugin", "remove", "acme/guard"},
		}
		rng.Shuffle(len(runs), func(i, j int) { runs[i], runs[j] = runs[j], runs[i] })
		for _, r := range together(h, runs) {
			if msg := cleanOutcome(r); msg != "" {
				t.Errorf("round %d: %s\n%s", round, msg, r)
			}
			outcomes[fmt.Sprintf("%s %s exit %d", r.args[1], r.args[len(r.args)-1], r.code)]++
		}
		if p := lockMatchesDisk(h.scope); len(p) > 0 {
			t.Errorf("round %d: lock and disk disagree: %v", round, p)
		}
	}
	// One last round with the scope empty, so add is sure to win once.
	h.run("", "plugin", "remove", "acme/guard")
	h.must("plugin", "add", "acme/guard@v2")
	// Let hook run see it installed: of the runs that end from now on,
	// the first may have started before the add ended, the second not.
	select {
	case <-finished:
	default:
	}
	for range 2 {
		<-finished
	}
	stop()
	done.Store(true)
	wg.Wait()

	w.report(t)
	for _, p := range hookProblems {
		t.Error(p)
	}
	t.Logf("commands: %v; %d hook runs, %d hook failures (plugin removed under them)", outcomes, hookRuns.Load(), hookFailures.Load())
	if hookRuns.Load() == 0 {
		t.Error("hook run never ran")
	}
	checkLockMatchesDisk(t, h.scope)
	h.must("plugin", "verify")
}

// The watcher is not blind: a folder missing one file of v1, which never
// changes while it is read, is reported by the hash reader and by plugin
// list alike.
func TestWatcherSeesPartialPlugin(t *testing.T) {
	t.Parallel() // its own project, home and git server
	srv := gitserver.New(t, gitserver.Options{})
	v1, v2 := raceVersions()
	publish(t, srv, "acme/guard", "v1", v1)
	h := newHarness(t, srv, "QUIVER_TRUST_ALL=1")
	h.must("plugin", "add", "acme/guard@v1")
	w := newWatcher(h, "acme/guard", map[string]map[string]string{"v1": v1, "v2": v2})
	w.hashOnce()
	w.listOnce()
	if len(w.problems) != 0 || w.seen["hash:v1"] != 1 || w.seen["list:v1"] != 1 {
		t.Fatalf("complete v1: problems %v, seen %v", w.problems, w.seen)
	}
	if err := os.RemoveAll(filepath.Join(h.scope.PluginDir(w.name), "skills")); err != nil {
		t.Fatal(err)
	}
	w.hashOnce()
	w.listOnce()
	if len(w.problems) != 2 {
		t.Errorf("a partial v1 went unnoticed: problems %v, seen %v", w.problems, w.seen)
	}
}

// hook run answers whatever plugin commands run beside it: a plugin
// removed (or replaced by a version with other hooks) while hook run
// discovers hooks and fingerprints the trusted project must not make hook
// run fail, or an agent's tool call fails (or, failing closed, is
// blocked) because of an unrelated remove. The plugin folder is renamed
// away and back in a tight loop, the one step plugin remove and plugin add
// take on it, so that every run of hook run races it. The project is
// trusted as a user trusts it (quiver trust), so each run computes the
// fingerprint over files that come and go.
func TestHookRunWhilePluginChanges(t *testing.T) {
	t.Parallel() // its own project, home and git server
	const hooks, runs = 8, 50
	files := map[string]string{}
	for i := range hooks {
		files[fmt.Sprintf("hooks/h%02d", i)] = "#!/bin/sh\n[ \"$1\" = hook ] && echo turn_end\nexit 0\n"
	}
	h := newHarness(t, gitserver.New(t, gitserver.Options{}))
	h.must("plugin", "add", writeTree(t, files), "--name", "acme/many")
	h.must("trust")
	if r := h.must("hook", "list", "--json"); strings.Count(r.stdout, `"event": "turn_end"`) != hooks {
		t.Fatalf("the trusted plugin's hooks are not all listed:\n%s", r)
	}
	dir := filepath.Join(h.scope.PluginsDir(), "acme@many")
	away := filepath.Join(h.scope.PluginsDir(), ".trash-acme@many-test")
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !done.Load() {
			os.Rename(dir, away)
			time.Sleep(time.Millisecond)
			os.Rename(away, dir)
			// Back for longer than it is away, so that some runs find
			// the project trusted and lose files while they run it.
			time.Sleep(10 * time.Millisecond)
		}
	}()
	defer func() {
		done.Store(true)
		wg.Wait()
	}()
	ran, lost := 0, 0 // runs in which the trusted hooks ran, and lost files
	for i := range runs {
		r := h.run("{}", "hook", "run", "turn_end")
		var res struct {
			Hooks []struct{ Name, Status, Error string } `json:"hooks"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &res); r.code != 0 || err != nil {
			t.Fatalf("after %d good runs: %s", i, r)
		}
		for _, hk := range res.Hooks {
			// A hook whose file went between discovery and its start
			// (or its interpreter's open) fails as the hook it is; the
			// project as a whole is never reported unreadable for it
			// (under --fail-closed that would block the agent).
			gone := strings.Contains(strings.ToLower(hk.Error), "no such file") || strings.Contains(hk.Error, "its file changed since quiver read it")
			if hk.Name == discovery.ProjectScopeHook || hk.Status == "failed" && !gone {
				t.Fatalf("after %d good runs: %s", i, r)
			}
			if gone {
				lost++
			}
		}
		if len(res.Hooks) > 0 {
			ran++
		}
	}
	t.Logf("%d of %d runs found the project trusted and ran its hooks; %d hooks lost their file meanwhile", ran, runs, lost)
}
