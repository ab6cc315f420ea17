package plugins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeTree creates files under dir; names ending in "*" are made
// executable (the star is dropped).
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		mode := os.FileMode(0o644)
		if n, ok := strings.CutSuffix(name, "*"); ok {
			name, mode = n, 0o755
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
}

type fixture struct {
	in       *Installer
	name     Name
	v1, v2   Spec
	h1, h2   string
	recovery []string
}

// newFixture installs v1 of acme/guard from a plain folder into a fresh
// local scope and prepares v2.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	src := t.TempDir()
	writeTree(t, filepath.Join(src, "v1"), map[string]string{"hooks/check*": "#!/bin/sh\n", "recipes/a.md": "v1"})
	writeTree(t, filepath.Join(src, "v2"), map[string]string{"hooks/check*": "#!/bin/sh\n", "recipes/b.md": "v2", "skills/s/SKILL.md": "s"})
	f := &fixture{name: mustName(t, "acme/guard")}
	f.in = &Installer{
		Scope:     Scope{Location: Local, Root: filepath.Join(t.TempDir(), ".quiver")},
		Fetcher:   &Fetcher{},
		OnRecover: func(m string) { f.recovery = append(f.recovery, m) },
	}
	for i, v := range []string{"v1", "v2"} {
		spec, err := ParseSpec("./"+v, "", src)
		if err != nil {
			t.Fatal(err)
		}
		d, err := HashDir(spec.Path)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			f.v1, f.h1 = spec, d.Sum
		} else {
			f.v2, f.h2 = spec, d.Sum
		}
	}
	if _, err := f.in.Add(t.Context(), AddRequest{Spec: f.v1, Name: f.name}); err != nil {
		t.Fatal(err)
	}
	return f
}

func mustName(t *testing.T, s string) Name {
	t.Helper()
	n, err := ParseName(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// state returns the content hash of the installed folder and of its lock
// entry, and fails on any leftover beside the plugins.
func (f *fixture) state(t *testing.T) (disk, locked string) {
	t.Helper()
	d, err := HashDir(f.in.Scope.PluginDir(f.name))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := ReadLock(f.in.Scope.LockPath())
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(f.in.Scope.PluginsDir())
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("leftover %s", e.Name())
		}
	}
	return d.Sum, lock.Plugins[f.name.String()].Hash
}

// stageV2 puts a complete v2 at a staging path and writes the journal for
// installing it, as Add does just before the swap.
func (f *fixture) stageV2(t *testing.T) (stage, backup string) {
	t.Helper()
	stage = f.in.tempPath(".stage-", f.name)
	if err := copyTree(f.v2.Path, stage); err != nil {
		t.Fatal(err)
	}
	backup = f.in.tempPath(".backup-", f.name)
	e := LockEntry{Source: f.v2.Source(), Hash: f.h2}
	if err := f.in.writeJournal(f.name, journal{Op: opInstall, Stage: filepath.Base(stage), Backup: filepath.Base(backup), Entry: &e}); err != nil {
		t.Fatal(err)
	}
	return stage, backup
}

