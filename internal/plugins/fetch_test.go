package plugins

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/gitserver"
)

// fetchRepo is the repository the fetch tests serve, "acme/guard":
//
//	main:  c1 (tag v1.0.0) - c2 - c3 (annotated tag v2.0.0) - c4
//	dev:   c4 - d1
//	gone:  c4 - o1, then the branch is deleted
//
// Each commit's hooks/check holds its own label, so a test can tell which
// commit was checked out from the files alone.
type fetchRepo struct {
	srv                    *gitserver.Server
	c1, c2, c3, c4, d1, o1 string
}

const fetchRepoName = "acme/guard"

func newFetchRepo(t *testing.T, o gitserver.Options) *fetchRepo {
	t.Helper()
	r := &fetchRepo{srv: gitserver.New(t, o)}
	// The server checks auth on every request, but building the repository
	// goes through the file system, not HTTP.
	commit := func(branch, label string) string {
		t.Helper()
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "hooks"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "hooks", "check"), []byte(label), 0o755); err != nil {
			t.Fatal(err)
		}
		c, err := r.srv.Commit(fetchRepoName, branch, dir, label)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	tag := func(name string, annotated bool) {
		t.Helper()
		if err := r.srv.Tag(fetchRepoName, name, annotated); err != nil {
			t.Fatal(err)
		}
	}
	// Commit resets the branch to the work tree's HEAD, so main is built
	// first and the side branches after it.
	r.c1 = commit("main", "c1")
	tag("v1.0.0", false)
	r.c2 = commit("main", "c2")
	r.c3 = commit("main", "c3")
	tag("v2.0.0", true)
	r.c4 = commit("main", "c4")
	r.d1 = commit("dev", "d1")
	r.o1 = commit("gone", "o1")
	if err := r.srv.DeleteRef(fetchRepoName, "refs/heads/gone"); err != nil {
		t.Fatal(err)
	}
	return r
}

// fetchInto fetches spec into a folder that does not exist yet and returns
// the folder.
func fetchInto(t *testing.T, f *Fetcher, spec Spec) (Fetched, string, error) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "stage")
	got, err := f.Fetch(t.Context(), spec, false, dst)
	return got, dst, err
}

// checkedOut returns the label of the commit checked out in dst.
func checkedOut(t *testing.T, dst string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dst, "hooks", "check"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// unusedPrefix returns a 7-hex prefix that none of commits starts with.
func unusedPrefix(commits ...string) string {
	for _, p := range []string{"0000000", "1111111", "2222222", "3333333"} {
		used := false
		for _, c := range commits {
			used = used || strings.HasPrefix(c, p)
		}
		if !used {
			return p
		}
	}
	panic("unreachable: four prefixes cannot all be taken by six commits")
}

func TestFetchRefs(t *testing.T) {
	for _, opts := range []gitserver.Options{{}, {NoSHAWant: true}} {
		name := "sha-want"
		if opts.NoSHAWant {
			name = "no-sha-want" // exact SHAs fall back to a full fetch
		}
		t.Run(name, func(t *testing.T) {
			r := newFetchRepo(t, opts)
			annotated, err := r.srv.RevParse(fetchRepoName, "v2.0.0")
			if err != nil {
				t.Fatal(err)
			}
			if annotated != r.c3 {
				t.Fatalf("server says v2.0.0 is %s, want c3 %s", annotated, r.c3)
			}
			tests := []struct {
				name, ref string
				commit    string // "" when the fetch must fail everywhere
				label     string
				err       error // the error, everywhere or (with a commit) without SHA wants
			}{
				{name: "default branch", ref: "", commit: r.c4, label: "c4"},
				{name: "branch main", ref: "main", commit: r.c4, label: "c4"},
				{name: "branch dev", ref: "dev", commit: r.d1, label: "d1"},
				{name: "lightweight tag", ref: "v1.0.0", commit: r.c1, label: "c1"},
				{name: "annotated tag", ref: "v2.0.0", commit: annotated, label: "c3"},
				{name: "full sha at a tip", ref: r.c4, commit: r.c4, label: "c4"},
				{name: "full sha behind a tip", ref: r.c2, commit: r.c2, label: "c2"},
				{name: "full sha of a tagged commit", ref: r.c3, commit: r.c3, label: "c3"},
				{name: "abbreviated sha at a tip", ref: r.d1[:8], commit: r.d1, label: "d1"},
				{name: "abbreviated sha behind a tip", ref: r.c2[:10], commit: r.c2, label: "c2"},
				// o1 is on no branch any more: only a server that lets a
				// client want any SHA can give it.
				{name: "full sha of a deleted branch", ref: r.o1, commit: r.o1, label: "o1", err: ErrRefNotFound},
				{name: "missing branch", ref: "nope", err: ErrRefNotFound},
				{name: "missing abbreviation", ref: unusedPrefix(r.c1, r.c2, r.c3, r.c4, r.d1, r.o1), err: ErrRefNotFound},
			}
			f := &Fetcher{}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					wantErr := tc.commit == "" || (opts.NoSHAWant && tc.err != nil)
					spec := Spec{URL: r.srv.RepoURL(fetchRepoName), Ref: tc.ref}
					got, dst, err := fetchInto(t, f, spec)
					if wantErr {
						if !errors.Is(err, tc.err) {
							t.Fatalf("Fetch(%q) = %+v, %v; want %v", tc.ref, got, err, tc.err)
						}
						return
					}
					if err != nil {
						t.Fatalf("Fetch(%q): %v", tc.ref, err)
					}
					if got.Commit != tc.commit || got.Link {
						t.Errorf("Fetch(%q) = %+v, want commit %s", tc.ref, got, tc.commit)
					}
					if label := checkedOut(t, dst); label != tc.label {
						t.Errorf("Fetch(%q) checked out %s, want %s", tc.ref, label, tc.label)
					}
				})
			}
		})
	}
}

