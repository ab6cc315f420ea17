package main

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/gitserver"
)

// A git token, from QUIVER_GIT_TOKEN or written into a URL as its
// password, is used to fetch and nothing else (SPEC §5 "never printed"):
// it appears in no output of any command, succeeding or failing, and in
// no file quiver writes: lock file, audit log, the installed plugins'
// .git/config, caches, the trust store.

// secretToken is a token no test data could contain by chance.
func secretToken(t *testing.T) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return "qvsecret" + hex.EncodeToString(b[:])
}

// leakForms are the ways a token could end up written: as is, URL-escaped,
// and inside a basic-auth header.
func leakForms(token string) []string {
	return []string{
		token,
		url.QueryEscape(token),
		base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token)),
		base64.StdEncoding.EncodeToString([]byte("user:" + token)),
	}
}

// leaksIn returns the first form of token found in data, or "".
func leaksIn(data []byte, token string) string {
	for _, f := range leakForms(token) {
		if bytes.Contains(data, []byte(f)) {
			return f
		}
	}
	return ""
}

// scanTree fails the test for every file under root that holds the token
// and returns how many files it read, and which .git/config files.
func scanTree(t *testing.T, root, token string) (files int, gitConfigs []string) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.Type().IsRegular() {
			if e.Type()&fs.ModeSymlink != 0 {
				target, _ := os.Readlink(p)
				if f := leaksIn([]byte(target), token); f != "" {
					t.Errorf("symlink %s points at the token: %s", p, target)
				}
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		// A git config: a plugin's .git/config, or a store repository's
		// (store/git/KEY/config).
		if filepath.Base(p) == "config" && (filepath.Base(filepath.Dir(p)) == ".git" || filepath.Base(filepath.Dir(filepath.Dir(p))) == "git") {
			gitConfigs = append(gitConfigs, p)
		}
		if f := leaksIn(data, token); f != "" {
			t.Errorf("%s holds the token (as %q)", p, f)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, gitConfigs
}

func TestSecretsNeverLeak(t *testing.T) {
	t.Parallel() // its own project, home and git server
	token := secretToken(t)
	srv := gitserver.New(t, gitserver.Options{})
	v1 := map[string]string{"hooks/check": raceHook(1), "recipes/one.md": "one\n"}
	publish(t, srv, "acme/secret", "v1", v1)
	publish(t, srv, "acme/urlpw", "", map[string]string{"recipes/pw.md": "pw\n"})
	srv.SetAuth("x-access-token", token)
	hostport := strings.TrimPrefix(srv.URL, "http://")
	withPassword := "http://x-access-token:" + token + "@" + hostport

	audit := filepath.Join(t.TempDir(), "audit.log")
	h := newHarness(t, srv, "QUIVER_GIT_TOKEN="+token, "QUIVER_TRUST_ALL=1", "QUIVER_AUDIT_LOG="+audit)
	// The same place with no token in the environment: only a URL's
	// password can open the server.
	noEnvToken := h.with("QUIVER_GIT_TOKEN=", "GITHUB_TOKEN=")

	var outputs []ran
	step := func(h *harness, wantCode int, stdin string, args ...string) ran {
		t.Helper()
		r := h.run(stdin, args...)
		outputs = append(outputs, r)
		if r.code != wantCode {
			t.Errorf("want exit %d:\n%s", wantCode, r)
		}
		if msg := cleanOutcome(r); msg != "" {
			t.Errorf("%s:\n%s", msg, r)
		}
		return r
	}

	step(h, 0, "", "plugin", "add", "acme/secret")
	step(noEnvToken, 0, "", "plugin", "add", "--json", withPassword+"/acme/urlpw.git")
	if srv.AuthSeen.Load() == 0 {
		t.Fatal("the server never saw credentials: the test proves nothing")
	}
	// Unauthenticated, the same add is refused: the token is what opened
	// the server.
	step(noEnvToken, 1, "", "plugin", "add", "--force", "acme/secret")

	step(h, 0, "", "plugin", "list", "--json")
	step(h, 0, "", "plugin", "list")
	step(h, 0, "", "plugin", "show", "--json", "acme/secret")
	step(h, 0, "", "plugin", "show", "acme/urlpw")
	step(h, 0, "", "plugin", "show", "--json", "acme/urlpw")

	// A new commit upstream: outdated sees it, update takes it, for both
	// plugins (acme/urlpw's stored source has no password; the token from
	// the environment goes to the same host).
	publish(t, srv, "acme/secret", "", map[string]string{"hooks/check": raceHook(2), "recipes/two.md": "two\n"})
	publish(t, srv, "acme/urlpw", "", map[string]string{"recipes/pw.md": "pw 2\n"})
	step(h, 0, "", "plugin", "outdated", "--json")
	step(h, 0, "", "plugin", "outdated")
	step(h, 0, "", "plugin", "update", "--dry-run", "--json", "--all")
	step(h, 0, "", "plugin", "update", "acme/secret")
	step(h, 0, "", "plugin", "update", "--all", "--json")
	step(h, 0, "", "plugin", "verify")
	step(h, 0, "", "plugin", "verify", "--json")

	// A fresh clone of the project: install fetches both again.
	for _, n := range []string{"acme@secret", "acme@urlpw"} {
		if err := os.RemoveAll(filepath.Join(h.scope.PluginsDir(), n)); err != nil {
			t.Fatal(err)
		}
	}
	step(h, 1, "", "plugin", "verify")
	step(h, 1, "", "audit", "--json")
	step(h, 0, "", "plugin", "install")
	step(h, 0, "", "plugin", "verify")

	// Failures quote the URL: without its password.
	step(h, 1, "", "plugin", "add", "acme/nope")
	step(h, 1, "", "plugin", "add", withPassword+"/acme/nope.git")
	step(h, 1, "", "plugin", "add", "--force", withPassword+"/acme/urlpw.git@no-such-ref")
	step(noEnvToken, 1, "", "plugin", "add", "--force", "http://x-access-token:wrong@"+hostport+"/acme/urlpw.git")
	step(h, 1, "", "plugin", "add", "acme/secret") // already installed

	// A token written as the user part of a URL (https://TOKEN@host) is a
	// credential like a password: it opens the server, and is kept nowhere.
	publish(t, srv, "acme/tokuser", "", map[string]string{"recipes/tu.md": "tu\n"})
	srv.SetAuth(token, "")
	seen := srv.AuthSeen.Load()
	step(noEnvToken, 0, "", "plugin", "add", "--json", "http://"+token+"@"+hostport+"/acme/tokuser.git")
	step(noEnvToken, 0, "", "plugin", "show", "--json", "acme/tokuser")
	step(noEnvToken, 1, "", "plugin", "add", "http://"+token+"@"+hostport+"/acme/nope.git")
	if srv.AuthSeen.Load() == seen {
		t.Fatal("the token-as-user add sent no credentials: the test proves nothing")
	}
	srv.SetAuth("x-access-token", token)

	// Hooks run, with the audit log on.
	r := step(h, 0, `{"tool_name":"bash","tool_input":{"command":"ls"}}`, "hook", "run", "before_tool_call")
	if !strings.Contains(r.stdout, `"input":{"version":2}`) {
		t.Errorf("the plugin's hook did not run:\n%s", r)
	}
	step(h, 0, "", "hook", "list", "--all", "--json")
	step(h, 0, "", "doctor", "--json")
	step(h, 0, "", "audit")
	step(h, 0, "", "audit", "--format", "sarif")

	for _, r := range outputs {
		if f := leaksIn([]byte(r.stdout+r.stderr), token); f != "" {
			t.Errorf("output shows the token (as %q):\n%s", f, r)
		}
	}
	if data, err := os.ReadFile(audit); err != nil || len(bytes.TrimSpace(data)) == 0 {
		t.Errorf("no audit log written: %v", err)
	} else if f := leaksIn(data, token); f != "" {
		t.Errorf("the audit log holds the token (as %q)", f)
	}
	lock, err := os.ReadFile(h.scope.LockPath())
	if err != nil {
		t.Fatal(err)
	}
	if f := leaksIn(lock, token); f != "" {
		t.Errorf("the lock file holds the token (as %q):\n%s", f, lock)
	}
	// The URL plugins' sources are stored without any credential: no
	// password, no user name, no token as the user (SPEC §6).
	for _, want := range []string{"source: http://" + hostport + "/acme/urlpw.git", "source: http://" + hostport + "/acme/tokuser.git"} {
		if !bytes.Contains(lock, []byte(want)) {
			t.Errorf("the lock file does not record %s:\n%s", want, lock)
		}
	}
	if bytes.Contains(lock, []byte("x-access-token")) {
		t.Errorf("the lock file keeps a URL's user name:\n%s", lock)
	}
	for _, root := range []string{h.project, h.home} {
		files, gitConfigs := scanTree(t, root, token)
		t.Logf("%s: %d files scanned, .git/config files: %d", root, files, len(gitConfigs))
		if root == h.home && len(gitConfigs) < 2 {
			t.Errorf("found %d git config files under %s, want one store repository per source", len(gitConfigs), root)
		}
	}
	for _, p := range lockMatchesDisk(h.scope) {
		t.Error(p)
	}
}

// Errors about a malformed spec quote what the user typed; a password in
// it must not come back out.
func TestSecretsNotEchoedByUsageErrors(t *testing.T) {
	t.Parallel() // its own project, home and git server
	token := secretToken(t)
	srv := gitserver.New(t, gitserver.Options{})
	h := newHarness(t, srv)
	base := "http://x-access-token:" + token + "@" + strings.TrimPrefix(srv.URL, "http://")
	for _, args := range [][]string{
		{"plugin", "add", base + "/acme/urlpw.git@v1", "--ref", "v1"},
		{"plugin", "add", "--link", base + "/acme/urlpw.git"},
		{"plugin", "add", base + "/"},
		{"plugin", "add", "--name", "not a name", base + "/acme/urlpw.git"},
	} {
		r := h.run("", args...)
		if r.code == 0 || !strings.HasPrefix(r.stderr, "quiver: ") {
			t.Errorf("want a usage error:\n%s", r)
		}
		if f := leaksIn([]byte(r.stdout+r.stderr), token); f != "" {
			t.Errorf("the error shows the password:\n%s", r)
		}
	}
	if _, err := os.Stat(h.scope.Root); err == nil {
		files, _ := scanTree(t, h.scope.Root, token)
		t.Logf("%d files under the scope root", files)
	}
}