// Each case leaves the state a kill at one point of a replace leaves; the
// next command must end with the complete old or new plugin and a lock
// that says which.
func TestRepairInterruptedReplace(t *testing.T) {
	tests := []struct {
		name  string
		crash func(t *testing.T, f *fixture)
		want  func(f *fixture) string
	}{
		{"staging folder without journal", func(t *testing.T, f *fixture) {
			os.MkdirAll(filepath.Join(f.in.tempPath(".stage-", f.name), "hooks"), 0o755)
		}, func(f *fixture) string { return f.h1 }},
		{"journal written, not swapped", func(t *testing.T, f *fixture) {
			f.stageV2(t)
		}, func(f *fixture) string { return f.h1 }},
		{"swapped, lock not written", func(t *testing.T, f *fixture) {
			stage, _ := f.stageV2(t)
			if err := exchange(stage, f.in.Scope.PluginDir(f.name)); err != nil {
				t.Fatal(err)
			}
		}, func(f *fixture) string { return f.h2 }},
		{"fallback: old moved away, new not in", func(t *testing.T, f *fixture) {
			_, backup := f.stageV2(t)
			if err := os.Rename(f.in.Scope.PluginDir(f.name), backup); err != nil {
				t.Fatal(err)
			}
		}, func(f *fixture) string { return f.h1 }},
		{"fallback: both renames done", func(t *testing.T, f *fixture) {
			stage, backup := f.stageV2(t)
			os.Rename(f.in.Scope.PluginDir(f.name), backup)
			os.Rename(stage, f.in.Scope.PluginDir(f.name))
		}, func(f *fixture) string { return f.h2 }},
		{"torn journal", func(t *testing.T, f *fixture) {
			os.WriteFile(f.in.journalPath(f.name), []byte(`{"op":"inst`), 0o644)
		}, func(f *fixture) string { return f.h1 }},
		{"journal naming a path outside", func(t *testing.T, f *fixture) {
			os.WriteFile(f.in.journalPath(f.name), []byte(`{"op":"install","stage":"../../x"}`), 0o644)
		}, func(f *fixture) string { return f.h1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			tt.crash(t, f)
			if err := f.in.Repair(t.Context()); err != nil {
				t.Fatal(err)
			}
			disk, locked := f.state(t)
			if want := tt.want(f); disk != want || locked != want {
				t.Errorf("disk %s, lock %s; want both %s", disk, locked, want)
			}
			if _, err := os.Stat(f.in.journalPath(f.name)); err == nil {
				t.Error("journal left behind")
			}
		})
	}
}

func TestRepairInterruptedRemove(t *testing.T) {
	for _, renamed := range []bool{false, true} {
		f := newFixture(t)
		trash := f.in.tempPath(".trash-", f.name)
		if err := f.in.writeJournal(f.name, journal{Op: opRemove, Stage: filepath.Base(trash)}); err != nil {
			t.Fatal(err)
		}
		if renamed {
			os.Rename(f.in.Scope.PluginDir(f.name), trash)
		}
		if err := f.in.Repair(t.Context()); err != nil {
			t.Fatal(err)
		}
		lock, _ := ReadLock(f.in.Scope.LockPath())
		_, inLock := lock.Plugins[f.name.String()]
		_, statErr := os.Stat(f.in.Scope.PluginDir(f.name))
		if inLock == renamed || (statErr == nil) == renamed {
			t.Errorf("renamed=%v: in lock %v, folder error %v", renamed, inLock, statErr)
		}
		if _, err := os.Lstat(trash); err == nil {
			t.Errorf("renamed=%v: trash left behind", renamed)
		}
	}
}

// A --force replace whose new version is not a plugin keeps the old one.
func TestForceReplaceFailureKeepsOld(t *testing.T) {
	f := newFixture(t)
	empty := t.TempDir()
	writeTree(t, empty, map[string]string{"README.md": "nothing"})
	spec, _ := ParseSpec(empty, "", "/")
	_, err := f.in.Add(t.Context(), AddRequest{Spec: spec, Name: f.name, Force: true})
	if !errors.Is(err, ErrNotAPlugin) {
		t.Fatalf("err = %v, want ErrNotAPlugin", err)
	}
	disk, locked := f.state(t)
	if disk != f.h1 || locked != f.h1 {
		t.Errorf("old version not intact: disk %s lock %s", disk, locked)
	}
	// And a good replace lands completely.
	if _, err := f.in.Add(t.Context(), AddRequest{Spec: f.v2, Name: f.name, Force: true}); err != nil {
		t.Fatal(err)
	}
	if disk, locked := f.state(t); disk != f.h2 || locked != f.h2 {
		t.Errorf("after replace: disk %s lock %s, want %s", disk, locked, f.h2)
	}
}

