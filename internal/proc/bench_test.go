package proc

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
	"time"
)

// benchHook is a hook's whole life on this machine: a shell that reads
// the payload and answers nothing, as quiverbench's generated hooks do.
var benchHook = []string{"/bin/sh", "-c", "cat >/dev/null"}

var benchPayload = bytes.Repeat([]byte(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`), 8)

// runHook runs benchHook as quiver runs a hook.
func runHook(b *testing.B) {
	r := Run(context.Background(), Spec{Path: benchHook[0], Args: benchHook[1:], Stdin: benchPayload,
		Timeout: time.Minute, MaxStdout: 1 << 20, MaxStderr: 1 << 20})
	if r.ExitCode != 0 {
		b.Fatalf("exit %d: %s", r.ExitCode, r.Stderr)
	}
}

// spawnHook spawns it as quiverbench's floor does: os/exec, the payload
// on stdin, the output nowhere.
func spawnHook(b *testing.B) {
	cmd := exec.Command(benchHook[0], benchHook[1:]...)
	cmd.Stdin = bytes.NewReader(benchPayload)
	if err := cmd.Run(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRun is one hook run through Run.
func BenchmarkRun(b *testing.B) {
	for b.Loop() {
		runHook(b)
	}
}

// BenchmarkRunOverSpawn is quiver's cost per hook, quiverbench's per-hook
// row measured in one process, without start-up noise: Run and the
// direct spawn alternate, so that the machine's drift falls on both, and
// it reports Run's time over the spawn's (the target is 1.05).
func BenchmarkRunOverSpawn(b *testing.B) {
	var run, spawn time.Duration
	for b.Loop() {
		start := time.Now()
		runHook(b)
		run += time.Since(start)
		start = time.Now()
		spawnHook(b)
		spawn += time.Since(start)
	}
	b.ReportMetric(float64(run)/float64(spawn), "run/spawn")
}
