package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/gitserver"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// TestCrashAtRandomPoints SIGKILLs `plugin add`, `plugin update`, `plugin
// remove` and `plugin install` at random moments (half the runs anywhere,
// half right after the journal appears, around the swap). After each
// kill (SPEC §6):
//
//   - the plugin folder is a complete state, the one before the command
//     or the one it was making;
//   - `plugin verify` passes, or reports only leftovers of the killed
//     command and the drift its journal explains (or drift that was there
//     before the command);
//   - the next mutating command (`plugin install`) succeeds, after which
//     verify passes, the lock file matches the disk, the lock entry's ref
//     goes with its content, and the other installed plugin is untouched.
//
// QUIVER_CRASH_ITERATIONS sets the runs per command (default 3, 2 with
// -short); 60 gives the 240-run long variant.
//
// Three runs per command (there were 6) catch each defect this test is
// for at once: with two runs per command, a swap made two steps failed
// at the first update killed after the journal in 4 runs of 4, and with
// the next command's repair taken out a killed command's staging folder
// was left behind within the first four runs in 4 runs of 4.
func TestCrashAtRandomPoints(t *testing.T) {
	t.Parallel() // its own project, home and git server
	rng := seeded(t)
	perCommand := 3
	if testing.Short() {
		perCommand = 2
	}
	if s := os.Getenv("QUIVER_CRASH_ITERATIONS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("QUIVER_CRASH_ITERATIONS=%q", s)
		}
		perCommand = n
	}

	srv := gitserver.New(t, gitserver.Options{})
	v1 := map[string]string{
		"hooks/check":    raceHook(1),
		"recipes/one.md": "one\n",
	}
	// v2 is big enough that fetch, checkout and hashing take a while, so
	// random kills land all over the command.
	v2 := map[string]string{"hooks/check": raceHook(2)}
	for i := range 80 {
		v2[fmt.Sprintf("recipes/r%03d/recipe.md", i)] = strings.Repeat(fmt.Sprintf("recipe %d\n", i), 40)
	}
	publish(t, srv, "acme/crash", "v1", v1)
	publish(t, srv, "acme/crash", "v2", v2) // main is v2 too
	publish(t, srv, "acme/keep", "", map[string]string{"recipes/keep.md": "keep\n"})
	h1, h2 := contentHash(t, v1), contentHash(t, v2)
	hashOfRef := map[string]string{"v1": h1, "v2": h2, "main": h2}
	label := map[string]string{h1: "v1", h2: "v2", "": "absent"}

	h := newHarness(t, srv)
	h.must("plugin", "add", "acme/keep")
	keepHash := contentHash(t, map[string]string{"recipes/keep.md": "keep\n"})
	name, _ := plugins.ParseName("acme/crash")
	dir := h.scope.PluginDir(name)

	folderHash := func() string {
		t.Helper()
		if _, err := os.Lstat(dir); os.IsNotExist(err) {
			return ""
		}
		d, err := plugins.HashDir(dir)
		if err != nil {
			t.Fatalf("plugin folder unreadable: %v", err)
		}
		return d.Sum
	}
	lockEntry := func() (plugins.LockEntry, bool) {
		t.Helper()
		lock, err := plugins.ReadLock(h.scope.LockPath())
		if err != nil {
			t.Fatal(err)
		}
		e, ok := lock.Plugins["acme/crash"]
		return e, ok
	}
	ensureInstalled := func(ref string) {
		t.Helper()
		if _, ok := lockEntry(); !ok {
			h.must("plugin", "add", "acme/crash@"+ref)
		}
	}

	// Each command prepares its starting state (without being killed) and
	// returns its arguments and the drift verify may report before it
	// even runs.
	type command struct {
		name    string
		prepare func(i int) (args []string, drift map[string]bool)
	}
	commands := []command{
		{"add", func(i int) ([]string, map[string]bool) {
			if _, ok := lockEntry(); ok {
				h.must("plugin", "remove", "acme/crash")
			}
			return []string{"plugin", "add", "acme/crash@" + []string{"v2", "v1"}[i%2]}, nil
		}},
		{"update", func(i int) ([]string, map[string]bool) {
			ensureInstalled("v1")
			e, _ := lockEntry()
			to := "main" // a branch
			if e.Ref == "main" {
				to = "v1" // a tag
			}
			return []string{"plugin", "update", "acme/crash", "--ref", to}, nil
		}},
		{"remove", func(i int) ([]string, map[string]bool) {
			ensureInstalled([]string{"v2", "v1"}[i%2])
			return []string{"plugin", "remove", "acme/crash"}, nil
		}},
		{"install", func(i int) ([]string, map[string]bool) {
			ensureInstalled("v2")
			if i%2 == 0 {
				// A teammate's fresh clone: locked but not installed.
				if err := os.RemoveAll(dir); err != nil {
					t.Fatal(err)
				}
				return []string{"plugin", "install"}, map[string]bool{"missing": true}
			}
			// A local edit that install puts right.
			f, err := os.OpenFile(filepath.Join(dir, "hooks", "check"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("# edited\n")
			f.Close()
			return []string{"plugin", "install"}, map[string]bool{"modified": true}
		}},
	}

	// How long each command takes when left alone: the span random kills
	// are spread over.
	window := map[string]time.Duration{}
	for i, c := range commands {
		args, _ := c.prepare(i)
		window[c.name] = h.must(args...).took
		h.must("plugin", "install") // back to a clean state
	}
	t.Logf("uninterrupted: %v", window)

	start := time.Now()
	killed, repairs := map[string]int{}, map[string]int{}
	for i := range perCommand * len(commands) {
		c := commands[i%len(commands)]
		round := i / len(commands)
		args, drift := c.prepare(round)
		beforeHash := folderHash()
		if c.name == "install" {
			// The state before is the locked version (missing or edited
			// on disk); install's job is to bring it back.
			e, _ := lockEntry()
			beforeHash = e.Hash
		}
		// What the command would produce if it ran to the end.
		afterHash := ""
		switch c.name {
		case "add":
			afterHash = hashOfRef[strings.TrimPrefix(args[2], "acme/crash@")]
		case "update":
			afterHash = hashOfRef[args[4]]
		case "install":
			afterHash = beforeHash
		}
		preKill := folderHash() // install starts from an edited or missing folder

		cmd := h.cmd(args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		how := "anywhere"
		if round%2 == 0 {
			time.Sleep(time.Duration(rng.Int64N(int64(window[c.name]) * 6 / 5)))
		} else {
			how = "after the journal"
			waitForJournal(h.scope.PluginsDir(), 3*window[c.name])
			time.Sleep(time.Duration(rng.Int64N(int64(2 * time.Millisecond))))
		}
		cmd.Process.Kill()
		cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			killed[c.name]++
		}
		what := fmt.Sprintf("run %d: %s killed %s", i, strings.Join(args, " "), how)

		// A reader right now sees a complete state.
		now := folderHash()
		if now != beforeHash && now != afterHash && now != preKill {
			t.Fatalf("%s: the plugin folder is %s (hash %s), neither the state before (%s) nor after (%s)",
				what, label[now], now, label[beforeHash], label[afterHash])
		}

		// verify passes or names what the journal (or the state before
		// the command) explains.
		journal, _ := filepath.Glob(filepath.Join(h.scope.PluginsDir(), ".txn-*"))
		r := h.run("", "plugin", "verify", "--json")
		if msg := cleanOutcome(r); msg != "" {
			t.Fatalf("%s: verify: %s\n%s", what, msg, r)
		}
		var report []plugins.VerifyResult
		if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
			t.Fatalf("%s: verify --json: %v\n%s", what, err, r)
		}
		for _, v := range report {
			switch {
			case v.Status == "ok", v.Status == "leftover":
			case v.Name == "acme/crash" && (len(journal) > 0 || drift[v.Status]):
			default:
				t.Fatalf("%s: verify reports %s as %s with no journal to repair it\n%s", what, v.Name, v.Status, r)
			}
		}
		if (r.code == 0) != (len(report) == 0 || allOK(report)) {
			t.Fatalf("%s: verify exit %d does not go with its report\n%s", what, r.code, r)
		}

		// The next mutating command repairs everything.
		r = h.run("", "plugin", "install")
		if r.code != 0 {
			t.Fatalf("%s: the next command failed:\n%s", what, r)
		}
		for _, line := range strings.Split(r.stderr, "\n") {
			if m, ok := strings.CutPrefix(line, "quiver: "); ok {
				repairs[repairKind(m)]++
			}
		}
		if p := lockMatchesDisk(h.scope); len(p) > 0 {
			t.Fatalf("%s: after plugin install, lock and disk disagree: %v", what, p)
		}
		if r := h.run("", "plugin", "verify"); r.code != 0 {
			t.Fatalf("%s: verify after the repair:\n%s", what, r)
		}
		if e, ok := lockEntry(); ok {
			if ref := e.Ref; hashOfRef[ref] != e.Hash {
				t.Fatalf("%s: the lock pins ref %q but records the content of %s", what, ref, label[e.Hash])
			}
			if e.Hash != beforeHash && e.Hash != afterHash {
				t.Fatalf("%s: after the repair the plugin is %s, neither before (%s) nor after (%s)", what, label[e.Hash], label[beforeHash], label[afterHash])
			}
		} else if beforeHash != "" && afterHash != "" {
			t.Fatalf("%s: the plugin is gone, yet the command was not a remove", what)
		}
		if d, err := plugins.HashDir(filepath.Join(h.scope.PluginsDir(), "acme@keep")); err != nil || d.Sum != keepHash {
			t.Fatalf("%s: the other plugin changed: %v", what, err)
		}
	}
	t.Logf("%d runs (%d per command) in %s; killed before exit: %v; repairs by the next command: %v",
		perCommand*len(commands), perCommand, time.Since(start).Round(time.Millisecond), killed, repairs)
}

