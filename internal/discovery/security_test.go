package discovery

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// A guard whose first `hook` answer is too slow (a cold start) must not be
// switched off for good: the failure is kept for a minute at most, then
// the hook is asked again, and a real answer is kept for good. Meanwhile
// ForEvent hands it to the runtime as invalid, so a --fail-closed run
// blocks instead of running without it.
func TestSlowFirstAnswerIsAskedAgain(t *testing.T) {
	tr := newTree(t)
	slowOnce := filepath.Join(filepath.Dir(tr.count), "slow-once")
	if err := os.WriteFile(slowOnce, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tr.write(plugins.Global, "hooks/guard", `#!/bin/sh
if [ "$1" = hook ]; then
  echo "$0" >> "$QUIVER_TEST_ASKED"
  if [ -e "`+slowOnce+`" ]; then rm "`+slowOnce+`"; sleep 5; fi
  echo before_tool_call
fi
exit 0
`, 0o755)
	now := time.Unix(1_800_000_000, 0)
	o := tr.options()
	o.QueryTimeout = 300 * time.Millisecond
	o.Now = func() time.Time { return now }

	hs := tr.hooks(o)
	if got := hookSummary(hs); len(got) != 1 || !strings.Contains(got[0], "guard invalid (did not answer `hook` within 300ms)") {
		t.Fatalf("first discovery: %v", got)
	}
	if got := hs.ForEvent(format.BeforeToolCall); len(got) != 1 || got[0].Status != Invalid {
		t.Fatalf("ForEvent hides the invalid guard: %+v", got)
	}
	if got := tr.asked(); len(got) != 1 {
		t.Fatalf("asked %v, want the guard once", got)
	}

	// Within the minute: the failure stands, and nobody is asked.
	now = now.Add(59 * time.Second)
	if got := hookSummary(tr.hooks(o)); !strings.Contains(got[0], "invalid") {
		t.Fatalf("within a minute: %v", got)
	}
	if got := tr.asked(); len(got) != 0 {
		t.Fatalf("asked %v within a minute of the failure", got)
	}

	// A minute later: asked again, answers, and the answer is kept.
	now = now.Add(time.Second)
	hs = tr.hooks(o)
	if got := hookSummary(hs); len(got) != 1 || got[0] != "guard active" {
		t.Fatalf("a minute later: %v", got)
	}
	if got := hs.ForEvent(format.BeforeToolCall); len(got) != 1 || got[0].Status != Active {
		t.Fatalf("ForEvent: %+v", got)
	}
	tr.asked()
	now = now.Add(24 * time.Hour)
	tr.hooks(o)
	if got := tr.asked(); len(got) != 0 {
		t.Fatalf("a real answer was asked again: %v", got)
	}
}

// An interrupted question teaches nothing: no failure is cached for a
// hook that was never really asked.
func TestInterruptedQuestionIsNotCached(t *testing.T) {
	tr := newTree(t)
	tr.hook(plugins.Global, "hooks/guard", format.BeforeToolCall)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	o := tr.options()
	hs, err := Hooks(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if hs.Hooks[0].Status != Invalid {
		t.Fatalf("interrupted: %+v", hs.Hooks[0])
	}
	if got := hookSummary(tr.hooks(o)); got[0] != "guard active" {
		t.Fatalf("after an interrupted question: %v", got)
	}
}

// An invalid hook whose name an active hook holds is no guard gone
// missing: ForEvent leaves it out.
func TestForEventLeavesOutInvalidHooksWhoseNameIsHeld(t *testing.T) {
	hs := &HookSet{Hooks: []Hook{
		{Name: "guard", Status: Invalid, Reason: "crashed"},
		{Name: "guard", Status: Active, Event: format.BeforeToolCall},
		{Name: "other", Status: Invalid, Reason: "crashed"},
		{Name: "typed", Status: Invalid, Event: format.AfterToolCall, Reason: "x"},
		{Name: "shadowed", Status: Shadowed},
	}}
	var got []string
	for _, h := range hs.ForEvent(format.BeforeToolCall) {
		got = append(got, h.Name+" "+string(h.Status))
	}
	if strings.Join(got, ", ") != "guard active, other invalid" {
		t.Fatalf("ForEvent = %v", got)
	}
}

// Concurrent trusts in several projects and a revocation beside them: the
// trust store loses no record, and the revocation stays (SPEC §9).
func TestTrustStoreUpdatesAreSerialized(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	const n = 8
	for round := range 5 {
		var layouts []plugins.Layout
		for i := range n {
			project := filepath.Join(t.TempDir(), "p")
			l := plugins.NewLayout(project, home)
			p := filepath.Join(l.Local.Root, "hooks", "h")
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte("#!/bin/sh\n# "+string(rune('a'+i))+"\n"), 0o755)
			layouts = append(layouts, l)
		}
		if _, err := RecordTrust(layouts[0]); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i, l := range layouts {
			wg.Go(func() {
				var err error
				if i == 0 {
					_, err = RevokeTrust(l)
				} else {
					_, err = RecordTrust(l)
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		for i, l := range layouts {
			tt, err := ProjectTrust(l, false)
			if err != nil {
				t.Fatal(err)
			}
			if want := i != 0; tt.Trusted() != want {
				t.Fatalf("round %d: project %d trusted = %v, want %v", round, i, tt.Trusted(), want)
			}
		}
	}
}

// TestRenewTrustOnlyForTheUsersChange: after a plugin command the user
// ran by name in a trusted project, trust is renewed for what that plugin
// changed, and not when anything else changed meanwhile (a pull that
// added a hook during the fetch is not the user's choice).
func TestRenewTrustOnlyForTheUsersChange(t *testing.T) {
	for _, foreign := range []bool{false, true} {
		t.Run(fmt.Sprintf("foreign=%v", foreign), func(t *testing.T) {
			tr := newTree(t)
			tr.hook(plugins.Local, "hooks/mine", format.BeforeToolCall)
			if _, err := RecordTrust(tr.layout); err != nil {
				t.Fatal(err)
			}
			before, err := SnapshotTrust(tr.layout)
			if err != nil || !before.Matched() {
				t.Fatalf("not as recorded before: %v", err)
			}
			// The user's change: a plugin with a hook, and its lock entry.
			tr.hook(plugins.Local, "plugins/acme@guard/hooks/check", format.BeforeToolCall)
			s := plugins.Scope{Location: plugins.Local, Root: tr.root(plugins.Local)}
			lock, _ := plugins.ReadLock(s.LockPath())
			lock.Plugins["acme/guard"] = plugins.LockEntry{Source: "https://example.com/acme/guard.git", Commit: strings.Repeat("a", 40)}
			if err := plugins.WriteLock(s.LockPath(), lock); err != nil {
				t.Fatal(err)
			}
			if foreign {
				tr.hook(plugins.Local, "hooks/pulled", format.BeforeToolCall)
			}
			name, _ := plugins.ParseName("acme/guard")
			// The user typed its source.
			if err := ChoosePlugins(tr.layout, []plugins.Name{name}); err != nil {
				t.Fatal(err)
			}
			r, err := RenewTrust(tr.layout, before, Change{Plugins: []plugins.Name{name}})
			if err != nil {
				t.Fatal(err)
			}
			others := r.Foreign
			after, err := ProjectTrust(tr.layout, false)
			if err != nil {
				t.Fatal(err)
			}
			if foreign {
				if len(others) != 1 || !strings.HasSuffix(others[0], ".quiver/hooks/pulled") {
					t.Errorf("foreign changes: %v", others)
				}
				if after.Trusted() {
					t.Errorf("a hook that arrived meanwhile was trusted in the user's name")
				}
				return
			}
			if len(others) != 0 || !after.Trusted() {
				t.Errorf("the user's own change was not trusted: %v", others)
			}
		})
	}
}

// TestTrustRecordVersions: a record of an earlier version (one
// fingerprint over the lock and the hooks, no state) holds for what it
// covered; a record of this version with an empty state (an empty lock)
// is not taken for one, so a marketplace a pull adds is seen (third
// attack review of contract v3, A4).
func TestTrustRecordVersions(t *testing.T) {
	tr := newTree(t)
	tr.hook(plugins.Local, "hooks/mine", format.BeforeToolCall)
	t0, err := ProjectTrust(tr.layout, false)
	if err != nil {
		t.Fatal(err)
	}
	lock, _ := plugins.ReadLock(tr.layout.Local.LockPath())
	hooks, _ := hooksParts(tr.layout.ProjectDir, t0, nil)
	legacy := hashParts(append(lockParts(lock), hooks...))
	if err := updateTrustStore(tr.layout, func(ts *trustStore) error {
		ts.Projects[tr.layout.ProjectDir] = trustRecord{Fingerprint: legacy}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if tt, _ := ProjectTrust(tr.layout, false); !tt.Trusted() || !tt.Matched() {
		t.Fatalf("an earlier version's record no longer holds: %+v", tt)
	}
	// Recorded in this version's shape, with an empty lock.
	if _, err := RecordTrust(tr.layout); err != nil {
		t.Fatal(err)
	}
	s := *tr.layout.Local
	lock.Marketplaces["tools"] = plugins.MarketplaceEntry{Source: "https://github.com/evil/market.git"}
	if err := plugins.WriteLock(s.LockPath(), lock); err != nil {
		t.Fatal(err)
	}
	tt, _ := ProjectTrust(tr.layout, false)
	if !tt.Trusted() || tt.Matched() {
		t.Fatalf("a pulled marketplace went unseen: trusted %v matched %v", tt.Trusted(), tt.Matched())
	}
}
