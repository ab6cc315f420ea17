package discovery

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins/format"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// setSummary is a hook set as callers see it.
func setSummary(hs *HookSet) string {
	var b []byte
	for _, h := range hs.Hooks {
		b = fmt.Appendf(b, "%s %s %s %q event=%s persistent=%v %s %s %s\n", h.Name, h.Location, h.Status, h.Reason, h.Event, h.Persistent, h.Path, h.Format, h.Plugin)
	}
	for _, sk := range hs.Skipped {
		b = fmt.Appendf(b, "skipped %+v\n", sk)
	}
	t := hs.Trust
	b = fmt.Appendf(b, "trust %v fp=%s rec=%s hooks=%d files=%d replaces=%v shadows=%v\n", t.Trusted(), t.Fingerprint, t.Recorded, len(t.Hooks), len(t.Files), t.Replaces, t.Shadows)
	return string(b)
}

// steady calls the session until it answers from memory, as it does
// while nothing changes.
func steady(t *testing.T, s *Session) {
	t.Helper()
	for range 5 {
		if _, err := s.Hooks(t.Context()); err != nil {
			t.Fatal(err)
		}
		if s.in.partial {
			return // a project that cannot be read is discovered at every call
		}
		if s.fresh {
			runs := s.runs
			if _, err := s.Hooks(t.Context()); err != nil {
				t.Fatal(err)
			}
			if s.runs != runs {
				t.Fatal("an unchanged state was discovered again")
			}
			return
		}
	}
	dirs, stats, ok := watchSet(s.o.Layout, s.in.srcs, s.last.Trust)
	t.Log(setSummary(s.last))
	t.Fatalf("the session never settled (watcher %v): partial %v retry %v stats %v ok %v %d dirs %+v", s.w != nil, s.in.partial, s.in.retryAt, stats, ok, len(dirs), s.stats)
}

