package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/gitserver"
	"github.com/quiver-cli/quiver/internal/modelserver"
	"github.com/quiver-cli/quiver/internal/testkit"
)

// hookPlugins are the official marketplace's plugins that carry hooks.
var hookPlugins = []string{"claude-security", "explanatory-output-style", "hookify", "learning-output-style", "ralph-loop", "security-guidance"}

// TestRealClaudeSessionSpeed measures, side by side, a headless Claude
// Code session with the six hook-carrying plugins of the official
// marketplace installed by Claude Code itself and installed through
// quiver (SPEC §15's target: at most 1.2x). It is a measurement, not a
// check: it asserts nothing about time and logs the medians and their
// ratio (go test -v). It runs only with QUIVER_TEST_SESSION_RUNS set (the
// runs of each, alternating), QUIVER_TEST_CLAUDE and
// QUIVER_TEST_SNAPSHOTS (as TestRealMarketplaces).
func TestRealClaudeSessionSpeed(t *testing.T) {
	runs, _ := strconv.Atoi(os.Getenv("QUIVER_TEST_SESSION_RUNS"))
	if runs <= 0 {
		t.Skip("QUIVER_TEST_SESSION_RUNS is not set")
	}
	claude := realAgent(t, "QUIVER_TEST_CLAUDE")
	model, err := modelserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	own, ownEnv, q, qEnv := bothInstalls(t, claude, model, hookPlugins, nil)

	session := func(h *harness, env []string) time.Duration {
		start := time.Now()
		runAgent(t, h, env, claude, "-p", "hello", "--output-format", "stream-json", "--verbose")
		return time.Since(start)
	}
	// One session each first: what a plugin prepares on its first run
	// (a virtual environment) is not what every session pays.
	session(own, ownEnv)
	session(q, qEnv)
	var ownTimes, qTimes []time.Duration
	for range runs {
		ownTimes = append(ownTimes, session(own, ownEnv))
		qTimes = append(qTimes, session(q, qEnv))
	}
	median := func(d []time.Duration) time.Duration {
		s := slices.Sorted(slices.Values(d))
		return s[len(s)/2]
	}
	mo, mq := median(ownTimes), median(qTimes)
	t.Logf("headless session, six hook plugins, median of %d: Claude Code's own install %v, through quiver %v: %.2fx", runs, mo.Round(time.Millisecond), mq.Round(time.Millisecond), float64(mq)/float64(mo))
	t.Logf("all runs: own %v; quiver %v", fmt.Sprint(ownTimes), fmt.Sprint(qTimes))
}

// bothInstalls installs plugins of the official marketplace (from the
// snapshot in QUIVER_TEST_SNAPSHOTS, or skips) twice, side by side: by
// Claude Code itself, and through quiver wired into Claude Code, each in
// a harness of its own talking to model; extra is added to both
// environments.
func bothInstalls(t *testing.T, claude string, model *modelserver.Server, plugins, extra []string) (own *harness, ownEnv []string, q *harness, qEnv []string) {
	t.Helper()
	snaps := os.Getenv("QUIVER_TEST_SNAPSHOTS")
	bare := filepath.Join(snaps, "anthropics+claude-plugins-official", "repo")
	if _, err := os.Stat(bare); snaps == "" || err != nil {
		t.Skip("no snapshot of anthropics/claude-plugins-official in QUIVER_TEST_SNAPSHOTS")
	}
	market := testkit.ExportHEAD(t, bare)
	srv := gitserver.New(t, gitserver.Options{})
	if _, err := srv.Commit("anthropics/claude-plugins-official", "main", market, "snapshot"); err != nil {
		t.Fatal(err)
	}
	base := append(claudeVars(model.URL), extra...)

	// Claude Code's own install, from the same marketplace on disk.
	own = newHarness(t, srv)
	ownEnv = agentEnv(own, base...)
	claudeDo := func(args ...string) {
		cmd := exec.Command(claude, args...)
		cmd.Dir, cmd.Env = own.project, ownEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	// Claude keeps the marketplace's own name for GitHub sources: the
	// same files on disk go under another.
	local := testkit.ExportHEAD(t, bare)
	manifest := filepath.Join(local, ".claude-plugin", "marketplace.json")
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	renamed := strings.Replace(string(data), `"name": "claude-plugins-official"`, `"name": "official-on-disk"`, 1)
	if renamed == string(data) {
		t.Fatal("marketplace.json does not name claude-plugins-official as expected")
	}
	if err := os.WriteFile(manifest, []byte(renamed), 0o644); err != nil {
		t.Fatal(err)
	}
	claudeDo("plugin", "marketplace", "add", local)
	for _, p := range plugins {
		claudeDo("plugin", "install", p+"@official-on-disk")
	}

	// quiver's install of the same plugins, wired into Claude Code.
	q = newHarness(t, srv)
	q.must("marketplace", "add", "anthropics/claude-plugins-official")
	for _, p := range plugins {
		q.must("plugin", "add", p+"@claude-plugins-official")
	}
	q.must("trust")
	q.must("agent", "install", "claude", "--command", os.Args[0])
	return own, ownEnv, q, agentEnv(q, base...)
}
