package plugins_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// The test git server's address, which the stories set as QUIVER_GIT_BASE.
const loopBase = "http://127.0.0.1:8080"

func TestCheckFileSource(t *testing.T) {
	tests := []struct {
		name, src, base string
		want            string // "" to accept; else a word the error says
	}{
		// What a stranger may name: https, ssh, scp-like, org/repo.
		{"https", "https://github.com/acme/guard.git", loopBase, ""},
		{"https without .git, deep path", "https://gitlab.com/group/sub/acme/guard", loopBase, ""},
		{"https with port", "https://git.example.com:8443/acme/guard.git", "", ""},
		{"ssh with user", "ssh://git@github.com/acme/guard.git", loopBase, ""},
		{"ssh with port", "ssh://github.com:2222/acme/guard.git", loopBase, ""},
		{"scp-like", "git@github.com:acme/guard.git", loopBase, ""},
		{"scp-like without user", "github.com:acme/guard", loopBase, ""},
		{"shorthand", "acme/guard", loopBase, ""},
		{"shorthand with folder", "acme/tools/plugins/guard", loopBase, ""},

		// Anything under the user's own QUIVER_GIT_BASE, whatever its scheme.
		{"http under base", loopBase + "/acme/guard.git", loopBase, ""},
		{"http under base, other case", "HTTP://127.0.0.1:8080/acme/guard.git", loopBase, ""},
		{"http under base with slash", loopBase + "/acme/guard.git", loopBase + "/", ""},
		{"http under base path", loopBase + "/mirror/acme/guard.git", loopBase + "/mirror", ""},
		{"file under a file base", "file:///srv/mirror/acme/guard.git", "file:///srv/mirror", ""},

		// Plain http anywhere else.
		{"http elsewhere", "http://attacker.example/x.git", loopBase, "plain http"},
		{"http at another port", "http://127.0.0.1:9999/acme/guard.git", loopBase, "plain http"},
		{"http at a longer host", "http://127.0.0.1.attacker.example:8080/acme/guard.git", loopBase, "plain http"},
		{"http beside the base path", loopBase + "/mirrorevil/acme/guard.git", loopBase + "/mirror", "plain http"},
		{"http leaving the base path", loopBase + "/mirror/../acme/guard.git", loopBase + "/mirror", "not a valid source"},
		{"http leaving it, escaped", loopBase + "/mirror/%2e%2e/acme/guard.git", loopBase + "/mirror", "not a valid source"},
		{"http with the default base", loopBase + "/acme/guard.git", "", "plain http"},
		{"http at the base root", loopBase + "/", loopBase, "not a valid source"},

		// This machine's files.
		{"file URL", "file:///etc", loopBase, "this machine"},
		{"file URL with localhost", "file://localhost/home/u/.aws", loopBase, "this machine"},
		{"file URL beside a file base", "file:///srv/mirrorevil/x.git", "file:///srv/mirror", "this machine"},
		{"absolute path", "/etc/passwd", loopBase, "this machine"},
		{"relative path", "./plugin", loopBase, "this machine"},
		{"parent path", "../x", loopBase, "this machine"},
		{"dot", ".", loopBase, "this machine"},
		{"home path", "~/x", loopBase, "not a valid source"},

		// Options and programs for git or ssh.
		{"option", "-oProxyCommand=x", loopBase, "starts with '-'"},
		{"option with a space", "-oProxyCommand=touch pwned", loopBase, "starts with '-'"},
		{"upload-pack", "--upload-pack=touch", loopBase, "starts with '-'"},
		{"scp-like option as host", "-oProxyCommand:x/y", loopBase, "starts with '-'"},
		{"scp-like host option", "git@-oProxyCommand:x/y", loopBase, "starting with '-'"},
		{"scp-like path option", "host:-x/y", loopBase, "starting with '-'"},
		{"ssh host option", "ssh://-oProxyCommand=x/acme/guard.git", loopBase, "starting with '-'"},
		{"ssh user option", "ssh://-oProxyCommand@host/acme/guard.git", loopBase, "starting with '-'"},
		{"remote helper", "ext::ssh", loopBase, "transport::address"},
		{"remote helper fd", "fd::17", loopBase, "transport::address"},
		{"git scheme", "git://github.com/acme/guard.git", loopBase, "not a valid source"},
		{"ftp scheme", "ftp://example.com/acme/guard.git", loopBase, "not a valid source"},

		// Credentials, and a ref that belongs in a field of its own.
		{"https user and password", "https://user:hunter2@github.com/acme/guard.git", loopBase, "credentials"},
		{"https token as user", "https://ghp_hunter2@github.com/acme/guard.git", loopBase, "credentials"},
		{"https deceptive user", "https://github.com@attacker.example/acme/guard.git", loopBase, "credentials"},
		{"ssh password", "ssh://git:hunter2@github.com/acme/guard.git", loopBase, "credentials"},
		{"http under base with credentials", "http://u:hunter2@127.0.0.1:8080/acme/guard.git", loopBase, "plain http"},
		{"ref", "https://github.com/acme/guard.git@main", loopBase, "ends in @main"},
		{"bad ref", "https://github.com/acme/guard.git@--upload-pack=x", loopBase, "not a valid source"},

		{"empty", "", loopBase, "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := plugins.CheckFileSource(tt.src, tt.base)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("CheckFileSource(%q, %q): %v", tt.src, tt.base, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckFileSource(%q, %q) = nil, want an error saying %q", tt.src, tt.base, tt.want)
			}
			if !errors.Is(err, plugins.ErrFileSource) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("CheckFileSource(%q, %q) = %v; want ErrFileSource saying %q", tt.src, tt.base, err, tt.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the error shows the password: %v", err)
			}
		})
	}
}

