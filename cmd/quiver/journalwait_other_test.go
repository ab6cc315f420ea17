//go:build !linux

package main

import "time"

// waitForEntry polls until a name starting with prefix shows up in dir,
// or limit has passed.
func waitForEntry(dir, prefix string, limit time.Duration) { pollForEntry(dir, prefix, limit) }
