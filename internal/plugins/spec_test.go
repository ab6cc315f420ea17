package plugins_test

import (
	"errors"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// specDir is the working directory relative specs start from. ParseSpec
// never looks at the disk, so it need not exist.
const specDir = "/home/u/proj"

func TestParseSpec(t *testing.T) {
	tests := []struct {
		raw, base string
		url, path string
		ref       string
		name      string // "" means the zero Name
		shorthand bool
		subdir    string
	}{
		// org/repo shorthands: the URL keeps the typed case, the name is lowercase.
		{raw: "acme/guard", url: "https://github.com/acme/guard.git", name: "acme/guard", shorthand: true},
		{raw: "Acme/Guard", url: "https://github.com/Acme/Guard.git", name: "acme/guard", shorthand: true},
		{raw: "acme/guard@v1.2.0", url: "https://github.com/acme/guard.git", ref: "v1.2.0", name: "acme/guard", shorthand: true},
		{raw: "acme/guard@0123abc", url: "https://github.com/acme/guard.git", ref: "0123abc", name: "acme/guard", shorthand: true},
		{raw: "acme/my.repo_x-1", url: "https://github.com/acme/my.repo_x-1.git", name: "acme/my.repo_x-1", shorthand: true},
		// QUIVER_GIT_BASE, with and without a trailing slash, with a path.
		{raw: "acme/guard", base: "http://127.0.0.1:8080", url: "http://127.0.0.1:8080/acme/guard.git", name: "acme/guard", shorthand: true},
		{raw: "acme/guard", base: "http://127.0.0.1:8080/", url: "http://127.0.0.1:8080/acme/guard.git", name: "acme/guard", shorthand: true},
		{raw: "acme/guard@dev", base: "https://git.example.com/mirror/", url: "https://git.example.com/mirror/acme/guard.git", ref: "dev", name: "acme/guard", shorthand: true},
		{raw: "acme/guard", base: "https://github.com", url: "https://github.com/acme/guard.git", name: "acme/guard", shorthand: true},

		// org/repo/sub/dir: a folder of the repository, named org/<last segment>.
		{raw: "anthropics/claude-plugins-official/plugins/Hookify@v1", url: "https://github.com/anthropics/claude-plugins-official.git", ref: "v1", name: "anthropics/hookify", shorthand: true, subdir: "plugins/Hookify"},
		{raw: "a/b/c", url: "https://github.com/a/b.git", name: "a/c", shorthand: true, subdir: "c"},

		// https and http URLs are used as typed, minus an @REF.
		{raw: "https://github.com/Acme/Guard", url: "https://github.com/Acme/Guard", name: "acme/guard"},
		{raw: "https://github.com/acme/guard.git", url: "https://github.com/acme/guard.git", name: "acme/guard"},
		{raw: "https://github.com/acme/guard.git@v1", url: "https://github.com/acme/guard.git", ref: "v1", name: "acme/guard"},
		{raw: "https://github.com/acme/guard@main", url: "https://github.com/acme/guard", ref: "main", name: "acme/guard"},
		{raw: "https://github.com/acme/guard/", url: "https://github.com/acme/guard/", name: "acme/guard"},
		{raw: "http://example.com:8080/acme/guard.git", url: "http://example.com:8080/acme/guard.git", name: "acme/guard"},
		{raw: "https://x-access-token:s3cret@github.com/acme/guard.git@v2", url: "https://x-access-token:s3cret@github.com/acme/guard.git", ref: "v2", name: "acme/guard"},
		{raw: "https://gitlab.com/group/sub/acme/guard.git", url: "https://gitlab.com/group/sub/acme/guard.git", name: "acme/guard"},
		{raw: "https://example.com/guard.git", url: "https://example.com/guard.git"},         // one segment: no name
		{raw: "https://example.com/Acme_Co/guard", url: "https://example.com/Acme_Co/guard"}, // '_' is not valid in an org

		// ssh URLs and the scp-like form; the user's '@' is not a ref.
		{raw: "ssh://git@github.com/acme/guard.git", url: "ssh://git@github.com/acme/guard.git", name: "acme/guard"},
		{raw: "ssh://github.com/acme/guard.git@v2", url: "ssh://github.com/acme/guard.git", ref: "v2", name: "acme/guard"},
		{raw: "ssh://git@github.com:2222/Acme/Guard.git", url: "ssh://git@github.com:2222/Acme/Guard.git", name: "acme/guard"},
		{raw: "git@github.com:acme/guard.git", url: "git@github.com:acme/guard.git", name: "acme/guard"},
		{raw: "git@github.com:acme/guard.git@v1.0.0", url: "git@github.com:acme/guard.git", ref: "v1.0.0", name: "acme/guard"},
		{raw: "github.com:acme/guard", url: "github.com:acme/guard", name: "acme/guard"},

		// local paths are made absolute and clean; the name comes from them too.
		{raw: "file:///srv/git/acme/guard", path: "/srv/git/acme/guard", name: "acme/guard"},
		{raw: "file:///srv/git/acme/guard.git@v1", path: "/srv/git/acme/guard.git", ref: "v1", name: "acme/guard"},
		{raw: "file://localhost/srv/acme/guard", path: "/srv/acme/guard", name: "acme/guard"},
		{raw: "file:///srv/x/../acme/guard/", path: "/srv/acme/guard", name: "acme/guard"},
		{raw: "./guard", path: "/home/u/proj/guard", name: "proj/guard"},
		{raw: "./org/repo", path: "/home/u/proj/org/repo", name: "org/repo"},
		{raw: "./guard@v1", path: "/home/u/proj/guard", ref: "v1", name: "proj/guard"},
		{raw: "../acme/guard", path: "/home/u/acme/guard", name: "acme/guard"},
		{raw: "../../../../x", path: "/x"},
		{raw: "/abs/Acme/Guard", path: "/abs/Acme/Guard", name: "acme/guard"},
		{raw: "/abs//acme/./guard", path: "/abs/acme/guard", name: "acme/guard"},
		{raw: ".", path: "/home/u/proj", name: "u/proj"},
		{raw: "..", path: "/home/u", name: "home/u"},
		{raw: "/", path: "/"},
		{raw: "./my plugin", path: "/home/u/proj/my plugin"}, // a space is fine in a path, not in a name
	}
	for _, tc := range tests {
		t.Run(tc.raw+"|"+tc.base, func(t *testing.T) {
			s, err := plugins.ParseSpec(tc.raw, tc.base, specDir)
			if err != nil {
				t.Fatalf("ParseSpec(%q, %q): %v", tc.raw, tc.base, err)
			}
			var name string
			if !s.Name.IsZero() {
				name = s.Name.String()
			}
			if s.Raw != tc.raw || s.URL != tc.url || s.Path != filepath.FromSlash(tc.path) || s.Ref != tc.ref ||
				name != tc.name || s.Shorthand != tc.shorthand || s.Subdir != tc.subdir {
				t.Errorf("ParseSpec(%q, %q) =\n  raw %q url %q path %q ref %q name %q shorthand %v subdir %q\nwant\n  raw %q url %q path %q ref %q name %q shorthand %v subdir %q",
					tc.raw, tc.base, s.Raw, s.URL, s.Path, s.Ref, name, s.Shorthand, s.Subdir,
					tc.raw, tc.url, tc.path, tc.ref, tc.name, tc.shorthand, tc.subdir)
			}
			if s.IsLocal() != (tc.path != "") {
				t.Errorf("IsLocal() = %v", s.IsLocal())
			}
		})
	}
}

func TestParseSpecErrors(t *testing.T) {
	tests := []string{
		// empty and whitespace
		"", " ", " acme/guard", "acme/guard ", "acme/guard\n", "acme/guard\r", "acme\t/guard", "a\x00b/c", "./x\ny",
		// unknown schemes
		"ftp://host/acme/guard.git", "git://host/acme/guard.git", "svn+ssh://host/acme/guard", "HTTPX://host/a/b",
		// URLs without a host or a repository path
		"https://", "https:///acme/guard", "https://github.com", "https://github.com/", "ssh://host",
		"file://", "file://remote-host/srv/acme/guard", "file://relative/path",
		// shorthands that are not org/repo
		"a/b/..", "acme/guard/../x", "acme/guard//x", "org@repo", "acme", "acme/", "acme/guard@", "acme/.hidden", "-acme/guard", "acme/gu ard",
		"acme_co/guard", "acme/guard@v1@v2", "acme/gu*rd",
		// an scp-like path that steps out of the folder it names: a
		// plain ssh server resolves acme/../evil/x to evil/x, which a
		// policy allowing host/acme/** must not be shown
		"git@github.com:acme/../evil/x.git", "git@github.com:acme/./x", "host:../evil/x",
		// a host the dialer would map to another name (IDNA)
		"https://\uff47\uff49\uff54\uff48\uff55\uff42.com/evil/x", "ssh://git@gith\u00fcb.com/evil/x",
		// bad refs
		"acme/guard@-x", "acme/guard@a..b", "acme/guard@x.lock", "acme/guard@a~1", "acme/guard@a^",
		"https://github.com/acme/guard@-x", "./guard@x.lock", "git@github.com:acme/guard.git@a~1",
	}
	for _, raw := range tests {
		t.Run(raw, func(t *testing.T) {
			s, err := plugins.ParseSpec(raw, "", specDir)
			if err == nil {
				t.Fatalf("ParseSpec(%q) = %+v, want an error", raw, s)
			}
			if !errors.Is(err, plugins.ErrInvalidSpec) {
				t.Errorf("ParseSpec(%q) error %v does not wrap ErrInvalidSpec", raw, err)
			}
		})
	}
}

// The shorthand strips ".git" like every other form (SPEC §5), so one
// repository never gets two names.
func TestParseSpecShorthandDotGit(t *testing.T) {
	s, err := plugins.ParseSpec("acme/guard.git", "", specDir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name.String() != "acme/guard" || s.URL != "https://github.com/acme/guard.git" {
		t.Errorf("ParseSpec(acme/guard.git) = name %q url %q; want acme/guard, https://github.com/acme/guard.git", s.Name, s.URL)
	}
}

// A path ending in "/.git" is named after the work tree and its parent, not
// guard/guard.
func TestParseSpecGitFolderName(t *testing.T) {
	for _, raw := range []string{"./guard/.git", "https://example.com/guard/.git"} {
		s, err := plugins.ParseSpec(raw, "", specDir)
		if err != nil {
			t.Fatal(err)
		}
		if s.Name.String() == "guard/guard" {
			t.Errorf("ParseSpec(%q).Name = guard/guard", raw)
		}
	}
}

func TestSpecSource(t *testing.T) {
	tests := []struct{ raw, want string }{
		{"acme/guard", "https://github.com/acme/guard.git"},
		{"https://x-access-token:s3cret@github.com/acme/guard.git", "https://github.com/acme/guard.git"},
		{"git@github.com:acme/guard.git@v1", "git@github.com:acme/guard.git"},
		{"./guard", "/home/u/proj/guard"},
		{"file:///srv/acme/guard@v1", "/srv/acme/guard"},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			s, err := plugins.ParseSpec(tc.raw, "", specDir)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Source(); got != filepath.FromSlash(tc.want) {
				t.Errorf("Source() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestValidateRef(t *testing.T) {
	good := []string{
		"main", "v1.2.0", "feature/x", "refs/heads/x", "release-2024.01", "a@b", "a_b", "UPPER", "HEAD",
		"0123456789abcdef0123456789abcdef01234567", "0123456789abcdef0123456789abcdef0123456", "4f1c2e9",
		"x.lockx", "@@", "a/@", "ünïcode",
	}
	for _, ref := range good {
		t.Run("good/"+ref, func(t *testing.T) {
			if err := plugins.ValidateRef(ref); err != nil {
				t.Errorf("ValidateRef(%q): %v", ref, err)
			}
		})
	}
	// Each breaks one of git's ref-name rules, most of them path tricks.
	bad := []string{
		"", "../../config", "..", ".", "-x", "--upload-pack=x", "a..b", "a b", "x.lock", "a//b", "@", "a~1", "a^",
		"a:b", "a/", "a.", "/a", ".a", "a/.b", "a?", "a*", "a[", `a\b`, "a@{1}", "a\x00", "a\x7f", "a\tb", "a\nb",
		"a.lock/b", "a/.lock", "a/b.lock", "-", "-/x", "a\u202eb", "a\u200bb", "a\xffb", "a\u0085b",
	}
	for _, ref := range bad {
		t.Run("bad/"+ref, func(t *testing.T) {
			err := plugins.ValidateRef(ref)
			if err == nil {
				t.Fatalf("ValidateRef(%q) = nil, want an error", ref)
			}
			if !errors.Is(err, plugins.ErrInvalidSpec) {
				t.Errorf("ValidateRef(%q) error %v does not wrap ErrInvalidSpec", ref, err)
			}
		})
	}
}

// Every credential form goes: user and password, a token as the user, a
// token as the password, in a bare URL or inside a message.
func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://user:pass@host/x", "https://host/x"},
		{"https://x-access-token:tok@github.com/acme/guard.git", "https://github.com/acme/guard.git"},
		{"https://ghp_SECRET@host/org/repo.git", "https://host/org/repo.git"},
		{"HTTPS://ghp_SECRET@host/org/repo.git", "HTTPS://host/org/repo.git"},
		{"https://ghp_SECRET@host", "https://host"},
		{"ssh://git:pw@host/acme/guard.git", "ssh://git@host/acme/guard.git"},
		{"http://u:p@127.0.0.1:8080/a/b.git?x=1", "http://127.0.0.1:8080/a/b.git?x=1"},
		{"https://a@b:c@host/x", "https://host/x"},
		{`Get "https://ghp_SECRET@host/a/b.git/info/refs?service=git-upload-pack": dial tcp`, `Get "https://host/a/b.git/info/refs?service=git-upload-pack": dial tcp`},
		{"from https://t1@h1/x and http://u:t2@h2/y.", "from https://h1/x and http://h2/y."},
		// Characters url.Parse accepts in a password (second review, B3).
		{"http://alice:se,cret;pw@127.0.0.1:39567/acme/guard.git", "http://127.0.0.1:39567/acme/guard.git"},
		{"http://bob:pa(ss)'x*+=!$&@h/a/b", "http://h/a/b"},
		{`fetch "http://bob:pa(ss@127.0.0.1:1/acme/guard.git": refused`, `fetch "http://127.0.0.1:1/acme/guard.git": refused`},
		// and ones it does not, as a message quotes them
		{`invalid plugin spec "http://bob:pa\"ss@h/a/b"`, `invalid plugin spec "http://h/a/b"`},
		{"http://bob:pa<>{}[]`ss@h/a/b", "http://h/a/b"},
		{"ssh://git:hunter2pass@127.0.0.1:39221/acme/guard.git", "ssh://git@127.0.0.1:39221/acme/guard.git"},
		// secrets in a query (a hook's URL, a signed URL), whatever else
		// the query holds
		{"https://hooks.example.com/x?token=abc123&ref=main", "https://hooks.example.com/x?token=REDACTED&ref=main"},
		{`post "https://h/a?x=1&API_KEY=k3y#frag": 403`, `post "https://h/a?x=1&API_KEY=REDACTED#frag": 403`},
		{"https://b.s3.amazonaws.com/o?X-Amz-Credential=AKIA%2F&X-Amz-Signature=deadbeef", "https://b.s3.amazonaws.com/o?X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED"},
		{"https://acct.blob.core.windows.net/c/b?sv=2020&sig=abc%3D and more", "https://acct.blob.core.windows.net/c/b?sv=2020&sig=REDACTED and more"},
		{"https://u:p@h/x?access_token=t&private_token=u", "https://h/x?access_token=REDACTED&private_token=REDACTED"},
		{"https://h/x?next=https://u:p@h2/y?key=v", "https://h/x?next=https://h2/y?key=REDACTED"},
		// API keys under the names services document for them, and an
		// OAuth token in a fragment (implicit grant)
		{"https://api.example.com/v1?api-key=s3cr3t", "https://api.example.com/v1?api-key=REDACTED"},
		{"https://api.ipstack.com/1.2.3.4?access_key=s3cr3t", "https://api.ipstack.com/1.2.3.4?access_key=REDACTED"},
		{"https://apim.example.net/x?subscription-key=s3cr3t&v=1", "https://apim.example.net/x?subscription-key=REDACTED&v=1"},
		{"https://h/x?x-api-key=s3cr3t", "https://h/x?x-api-key=REDACTED"},
		{"https://api.hubapi.com/c?hapikey=s3cr3t", "https://api.hubapi.com/c?hapikey=REDACTED"},
		{"https://app.example.com/cb#access_token=s3cr3t&token_type=bearer", "https://app.example.com/cb#access_token=REDACTED&token_type=REDACTED"},
		// nothing to remove
		{"https://h/search?q=token&page=2", "https://h/search?q=token&page=2"},
		{"https://h/x?keyword=a", "https://h/x?keyword=a"},
		{"https://h/x?keys=a&key_id=b", "https://h/x?keys=a&key_id=b"},
		{"https://h/docs#section=2", "https://h/docs#section=2"},
		{"ssh://git@host/x", "ssh://git@host/x"},
		{"https://host/x", "https://host/x"},
		{"mail me@host", "mail me@host"},
		{"git@github.com:acme/guard.git", "git@github.com:acme/guard.git"},
		{"/abs/path", "/abs/path"},
		{"not a url", "not a url"},
		{"", ""},
		{"%zz", "%zz"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := plugins.Redact(tc.in); got != tc.want {
				t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{
		"acme/guard", "acme/guard@v1", "Acme/Guard", "https://github.com/acme/guard.git@v1",
		"http://u:p@127.0.0.1:8080/acme/guard", "ssh://git@host:22/acme/guard.git", "git@host:acme/guard.git@v1",
		"file:///srv/acme/guard", "file://localhost/x/../y", "./guard", "../x/../../y", "/abs", ".", "..", "/",
		"a/b/c", "org@repo", "", " x", "ftp://x/y", "acme/guard@../../config", "./a@b@c", "https://h/a/.git",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		s, err := plugins.ParseSpec(raw, "", specDir)
		if err != nil {
			if !errors.Is(err, plugins.ErrInvalidSpec) {
				t.Fatalf("ParseSpec(%q) error %v does not wrap ErrInvalidSpec", raw, err)
			}
			return
		}
		if s.IsLocal() {
			if !filepath.IsAbs(s.Path) || filepath.Clean(s.Path) != s.Path {
				t.Fatalf("ParseSpec(%q).Path = %q, not absolute and clean", raw, s.Path)
			}
			if s.URL != "" {
				t.Fatalf("ParseSpec(%q) is local with URL %q", raw, s.URL)
			}
		} else if s.URL == "" {
			t.Fatalf("ParseSpec(%q) has neither a path nor a URL", raw)
		}
		if s.Ref != "" {
			if err := plugins.ValidateRef(s.Ref); err != nil {
				t.Fatalf("ParseSpec(%q) returned ref %q that ValidateRef refuses: %v", raw, s.Ref, err)
			}
		}
		if s.Shorthand && s.Name.IsZero() {
			t.Fatalf("ParseSpec(%q) is a shorthand without a name", raw)
		}
		if !s.Name.IsZero() {
			if n, err := plugins.ParseName(s.Name.String()); err != nil || n != s.Name {
				t.Fatalf("ParseSpec(%q).Name = %v does not parse back: %v, %v", raw, s.Name, n, err)
			}
		}
		if u, err := url.Parse(s.Source()); err == nil && u.User != nil {
			if _, ok := u.User.Password(); ok {
				t.Fatalf("ParseSpec(%q).Source() = %q keeps a password", raw, s.Source())
			}
		}
		if strings.ContainsAny(s.URL+s.Path, "\x00\n\r\t") {
			t.Fatalf("ParseSpec(%q) let a control character through: %+v", raw, s)
		}
	})
}