// recordingFetcher fails every fetch and records what was asked, so a
// test sees whether a refused source reached it.
type recordingFetcher struct {
	mu   sync.Mutex
	seen []string
}

var errFake = errors.New("fake fetcher")

func (f *recordingFetcher) Fetch(_ context.Context, spec plugins.Spec, _ bool, _ string) (plugins.Fetched, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = append(f.seen, spec.Source())
	return plugins.Fetched{}, errFake
}

func (f *recordingFetcher) Latest(_ context.Context, source, _ string) (string, plugins.RefKind, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = append(f.seen, source)
	return "", "", errFake
}

// A lock that came with a repository names sources of the user's machine,
// plain http and options: install, update and marketplace update refuse
// each, naming the lock file, the entry and the value, before anything is
// fetched; the source under the user's git base reaches the fetcher.
func TestLockSourcesRefusedBeforeFetch(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	bad := map[string]string{
		"acme/file":  "file:///etc",
		"acme/local": "/home/u/.aws",
		"acme/http":  "http://attacker.example/acme/http.git",
		"acme/ext":   "ext::sh",
	}
	lock := &plugins.Lock{Plugins: map[string]plugins.LockEntry{}, Marketplaces: map[string]plugins.MarketplaceEntry{
		"loot":  {Source: "/home/u/.ssh", Commit: commit},
		"plain": {Source: "http://attacker.example/market.git", Commit: commit},
	}}
	for name, src := range bad {
		lock.Plugins[name] = plugins.LockEntry{Source: src, Commit: commit, Hash: "sha256:00"}
	}
	lock.Plugins["acme/mine"] = plugins.LockEntry{Source: loopBase + "/acme/mine.git", Commit: commit, Hash: "sha256:00"}
	root := filepath.Join(t.TempDir(), ".quiver")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	f := &recordingFetcher{}
	in := &plugins.Installer{Scope: plugins.Scope{Location: plugins.Local, Root: root}, Fetcher: f, GitBase: loopBase}
	if err := plugins.WriteLock(in.Scope.LockPath(), lock); err != nil {
		t.Fatal(err)
	}

	refused := func(t *testing.T, what string, err error, value string) {
		t.Helper()
		if !errors.Is(err, plugins.ErrFileSource) {
			t.Errorf("%s: %v, want ErrFileSource", what, err)
			return
		}
		for _, s := range []string{in.Scope.LockPath(), what, value, "if you mean it, run quiver "} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %q does not say %q", what, err, s)
			}
		}
	}

	res, err := in.Sync(t.Context(), plugins.SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		switch {
		case r.Marketplace != "":
			refused(t, "marketplace "+r.Marketplace, r.Err, lock.Marketplaces[r.Marketplace].Source)
		case r.Name.String() == "acme/mine":
			if !errors.Is(r.Err, errFake) {
				t.Errorf("sync acme/mine: %v, want the fetcher's error", r.Err)
			}
		default:
			refused(t, "plugin "+r.Name.String(), r.Err, plugins.Redact(bad[r.Name.String()]))
		}
	}
	if len(res) != len(lock.Plugins)+len(lock.Marketplaces) {
		t.Errorf("sync results %+v", res)
	}

	for _, dry := range []bool{true, false} {
		up, err := in.Update(t.Context(), nil, plugins.UpdateOptions{DryRun: dry})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range up {
			if r.Name.String() == "acme/mine" {
				if !errors.Is(r.Err, errFake) {
					t.Errorf("update acme/mine: %v, want the fetcher's error", r.Err)
				}
				continue
			}
			refused(t, "plugin "+r.Name.String(), r.Err, plugins.Redact(bad[r.Name.String()]))
		}
	}
	for _, name := range []string{"loot", "plain"} {
		_, _, err := in.UpdateMarketplace(t.Context(), name, func(string) (string, error) { return name, nil })
		refused(t, "marketplace "+name, err, lock.Marketplaces[name].Source)
	}
	want := []string{loopBase + "/acme/mine.git", loopBase + "/acme/mine.git", loopBase + "/acme/mine.git"}
	if strings.Join(f.seen, " ") != strings.Join(want, " ") {
		t.Errorf("fetched %q; want only %q (sync, outdated, update)", f.seen, want)
	}
}

// An accepted source never names this machine, never goes over plain http
// outside the base, and never starts with '-'.
func FuzzCheckFileSource(f *testing.F) {
	for _, s := range []string{
		"https://github.com/acme/guard.git", "git@github.com:acme/guard.git", "acme/guard", loopBase + "/acme/guard.git",
		"http://evil/x.git", "file:///etc", "/etc", "./x", "-oX", "ext::sh", "host:-x", "ssh://-o/x/y", "https://u@h/a/b",
		loopBase + "/../x", "HTTP://127.0.0.1:8080/a/b", "git@-x:a/b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		err := plugins.CheckFileSource(src, loopBase)
		if err != nil {
			if !errors.Is(err, plugins.ErrFileSource) {
				t.Fatalf("CheckFileSource(%q) = %v, not ErrFileSource", src, err)
			}
			return
		}
		s, perr := plugins.ParseSpec(src, loopBase, "/")
		switch {
		case perr != nil:
			t.Fatalf("CheckFileSource accepted %q, which ParseSpec refuses: %v", src, perr)
		case s.IsLocal(), strings.HasPrefix(src, "-"), s.Ref != "":
			t.Fatalf("CheckFileSource accepted %q (%+v)", src, s)
		case strings.HasPrefix(strings.ToLower(s.URL), "http://") && !strings.HasPrefix(strings.ToLower(s.URL), loopBase+"/"):
			t.Fatalf("CheckFileSource accepted plain http %q", src)
		}
	})
}
