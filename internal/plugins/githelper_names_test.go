package plugins

import (
	"slices"
	"testing"
)

// Every name GitErrorNames can give travels back to its error, and the
// list is sorted, as the answer of GitErrorNames must be.
func TestGitErrorNamesKnown(t *testing.T) {
	if !slices.IsSorted(gitErrorNames[:]) {
		t.Fatal("gitErrorNames is not sorted")
	}
	for _, name := range gitErrorNames {
		e, ok := gitError(name)
		if !ok || e == nil {
			t.Fatalf("gitError(%q) unknown", name)
		}
		if got := GitErrorNames(e); !slices.Contains(got, name) {
			t.Fatalf("GitErrorNames(%v) = %v, want %q in it", e, got, name)
		}
	}
	if _, ok := gitError("no-such-error"); ok {
		t.Fatal("an unknown name is known")
	}
}