// TestFetchAnnotatedTagIsCommit guards against recording the tag object:
// the annotated tag's own hash differs from its commit's.
func TestFetchAnnotatedTagIsCommit(t *testing.T) {
	r := newFetchRepo(t, gitserver.Options{})
	out, err := exec.Command("git", "-C", r.srv.Bare(fetchRepoName), "rev-parse", "v2.0.0").Output()
	if err != nil {
		t.Fatal(err)
	}
	tagObject := strings.TrimSpace(string(out))
	if tagObject == r.c3 {
		t.Fatal("v2.0.0 is not an annotated tag")
	}
	got, _, err := fetchInto(t, &Fetcher{}, Spec{URL: r.srv.RepoURL(fetchRepoName), Ref: "v2.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Commit != r.c3 {
		t.Errorf("Commit = %s, want the commit %s (tag object is %s)", got.Commit, r.c3, tagObject)
	}
}

func TestFetchMissingRepo(t *testing.T) {
	r := newFetchRepo(t, gitserver.Options{})
	_, dst, err := fetchInto(t, &Fetcher{}, Spec{URL: r.srv.RepoURL("acme/nothing")})
	if !errors.Is(err, ErrRepoNotFound) {
		t.Fatalf("Fetch(missing repo) = %v, want ErrRepoNotFound", err)
	}
	if _, err := os.Lstat(dst); err == nil {
		t.Errorf("Fetch(missing repo) left %s behind", dst)
	}
}

func TestFetchAuth(t *testing.T) {
	const token = "tok-s3cret"
	r := newFetchRepo(t, gitserver.Options{User: "x-access-token", Password: token})
	repoURL := r.srv.RepoURL(fetchRepoName)
	withPassword := func(p string) string {
		return strings.Replace(repoURL, "http://", "http://x-access-token:"+p+"@", 1)
	}
	tests := []struct {
		name     string
		creds    Credentials
		url      string
		err      error // nil: the fetch succeeds
		sendAuth bool  // whether any request may carry credentials
	}{
		{name: "no token", url: repoURL, err: ErrAuthRequired},
		{name: "wrong token", creds: Credentials{Token: "wrong-token", Base: r.srv.URL}, url: repoURL, err: ErrAuthFailed, sendAuth: true},
		{name: "right token", creds: Credentials{Token: token, Base: r.srv.URL}, url: repoURL, sendAuth: true},
		{name: "right token, base with slash", creds: Credentials{Token: token, Base: r.srv.URL + "/"}, url: repoURL, sendAuth: true},
		// The token belongs to another host: it must not be sent here.
		{name: "token for github", creds: Credentials{Token: token, Base: "https://github.com"}, url: repoURL, err: ErrAuthRequired},
		{name: "token for the default base", creds: Credentials{Token: token}, url: repoURL, err: ErrAuthRequired},
		{name: "token for another port", creds: Credentials{Token: token, Base: "http://127.0.0.1:1"}, url: repoURL, err: ErrAuthRequired},
		// A password written in the URL is used for that URL.
		{name: "password in url", url: withPassword(token), sendAuth: true},
		{name: "wrong password in url", url: withPassword("wrong-pass"), err: ErrAuthFailed, sendAuth: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := r.srv.AuthSeen.Load()
			got, dst, err := fetchInto(t, &Fetcher{Credentials: tc.creds}, Spec{URL: tc.url})
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("Fetch = %+v, %v; want %v", got, err, tc.err)
				}
				for _, secret := range []string{token, "wrong-token", "wrong-pass"} {
					if strings.Contains(err.Error(), secret) {
						t.Errorf("error %q shows a secret", err)
					}
				}
			} else {
				if err != nil {
					t.Fatalf("Fetch: %v", err)
				}
				if got.Commit != r.c4 || checkedOut(t, dst) != "c4" {
					t.Errorf("Fetch = %+v, want c4 %s", got, r.c4)
				}
			}
			if sent := r.srv.AuthSeen.Load() > before; sent != tc.sendAuth {
				t.Errorf("credentials sent = %v, want %v", sent, tc.sendAuth)
			}
		})
	}
}