// A command killed while writing its journal leaves the journal's temp
// file in plugins/. plugin verify reports it as a leftover (exit 0: every
// plugin is ok, and a leftover is no drift) and says the next mutating
// command cleans it; that command must then clean it.
func TestCrashJournalTempIsCleaned(t *testing.T) {
	t.Parallel() // its own project, home and git server
	srv := gitserver.New(t, gitserver.Options{})
	publish(t, srv, "acme/keep", "", map[string]string{"recipes/keep.md": "keep\n"})
	h := newHarness(t, srv)
	h.must("plugin", "add", "acme/keep")
	// Exactly what a kill between CreateTemp and Rename in
	// WriteFileAtomic leaves, half written.
	tmp := filepath.Join(h.scope.PluginsDir(), "..txn-acme@crash.json.tmp-1209738227")
	if err := os.WriteFile(tmp, []byte(`{"op":"ins`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := h.run("", "plugin", "verify"); r.code != 0 || !strings.Contains(r.stdout, "leftover") {
		t.Fatalf("verify does not report the leftover:\n%s", r)
	}
	h.must("plugin", "install")
	if _, err := os.Lstat(tmp); err == nil {
		t.Errorf("plugin install left %s in place", filepath.Base(tmp))
	}
	if r := h.run("", "plugin", "verify"); r.code != 0 {
		t.Errorf("verify still fails after the next mutating command:\n%s", r)
	}
	for _, p := range lockMatchesDisk(h.scope) {
		t.Error(p)
	}
}

// repairKind sums up a repair notice: "completed an interrupted remove",
// "removed leftover .stage", ...
func repairKind(msg string) string {
	if p, ok := strings.CutPrefix(msg, "removed leftover "); ok {
		base := filepath.Base(p)
		if i := strings.Index(base[1:], "-"); i > 0 {
			base = base[:i+1]
		}
		return "removed leftover " + base
	}
	kind, _, _ := strings.Cut(msg, " of ")
	return kind
}

// allOK reports a verify report without drift: leftovers of an
// interrupted command are listed but are no drift.
func allOK(report []plugins.VerifyResult) bool {
	for _, v := range report {
		if v.Status != "ok" && v.Status != "leftover" {
			return false
		}
	}
	return true
}
