package plugins

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveLayout: --project beats QUIVER_PROJECT_DIR, which beats the
// working directory; an agent's absolute session root stands for both of
// the latter, a relative one for nothing; QUIVER_HOME is the global root.
func TestResolveLayout(t *testing.T) {
	base := t.TempDir()
	dir := func(name string) string {
		d := filepath.Join(base, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	wd, env, flag, session, home := dir("wd"), dir("env"), dir("flag"), dir("session"), filepath.Join(base, "qh")
	for _, c := range []struct {
		name, flag, env, session, want string
	}{
		{"working directory", "", "", "", wd},
		{"variable", "", env, "", env},
		{"flag", flag, env, "", flag},
		{"session root", "", env, session, session},
		{"flag beats the session", flag, env, session, flag},
		{"relative session root", "", env, "session", env},
	} {
		t.Run(c.name, func(t *testing.T) {
			vars := map[string]string{"QUIVER_PROJECT_DIR": c.env, "QUIVER_HOME": home}
			l, err := ResolveLayout(c.flag, c.session, func(k string) string { return vars[k] }, func() (string, error) { return wd, nil }, func(string) {})
			if err != nil {
				t.Fatal(err)
			}
			if l.ProjectDir != c.want || l.Global.Root != home || l.Local.Root != filepath.Join(c.want, ".quiver") {
				t.Errorf("project %s, global %s, local %s; want project %s, global %s", l.ProjectDir, l.Global.Root, l.Local.Root, c.want, home)
			}
		})
	}
	if _, err := ResolveLayout(filepath.Join(base, "none"), "", func(string) string { return home }, func() (string, error) { return wd, nil }, nil); err == nil {
		t.Error("a --project that does not exist resolved")
	}
}

// TestNewInstallerKnowsTheOtherScope: an installer of either scope can
// say where else a plugin is; one of a project that is the home has no
// other scope.
func TestNewInstallerKnowsTheOtherScope(t *testing.T) {
	home := filepath.Join(t.TempDir(), ".quiver")
	l := NewLayout(t.TempDir(), home)
	if in := NewInstaller(l, false); in.Scope.Location != Local || in.Other == nil || in.Other.Location != Global {
		t.Errorf("project installer: %+v, other %+v", in.Scope, in.Other)
	}
	if in := NewInstaller(l, true); in.Scope.Location != Global || in.Other == nil || in.Other.Location != Local {
		t.Errorf("global installer: %+v, other %+v", in.Scope, in.Other)
	}
	if in := NewInstaller(NewLayout(filepath.Dir(home), home), false); in.Scope.Location != Global || in.Other != nil {
		t.Errorf("home as project: %+v, other %+v", in.Scope, in.Other)
	}
}

// TestNewFetcherCredentials: QUIVER_GIT_TOKEN beats GITHUB_TOKEN, for
// QUIVER_GIT_BASE; a git configuration that does not parse is reported
// once, and the fetch goes on without it.
func TestNewFetcherCredentials(t *testing.T) {
	vars := map[string]string{"HOME": t.TempDir(), "GITHUB_TOKEN": "gh", "QUIVER_GIT_BASE": "https://git.example.com"}
	getenv := func(k string) string { return vars[k] }
	f := NewFetcher(getenv)
	if f.Credentials.Token != "gh" || f.Credentials.Base != "https://git.example.com" {
		t.Errorf("GITHUB_TOKEN: %+v", f.Credentials)
	}
	vars["QUIVER_GIT_TOKEN"] = "qv"
	if f := NewFetcher(getenv); f.Credentials.Token != "qv" {
		t.Errorf("QUIVER_GIT_TOKEN: token %q", f.Credentials.Token)
	}
	vars["GIT_CONFIG_GLOBAL"] = filepath.Join(vars["HOME"], "gitconfig")
	os.WriteFile(vars["GIT_CONFIG_GLOBAL"], []byte("[url \"x\n"), 0o644)
	f = NewFetcher(getenv)
	var heard []string
	f.OnConfigError = func(err error) { heard = append(heard, err.Error()) }
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	for range 2 {
		if _, _, err := f.Latest(t.Context(), repo, ""); !errors.Is(err, ErrEmptyRepo) {
			t.Errorf("Latest of an empty repository = %v, want ErrEmptyRepo", err)
		}
	}
	if len(heard) != 1 || !strings.Contains(heard[0], "does not parse") {
		t.Errorf("a broken git configuration: heard %q, want it once", heard)
	}
}

// TestLayoutRoots: doctor names the project's root, then the home's; a
// project that is the home has one.
func TestLayoutRoots(t *testing.T) {
	if got := NewLayout("/p", "/h/.quiver").Roots(); got != "/p/.quiver and /h/.quiver" {
		t.Errorf("Roots() = %q", got)
	}
	if got := NewLayout("/h", "/h/.quiver").Roots(); got != "/h/.quiver" {
		t.Errorf("home as project: Roots() = %q", got)
	}
}