func TestFetchLocal(t *testing.T) {
	folder := t.TempDir()
	if err := os.MkdirAll(filepath.Join(folder, "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "hooks", "check"), []byte("plain"), 0o755); err != nil {
		t.Fatal(err)
	}
	notFolder := filepath.Join(folder, "hooks", "check")
	f := &Fetcher{}

	t.Run("plain folder is copied", func(t *testing.T) {
		got, dst, err := fetchInto(t, f, Spec{Path: folder})
		if err != nil {
			t.Fatal(err)
		}
		if got != (Fetched{}) || checkedOut(t, dst) != "plain" {
			t.Errorf("Fetch = %+v with %q, want a copy without commit", got, checkedOut(t, dst))
		}
		fi, err := os.Lstat(filepath.Join(dst, "hooks", "check"))
		if err != nil || fi.Mode().Perm() != 0o755 {
			t.Errorf("copied hook: %v, %v; want mode 0755", fi, err)
		}
	})
	t.Run("link", func(t *testing.T) {
		dst := filepath.Join(t.TempDir(), "stage")
		got, err := f.Fetch(t.Context(), Spec{Path: folder}, true, dst)
		if err != nil {
			t.Fatal(err)
		}
		target, err := os.Readlink(dst)
		if !got.Link || err != nil || target != folder {
			t.Errorf("Fetch(link) = %+v, link to %q (%v); want a link to %s", got, target, err, folder)
		}
	})
	t.Run("git work tree is cloned", func(t *testing.T) {
		r := newFetchRepo(t, gitserver.Options{})
		work := filepath.Join(t.TempDir(), "work")
		if out, err := exec.Command("git", "clone", "-q", r.srv.Bare(fetchRepoName), work).CombinedOutput(); err != nil {
			t.Fatalf("git clone: %v\n%s", err, out)
		}
		got, dst, err := fetchInto(t, f, Spec{Path: work, Ref: "v1.0.0"})
		if err != nil {
			t.Fatal(err)
		}
		if got.Commit != r.c1 || checkedOut(t, dst) != "c1" {
			t.Errorf("Fetch = %+v, want c1 %s", got, r.c1)
		}
	})
	errTests := []struct {
		name string
		spec Spec
		link bool
		err  error // nil: any error
	}{
		{"ref on a plain folder", Spec{Path: folder, Ref: "v1"}, false, ErrInvalidSpec},
		{"ref with link", Spec{Path: folder, Ref: "v1"}, true, ErrInvalidSpec},
		{"missing folder", Spec{Path: filepath.Join(folder, "missing")}, false, os.ErrNotExist},
		{"a file", Spec{Path: notFolder}, false, nil},
	}
	for _, tc := range errTests {
		t.Run(tc.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "stage")
			_, err := f.Fetch(t.Context(), tc.spec, tc.link, dst)
			if err == nil || (tc.err != nil && !errors.Is(err, tc.err)) {
				t.Fatalf("Fetch = %v, want %v", err, tc.err)
			}
			if _, err := os.Lstat(dst); err == nil {
				t.Errorf("Fetch left %s behind", dst)
			}
		})
	}
}
