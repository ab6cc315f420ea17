package term

import "testing"

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		n         int
		one, want string
	}{
		{0, "plugin", "0 plugins"},
		{1, "plugin", "1 plugin"},
		{2, "entry", "2 entries"},
		{2, "key", "2 keys"},
		{3, "match", "3 matches"},
		{2, "project hook", "2 project hooks"},
		{1, "project hook", "1 project hook"},
		{4, "warning", "4 warnings"},
	} {
		if got := Count(tt.n, tt.one); got != tt.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tt.n, tt.one, got, tt.want)
		}
	}
	if got := Counts(2, "hook is", "hooks are"); got != "2 hooks are" {
		t.Errorf("Counts = %q", got)
	}
}