func TestReplaceKeepsDisabledAndData(t *testing.T) {
	f := newFixture(t)
	lock, _ := ReadLock(f.in.Scope.LockPath())
	e := lock.Plugins[f.name.String()]
	e.Disabled = true
	lock.Plugins[f.name.String()] = e
	WriteLock(f.in.Scope.LockPath(), lock)
	data := f.in.Scope.DataDir(f.name)
	writeTree(t, data, map[string]string{"state.json": "{}"})
	p, err := f.in.Add(t.Context(), AddRequest{Spec: f.v2, Name: f.name, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Enabled() {
		t.Error("replace enabled a disabled plugin")
	}
	if _, err := os.Stat(filepath.Join(data, "state.json")); err != nil {
		t.Errorf("data lost: %v", err)
	}
}

func TestScopeLockWaitsThenFails(t *testing.T) {
	f := newFixture(t)
	unlock, err := holdScope(t.Context(), f.in.Scope, time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	waited := 0
	f.in.LockWait = 150 * time.Millisecond
	f.in.OnWait = func() { waited++ }
	_, err = f.in.Add(t.Context(), AddRequest{Spec: f.v2, Name: f.name, Force: true})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("err = %v, want ErrBusy", err)
	}
	if waited != 1 {
		t.Errorf("OnWait called %d times, want 1", waited)
	}
	if disk, _ := f.state(t); disk != f.h1 {
		t.Error("plugin changed while the scope was locked")
	}
}

// A failed command in a fresh scope unlinks the lock file and then
// releases it; a waiter that was blocked on the old file must end up
// holding the file now at the path, so that mutual exclusion holds.
func TestScopeLockSurvivesUnlink(t *testing.T) {
	s := Scope{Location: Local, Root: filepath.Join(t.TempDir(), ".quiver")}
	unlock, err := holdScope(t.Context(), s, time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan func(), 1)
	waiting := make(chan struct{})
	go func() {
		// onWait runs once the waiter has found the old file locked, so
		// it is polling it when the file goes (no sleep standing in for
		// that).
		u, err := holdScope(context.Background(), s, 5*time.Second, func() { close(waiting) })
		if err != nil {
			t.Error(err)
		}
		got <- u
	}()
	<-waiting
	os.Remove(s.mutexPath())
	unlock()
	u := <-got
	if u == nil {
		return
	}
	defer u()
	if _, err := holdScope(t.Context(), s, 100*time.Millisecond, nil); !errors.Is(err, ErrBusy) {
		t.Fatalf("a third command got the lock while the waiter held it (err %v)", err)
	}
}

func TestFailedFirstAddLeavesNoScope(t *testing.T) {
	root := filepath.Join(t.TempDir(), ".quiver")
	in := &Installer{Scope: Scope{Location: Local, Root: root}, Fetcher: &Fetcher{}}
	empty := t.TempDir()
	spec, _ := ParseSpec(empty, "", "/")
	if _, err := in.Add(t.Context(), AddRequest{Spec: spec, Name: mustName(t, "a/b")}); err == nil {
		t.Fatal("empty folder installed")
	}
	if _, err := os.Stat(root); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("scope root left behind: %v", err)
	}
}

// TestExplainScope: a plugin in the other scope names the -g to give or
// drop for the command; one not installed points to plugin list; other
// errors pass as they are.
func TestExplainScope(t *testing.T) {
	n := mustName(t, "acme/guard")
	for _, c := range []struct {
		err  error
		want string
	}{
		{&WrongScopeError{Name: n, In: Global}, "plugin acme/guard is installed globally; use -g to remove it"},
		{&WrongScopeError{Name: n, In: Local}, "plugin acme/guard is installed in the project, not globally; drop -g to remove it"},
		{fmt.Errorf("plugin acme/guard %w", ErrNotInstalled), "plugin acme/guard " + ErrNotInstalled.Error() + "; see quiver plugin list"},
		{errors.New("disk full"), "disk full"},
	} {
		if got := ExplainScope(c.err, "remove"); got.Error() != c.want {
			t.Errorf("ExplainScope(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	if !errors.Is(ExplainScope(ErrNotInstalled, "update"), ErrNotInstalled) {
		t.Error("ExplainScope lost ErrNotInstalled")
	}
}

// TestInstallerOutdated: plugin outdated asks each locked plugin what
// update would do and changes nothing: a plain folder is local, even
// with its folder edited (the check is forced).
func TestInstallerOutdated(t *testing.T) {
	f := newFixture(t)
	os.WriteFile(filepath.Join(f.in.Scope.PluginDir(f.name), "recipes", "a.md"), []byte("edited"), 0o644)
	diskBefore, lockBefore := f.state(t)
	out, failed, err := f.in.Outdated(t.Context(), nil)
	if err != nil || failed || len(out) != 1 || out[0].Name != "acme/guard" || !out[0].Local || out[0].Location != "local" {
		t.Fatalf("Outdated = %+v, %v, %v", out, failed, err)
	}
	if disk, lock := f.state(t); disk != diskBefore || lock != lockBefore {
		t.Error("Outdated changed the scope")
	}
}
