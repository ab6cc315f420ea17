// Package async owns the hook handlers that run in the background (SPEC
// §15): the `async` and `asyncRewake` handlers of agents that have no
// asynchronous hooks of their own, and every handler whose first line of
// stdout is `{"async": true, ...}`. A hook run gathers them in a Batch;
// an Owner, a detached `quiver hook collect` process, takes them over so
// that the hook run can answer at once; it kills each at its timeout or
// when its session ends, and writes what each said to the session's
// folder under the scope's state/async/, where the session's next event
// takes it (Take).
package async
