// Package hooks runs hooks: it parses event payloads, runs one hook process
// (the executor), and runs the merged, ordered hook set of an event while
// combining the results into one decision (the trigger), as SPEC §8 says.
//
// It receives the hook set from package discovery and never prints.
package hooks
