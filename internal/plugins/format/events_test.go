package format

import (
	"slices"
	"testing"
)

// TestEventsStarting: completion offers the events a prefix starts, in
// the docs' order; an empty prefix, all of them.
func TestEventsStarting(t *testing.T) {
	if got := EventsStarting("a"); !slices.Equal(got, []string{AfterToolCall, AgentStop}) {
		t.Errorf("a: %q", got)
	}
	if got := EventsStarting(""); !slices.Equal(got, Events()) {
		t.Errorf("all: %q", got)
	}
	if got := EventsStarting("x"); got != nil {
		t.Errorf("x: %q", got)
	}
}
