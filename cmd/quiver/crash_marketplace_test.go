package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/gitserver"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/marketplace"
)

// TestCrashMarketplace SIGKILLs `marketplace add` and `marketplace update`
// at random moments (half the runs anywhere, half right after the
// marketplace's journal appears, around the swap). After each kill the
// previous state stays usable
// (SPEC §12): marketplace list and search work, a checkout on disk is one
// whole version (its marketplace.json parses and all its files are
// there), and the next mutating command makes the lock agree with the
// checkout.
func TestCrashMarketplace(t *testing.T) {
	t.Parallel() // its own project, home and git server
	rng := seeded(t)
	// Half the runs kill right after the journal: with the swap made two
	// steps, 4 runs caught it in 4 tries of 6, where 8 runs that killed
	// anywhere caught it in 1 of 5.
	runs := 8 // QUIVER_CRASH_ITERATIONS for more
	if testing.Short() {
		runs = 4
	}
	if s := os.Getenv("QUIVER_CRASH_ITERATIONS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("QUIVER_CRASH_ITERATIONS=%q", s)
		}
		runs = n
	}
	srv := gitserver.New(t, gitserver.Options{})
	version := func(v int) map[string]string {
		files := map[string]string{
			".claude-plugin/marketplace.json": fmt.Sprintf(`{"name": "crash", "description": "v%d", "plugins": [{"name": "p", "source": "./plugins/p"}]}`, v),
			"plugins/p/recipes/p.md":          fmt.Sprintf("v%d\n", v),
		}
		for i := range 80 {
			files[fmt.Sprintf("plugins/p/recipes/r%03d.md", i)] = strings.Repeat(fmt.Sprintf("v%d %d\n", v, i), 40)
		}
		return files
	}
	publish(t, srv, "acme/market", "", version(1))
	h := newHarness(t, srv)
	dir := h.scope.MarketplaceDir("crash")

	// whole reports the version a checkout holds, and fails the test when
	// it is not one whole version.
	whole := func(what string) int {
		t.Helper()
		m, err := marketplace.ReadDir(dir)
		if err != nil {
			t.Fatalf("%s: the checkout is not a marketplace: %v", what, err)
		}
		var v int
		fmt.Sscanf(m.Description, "v%d", &v)
		entries, _ := os.ReadDir(filepath.Join(dir, "plugins", "p", "recipes"))
		if len(entries) != 81 {
			t.Fatalf("%s: the checkout of v%d has %d of its 81 recipes", what, v, len(entries))
		}
		return v
	}
	window := h.must("marketplace", "add", "acme/market").took
	h.must("marketplace", "remove", "crash")
	machine := plugins.Scope{Root: h.scope.Root, Machine: plugins.ProjectMachineDir(h.home, h.project)}
	journals := filepath.Join(machine.StateDir(), "marketplaces") // the journal is crash.json
	if _, err := os.Stat(journals); err != nil {
		t.Fatalf("the marketplace journals' folder: %v", err)
	}
	next := 2
	for i := range runs {
		var args []string
		if i%2 == 0 {
			if _, err := os.Stat(dir); err == nil {
				h.must("marketplace", "remove", "crash")
			}
			args = []string{"marketplace", "add", "acme/market"}
		} else {
			if _, err := os.Stat(dir); err != nil {
				h.must("marketplace", "add", "acme/market")
			}
			publish(t, srv, "acme/market", "", version(next))
			next++
			args = []string{"marketplace", "update", "crash"}
		}
		_, existed := os.Stat(dir)
		cmd := h.cmd(args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		how := "anywhere"
		if i/2%2 == 0 {
			time.Sleep(time.Duration(rng.Int64N(int64(window) * 6 / 5)))
		} else {
			how = "after the journal"
			waitForEntry(journals, "crash.json", 3*window)
			time.Sleep(time.Duration(rng.Int64N(int64(2 * time.Millisecond))))
		}
		cmd.Process.Kill()
		cmd.Wait()
		what := fmt.Sprintf("run %d: %s killed %s", i, strings.Join(args, " "), how)

		if r := h.run("", "marketplace", "list", "--json"); r.code != 0 {
			t.Fatalf("%s: marketplace list fails:\n%s", what, r)
		}
		if r := h.run("", "search"); r.code != 0 {
			t.Fatalf("%s: search fails:\n%s", what, r)
		}
		if _, err := os.Stat(dir); err == nil {
			whole(what)
		} else if existed == nil {
			t.Fatalf("%s: the checkout that was there is gone", what)
		}
		r := h.run("", "plugin", "install")
		if r.code != 0 {
			t.Fatalf("%s: the next command failed:\n%s", what, r)
		}
		lock, err := plugins.ReadLock(h.scope.LockPath())
		if err != nil {
			t.Fatal(err)
		}
		e, locked := lock.Marketplaces["crash"]
		_, statErr := os.Stat(dir)
		if locked != (statErr == nil) {
			t.Fatalf("%s: after plugin install, locked %v but checkout present %v\n%s", what, locked, statErr == nil, r)
		}
		if locked {
			whole(what)
			var st struct{ Commit string }
			data, _ := os.ReadFile(filepath.Join(dir, ".quiver-marketplace.json"))
			if json.Unmarshal(data, &st) != nil || st.Commit != e.Commit {
				t.Fatalf("%s: the lock says %s, the checkout is %s", what, e.Commit, st.Commit)
			}
		}
		leftovers, _ := filepath.Glob(filepath.Join(h.scope.MarketplacesDir(), ".*"))
		if len(leftovers) > 0 {
			t.Fatalf("%s: leftovers after the next command: %v", what, leftovers)
		}
	}
}