// TestSessionSeesEveryChange: after each kind of change another quiver
// (or the user) makes, a session that was answering from memory answers
// exactly what a fresh discovery answers. Each step starts from a settled
// session, so a folder the session failed to watch shows as a stale
// answer.
func TestSessionSeesEveryChange(t *testing.T) {
	tr := newTree(t)
	clock := time.Now()
	o := tr.options()
	o.TrustAll = false
	o.KeepGoing = true
	o.Now = func() time.Time { return clock }
	g, l := plugins.Global, plugins.Local
	flag := filepath.Join(filepath.Dir(tr.count), "answer-now")
	gp := func(rel string) string { return filepath.Join(tr.root(g), "plugins", "acme@guard", rel) }
	lp := func(rel string) string { return filepath.Join(tr.root(l), "plugins", "team@tools", rel) }
	tr.hook(g, "plugins/acme@guard/hooks/check", format.BeforeToolCall)
	tr.hook(g, "hooks/mine", format.SessionStart)
	tr.write(g, "plugins/acme@guard/lib/target", hookScript(format.AfterToolCall), 0o755)
	os.Symlink("../lib/target", gp("hooks/linked"))
	os.MkdirAll(filepath.Join(tr.layout.ProjectDir, ".git"), 0o755)

	s := NewSession(o)
	defer s.Close()
	elsewhere := t.TempDir()
	trust := func() error { _, err := RecordTrust(tr.layout); return err }
	steps := []struct {
		name   string
		change func() error
	}{
		{"nothing", func() error { return nil }},
		{"install a global plugin", func() error { tr.hook(g, "plugins/org@new/hooks/h", format.TurnEnd); return nil }},
		{"install a project plugin", func() error {
			tr.hook(l, "plugins/team@tools/hooks/lint", format.AfterToolCall)
			tr.write(l, "plugins/team@tools/lib/util.sh", "echo 1", 0)
			return nil
		}},
		{"trust the project", trust},
		{"edit a file a trusted hook loads", func() error { return os.WriteFile(lp("lib/util.sh"), []byte("echo 2"), 0o644) }},
		{"trust again", trust},
		{"an empty folder in a trusted plugin", func() error { return os.Mkdir(lp("lib/more"), 0o755) }},
		{"a file in it", func() error { return os.WriteFile(lp("lib/more/x.py"), []byte("x"), 0o644) }},
		{"trust again", trust},
		{"node_modules beside the project's plugins", func() error {
			tr.write(l, "node_modules/m/index.js", "x", 0)
			return nil
		}},
		{"trust again", trust},
		{"a helper linked into a folder the walk skips", func() error {
			tr.write(l, "plugins/team@tools/.git/helper.sh", "echo 1", 0)
			return os.Symlink("../.git/helper.sh", lp("lib/helper.sh"))
		}},
		{"trust again", trust},
		{"edit the linked helper's target", func() error {
			return os.WriteFile(lp(".git/helper.sh"), []byte("echo 2"), 0o644)
		}},
		{"trust again", trust},
		{"a hard link to a file trust covers, outside every watched folder", func() error {
			return os.Link(lp("lib/util.sh"), filepath.Join(elsewhere, "util.sh"))
		}},
		{"a write through that hard link", func() error {
			return os.WriteFile(filepath.Join(elsewhere, "util.sh"), []byte("echo 3"), 0o644)
		}},
		{"trust again", trust},
		{"a standalone project hook", func() error { tr.hook(l, "hooks/local", format.UserMessageSend); return nil }},
		{"trust again", trust},
		{"a hook now declares another event", func() error {
			return os.WriteFile(gp("hooks/check"), []byte(hookScript(format.AgentStop)+"\n"), 0o755)
		}},
		{"chmod -x", func() error { return os.Chmod(gp("hooks/check"), 0o644) }},
		{"chmod +x", func() error { return os.Chmod(gp("hooks/check"), 0o755) }},
		{"rename to .disable", func() error {
			return os.Rename(filepath.Join(tr.root(g), "hooks/mine"), filepath.Join(tr.root(g), "hooks/mine.disable"))
		}},
		{"disable a plugin in the lock", func() error { tr.disable(g, "acme/guard"); return nil }},
		{"enable it again", func() error {
			s := tr.layout.Global
			lock, _ := plugins.ReadLock(s.LockPath())
			e := lock.Plugins["acme/guard"]
			e.Disabled = false
			lock.Plugins["acme/guard"] = e
			return plugins.WriteLock(s.LockPath(), lock)
		}},
		{"disable a project plugin", func() error { tr.disable(l, "team/tools"); return nil }},
		{"the linked hook's target changes", func() error {
			return os.WriteFile(gp("lib/target"), []byte(hookScript(format.TurnEnd)+"\n"), 0o755)
		}},
		{"the link points elsewhere", func() error {
			tr.write(g, "plugins/acme@guard/lib/other", hookScript(format.SessionStart), 0o755)
			os.Remove(gp("hooks/linked"))
			return os.Symlink("../lib/other", gp("hooks/linked"))
		}},
		{"add a Claude hooks.json", func() error {
			tr.write(g, "plugins/org@new/hooks/hooks.json", `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true"}]}]}}`, 0)
			return nil
		}},
		{"edit it", func() error {
			tr.write(g, "plugins/org@new/hooks/hooks.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}`, 0)
			return nil
		}},
		{"a manifest naming a configuration in a folder yet to come", func() error {
			tr.write(g, "plugins/acme@guard/.claude-plugin/plugin.json", `{"name":"guard","hooks":"./cfg/deep/h.json"}`, 0)
			return nil
		}},
		{"the configuration appears", func() error {
			tr.write(g, "plugins/acme@guard/cfg/deep/h.json", `{"hooks":{"format.SessionStart":[{"hooks":[{"type":"command","command":"true"}]}]}}`, 0)
			return nil
		}},
		{"edit the configuration", func() error {
			tr.write(g, "plugins/acme@guard/cfg/deep/h.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}`, 0)
			return nil
		}},
		{"swap a plugin folder", func() error {
			tmp := filepath.Join(tr.root(g), "plugins", ".new")
			os.MkdirAll(filepath.Join(tmp, "hooks"), 0o755)
			os.WriteFile(filepath.Join(tmp, "hooks", "swapped"), []byte(hookScript(format.BeforeToolCall)), 0o755)
			os.Rename(filepath.Join(tr.root(g), "plugins", "org@new"), filepath.Join(tr.root(g), "plugins", ".old"))
			return os.Rename(tmp, filepath.Join(tr.root(g), "plugins", "org@new"))
		}},
		{"a hook that cannot answer yet", func() error {
			tr.write(g, "hooks/late", "#!/bin/sh\n[ -e "+flag+" ] && echo turn_end && exit 0\nexit 1\n", 0o755)
			return nil
		}},
		{"it could answer, but its failure is kept a minute", func() error { return os.WriteFile(flag, nil, 0o644) }},
		{"a minute later", func() error { clock = clock.Add(RetryFailedAfter); return nil }},
		{"revoke trust", func() error { _, err := RevokeTrust(tr.layout); return err }},
		{"a broken project lock", func() error { return os.WriteFile(tr.layout.Local.LockPath(), []byte("version: 99\n"), 0o644) }},
		{"the lock mended", func() error { return os.Remove(tr.layout.Local.LockPath()) }},
		{"remove a plugin", func() error { return os.RemoveAll(filepath.Join(tr.root(g), "plugins", "org@new")) }},
		{"remove the project's .quiver", func() error { return os.RemoveAll(tr.root(l)) }},
		{"a new .quiver", func() error { tr.hook(l, "hooks/again", format.TurnEnd); return nil }},
		{"the project's .quiver becomes a link", func() error {
			other := filepath.Join(tr.layout.ProjectDir, "a")
			os.MkdirAll(filepath.Join(other, "hooks"), 0o755)
			os.WriteFile(filepath.Join(other, "hooks", "via-a"), []byte(hookScript(format.TurnEnd)), 0o755)
			os.RemoveAll(tr.root(l))
			return os.Symlink("a", tr.root(l))
		}},
		{"the link points elsewhere", func() error {
			other := filepath.Join(tr.layout.ProjectDir, "b")
			os.MkdirAll(filepath.Join(other, "hooks"), 0o755)
			os.WriteFile(filepath.Join(other, "hooks", "via-b"), []byte(hookScript(format.TurnEnd)), 0o755)
			tmp := filepath.Join(tr.layout.ProjectDir, "tmp-link")
			os.Symlink("b", tmp)
			return os.Rename(tmp, tr.root(l))
		}},
	}
	for _, st := range steps {
		steady(t, s)
		if err := st.change(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got, gerr := s.Hooks(t.Context())
		want, werr := Hooks(t.Context(), o)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("%s: session error %v, fresh %v", st.name, gerr, werr)
		}
		if gerr == nil && setSummary(got) != setSummary(want) {
			t.Fatalf("%s: the session answers\n%s\na fresh discovery\n%s", st.name, setSummary(got), setSummary(want))
		}
		if runs := s.runs; st.name != "nothing" && !s.in.partial {
			// The change costs this discovery and one more at most.
			steady(t, s)
			if s.runs-runs > 2 {
				t.Errorf("%s: %d full discoveries to settle", st.name, s.runs-runs)
			}
		}
	}
}

// TestSessionSeesRelinkedRoot: a scope root that is a symlink is watched
// where it leads, so relinking it is seen in the folder holding it.
func TestSessionSeesRelinkedRoot(t *testing.T) {
	tr := newTree(t)
	home := filepath.Dir(tr.root(plugins.Global))
	for _, d := range []string{"a", "b"} {
		os.MkdirAll(filepath.Join(home, d, "hooks"), 0o755)
		os.WriteFile(filepath.Join(home, d, "hooks", "in-"+d), []byte(hookScript(format.TurnEnd)), 0o755)
	}
	os.Symlink("a", tr.root(plugins.Global))
	s := NewSession(tr.options())
	defer s.Close()
	steady(t, s)
	tmp := filepath.Join(home, "tmp")
	os.Symlink("b", tmp)
	os.Rename(tmp, tr.root(plugins.Global))
	got, _ := s.Hooks(t.Context())
	if want := tr.hooks(tr.options()); setSummary(got) != setSummary(want) {
		t.Fatalf("the session answers\n%s\na fresh discovery\n%s", setSummary(got), setSummary(want))
	}
}

// TestSessionResultIsTheCallers: changing a returned set changes nothing
// the session answers next.
func TestSessionResultIsTheCallers(t *testing.T) {
	tr := newTree(t)
	tr.hook(plugins.Global, "hooks/a", format.SessionStart)
	s := NewSession(tr.options())
	defer s.Close()
	steady(t, s)
	hs, _ := s.Hooks(t.Context())
	want := setSummary(hs)
	hs.Hooks[0].Status, hs.Hooks = Invalid, append(hs.Hooks, Hook{Name: "x"})
	hs.Trust.Hooks = append(hs.Trust.Hooks, ProjectHook{})
	again, _ := s.Hooks(t.Context())
	if setSummary(again) != want {
		t.Fatalf("the session's set was changed through a result:\n%s", setSummary(again))
	}
}

// failingWatcher is a watcher that cannot add watches (ENOSPC).
type failingWatcher struct{}

func (failingWatcher) watch(string, []string, []string) (bool, error) {
	return false, fmt.Errorf("no space")
}
func (failingWatcher) changed() (bool, error) { return false, nil }
func (failingWatcher) close() error           { return nil }

// TestSessionWithoutWatches: when watches cannot be added (or there is no
// watching at all), every call is a full discovery.
func TestSessionWithoutWatches(t *testing.T) {
	tr := newTree(t)
	tr.hook(plugins.Global, "hooks/a", format.SessionStart)
	for _, w := range []watcher{failingWatcher{}, nil} {
		s := NewSession(tr.options())
		s.w = w
		for i := range 3 {
			hs, err := s.Hooks(t.Context())
			if err != nil || s.runs != i+1 || len(hs.Hooks) == 0 {
				t.Fatalf("call %d: %v, %d runs", i, err, s.runs)
			}
		}
		tr.hook(plugins.Global, "hooks/b", format.TurnEnd)
		hs, _ := s.Hooks(t.Context())
		if !reflect.DeepEqual(setSummary(hs), setSummary(tr.hooks(tr.options()))) {
			t.Fatal("a change was not seen")
		}
		os.Remove(filepath.Join(tr.root(plugins.Global), "hooks/b"))
	}
}

// TestSessionConcurrentRequests: pipelined requests share one session
// while another process changes hooks; after the last change every
// request answers as a fresh discovery.
func TestSessionConcurrentRequests(t *testing.T) {
	tr := newTree(t)
	tr.hook(plugins.Global, "hooks/a", format.SessionStart)
	s := NewSession(tr.options())
	defer s.Close()
	done := make(chan error)
	for i := range 4 {
		go func() {
			var err error
			for range 50 {
				if i%2 == 0 {
					_, err = s.ForEvent(t.Context(), format.SessionStart)
				} else {
					_, err = s.Hooks(t.Context())
				}
				if err != nil {
					break
				}
			}
			done <- err
		}()
	}
	for i := range 10 {
		tr.hook(plugins.Global, fmt.Sprintf("hooks/h%d", i), format.Events()[i%len(format.Events())])
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	want := tr.hooks(tr.options())
	got, err := s.Hooks(t.Context())
	if err != nil || setSummary(got) != setSummary(want) {
		t.Fatalf("after the changes: %v\n%s\nwant\n%s", err, setSummary(got), setSummary(want))
	}
	e, _ := s.ForEvent(t.Context(), format.SessionStart)
	if fmt.Sprint(e.Hooks) != fmt.Sprint(want.ForEvent(format.SessionStart)) || e.Untrusted != want.UntrustedCount() {
		t.Fatalf("ForEvent: %+v", e)
	}
}
