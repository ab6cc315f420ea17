package plugins

import (
	"errors"
	"fmt"
	"testing"
)

func TestShortForms(t *testing.T) {
	sha := "4f1c2ab0000000000000000000000000000000aa"
	tests := []struct{ got, want string }{
		{ShortRef(sha), "4f1c2ab"},
		{ShortRef("v1.2.0"), "v1.2.0"},
		{ShortRef("feature/" + sha[:32]), "feature/" + sha[:32]},
		{ShortCommit(sha), "4f1c2ab"},
		{ShortCommit("abc"), "abc"},
		{ShortCommit(""), ""},
		{Global.Where(), "globally"},
		{Local.Where(), "in the project"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}

func TestLockEntryInstalled(t *testing.T) {
	tests := []struct {
		e    LockEntry
		want string
	}{
		{LockEntry{Ref: "v1.2.0", Commit: "4f1c2ab9999"}, " (v1.2.0, 4f1c2ab)"},
		{LockEntry{Commit: "4f1c2ab9999"}, " (4f1c2ab)"},
		// A marketplace entry pinned to its commit says it once.
		{LockEntry{Ref: "340e33a0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0", Commit: "340e33a0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0"}, " (340e33a)"},
		{LockEntry{Ref: "340e33a", Commit: "340e33a0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0"}, " (340e33a)"},
		{LockEntry{Link: true, Source: "/src/x"}, " (linked to /src/x)"},
		{LockEntry{Source: "/src/x"}, " (copied from /src/x)"},
	}
	for _, tt := range tests {
		if got := tt.e.Installed(); got != tt.want {
			t.Errorf("%+v: got %q, want %q", tt.e, got, tt.want)
		}
	}
}

func TestCountItems(t *testing.T) {
	c := Contents{Hooks: []Item{{Name: "a"}}, Skills: []Item{{Name: "s"}, {Name: "t"}}}
	if got, want := CountItems(c, 2), "3 hooks, 2 skills, 0 recipes"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := CountItems(c, 0), "1 hook, 2 skills, 0 recipes"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestUpdateResultDescribe(t *testing.T) {
	n, _ := ParseName("acme/guard")
	tests := []struct {
		r    UpdateResult
		want string
	}{
		{UpdateResult{Name: n, Status: Updated, From: "1111111aaa", To: "2222222bbb"}, "Updated acme/guard 1111111 -> 2222222"},
		{UpdateResult{Name: n, Status: WouldUpdate, From: "1111111aaa", To: "2222222bbb"}, "Would update acme/guard 1111111 -> 2222222"},
		{UpdateResult{Name: n, Status: WouldUpdate, From: "1111111aaa", Ref: "main"}, "Would update acme/guard 1111111 -> main"},
		{UpdateResult{Name: n, Status: Pinned, Ref: "v1"}, "acme/guard is pinned at v1; move it with plugin update acme/guard --ref REF"},
		{UpdateResult{Name: n, Status: LocalSource}, "acme/guard is a local folder; reinstall it with plugin add --force"},
		{UpdateResult{Name: n, Status: UpToDate, To: "2222222bbb"}, "acme/guard is already up to date (2222222)"},
	}
	for _, tt := range tests {
		t.Run(tt.r.Status, func(t *testing.T) {
			if got := tt.r.Describe(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	err := Usagef("--%s applies to a single spec", "path")
	if !errors.Is(err, ErrUsage) || err.Error() != "--path applies to a single spec" {
		t.Errorf("Usagef: %v (is ErrUsage: %v)", err, errors.Is(err, ErrUsage))
	}
	wrapped := AsUsage(fmt.Errorf("bad: %w", ErrInvalidName))
	if !errors.Is(wrapped, ErrUsage) || !errors.Is(wrapped, ErrInvalidName) || wrapped.Error() != "bad: "+ErrInvalidName.Error() {
		t.Errorf("AsUsage: %v", wrapped)
	}
	if AsUsage(nil) != nil {
		t.Error("AsUsage(nil) is not nil")
	}
	if errors.Is(errors.New("x"), ErrUsage) {
		t.Error("a plain error is ErrUsage")
	}
}
