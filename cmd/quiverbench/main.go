// Command quiverbench measures quiver against its performance limits on
// this machine: it builds quiver, generates a synthetic home and project
// (N plugins of 5 hooks, 3 skills and 3 recipes; hooks are tiny #!/bin/sh
// scripts and static Go binaries), runs each measurement repeatedly, and
// prints medians, minimums, maximums and the ratios the targets are about.
// Every target is a ratio to a floor measured in the same run, on the same
// machine: an empty Go program, find reading the same metadata, spawning
// the same hooks directly, one-shot `hook run` for `hook serve`. Beside
// the empty program, the link floor (a program that links the packages
// hook run imports and runs nothing) shows what start-up any build that
// can run hook run pays at least.
//
//	go run ./cmd/quiverbench            # the full run (a few minutes)
//	go run ./cmd/quiverbench --json     # machine-readable
//	go run ./cmd/quiverbench --n 5 --runs 1   # a smoke test
//	go run ./cmd/quiverbench --baseline HEAD~3   # beside another revision
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	// A generated Go hook is this binary under another name.
	if base := filepath.Base(os.Args[0]); strings.HasPrefix(base, goHookPrefix) && len(os.Args) == 2 {
		os.Exit(runGoHook(base, os.Args[1]))
	}
	// The floor of the serve rows is this binary under another name.
	if filepath.Base(os.Args[0]) == echoName {
		os.Exit(runEcho())
	}
	// The fresh-process floor of the per-hook rows, likewise.
	if filepath.Base(os.Args[0]) == spawnName {
		os.Exit(runSpawn(os.Args[1:]))
	}
	var o options
	flag.StringVar(&o.sizes, "n", "100,1000", "plugin counts to generate, comma-separated")
	flag.IntVar(&o.runs, "runs", 10, "repetitions of each fast measurement (slow ones run fewer)")
	flag.BoolVar(&o.json, "json", false, "print results as JSON")
	flag.StringVar(&o.quiver, "quiver", "", "quiver binary to measure, its quiver-git beside it or on PATH (default: build ./cmd/quiver and ./cmd/quiver-git with CGO_ENABLED=0, as the README installs them)")
	flag.StringVar(&o.baseline, "baseline", defaultBaseline, "git revision whose quiver is built the same way and measured side by side (start-up, hook run, size, RSS); \"none\" for no baseline")
	flag.StringVar(&o.only, "only", "", "run only these groups of rows, comma-separated: startup, sizes, discovery, hookrun, persistent, add, network")
	flag.BoolVar(&o.keep, "keep", false, "keep the generated trees and print where they are")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintf(os.Stderr, "quiverbench: %v\n", err)
		os.Exit(1)
	}
}
