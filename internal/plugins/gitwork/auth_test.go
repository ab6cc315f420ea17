package gitwork

import (
	"testing"

	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// TestCredentialsAuth is the rule of SPEC §5 on its own: the token goes
// only to the scheme, host and port of the base (default ports filled in).
func TestCredentialsAuth(t *testing.T) {
	t.Setenv("SSH_AUTH_SOCK", "")
	t.Setenv("HOME", t.TempDir()) // no ~/.ssh keys
	tests := []struct {
		base, url string
		sent      bool
	}{
		{"", "https://github.com/acme/guard.git", true},
		{"", "https://GitHub.COM/acme/guard.git", true},
		{"", "https://github.com:443/acme/guard.git", true},
		{"", "https://someone@github.com/acme/guard.git", false}, // the URL's own user is used instead
		{"https://github.com", "https://github.com/acme/guard", true},
		{"https://github.com:443/", "https://github.com/acme/guard", true},
		{"HTTPS://GITHUB.COM", "https://github.com/acme/guard", true},
		{"http://git.example.com", "http://git.example.com:80/a/b.git", true},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080/a/b.git", true},
		{"https://ghe.example.com/mirror/", "https://ghe.example.com/other/a/b.git", true}, // host, not path
		{"", "http://github.com/acme/guard.git", false},                                    // scheme differs
		{"", "https://github.com:8443/acme/guard.git", false},
		{"", "https://gitlab.com/acme/guard.git", false},
		{"", "https://github.com.evil.example/acme/guard.git", false},
		{"", "https://evil.example/github.com/acme/guard.git", false},
		{"", "https://github.com@evil.example/acme/guard.git", false},
		{"https://github.com:8443", "https://github.com/acme/guard.git", false},
		{"http://127.0.0.1:8080", "http://127.0.0.1:9090/a/b.git", false},
		{"http://127.0.0.1:8080", "https://127.0.0.1:8080/a/b.git", false},
		{"http://localhost:8080", "http://127.0.0.1:8080/a/b.git", false},
		{"github.com", "https://github.com/acme/guard.git", false}, // a base without a scheme matches nothing
		{"", "ssh://git@github.com/acme/guard.git", false},
		{"", "git@github.com:acme/guard.git", false},
		{"", "/srv/git/acme/guard", false},
	}
	for _, tc := range tests {
		t.Run(tc.base+"|"+tc.url, func(t *testing.T) {
			am, u, err := authFor(plugins.Credentials{Token: "tok", Base: tc.base}, tc.url)
			if err != nil {
				t.Fatal(err)
			}
			basic, _ := am.(*githttp.BasicAuth)
			if sent := basic != nil && basic.Password == "tok"; sent != tc.sent {
				t.Errorf("token sent = %v (auth %v), want %v", sent, am, tc.sent)
			}
			// Whatever the URL carries, the URL fetched (and so recorded
			// in .git/config) carries no credential.
			if want := plugins.Redact(tc.url); u != want {
				t.Errorf("fetch URL = %q, want %q", u, want)
			}
		})
	}

	t.Run("no token", func(t *testing.T) {
		am, _, err := authFor(plugins.Credentials{}, "https://github.com/acme/guard.git")
		if err != nil || am != nil {
			t.Errorf("auth = %v, %v; want nil, nil", am, err)
		}
	})
	// A password in the URL wins over the token and is taken out of the
	// URL that is fetched and recorded.
	t.Run("password in url", func(t *testing.T) {
		am, u, err := authFor(plugins.Credentials{Token: "tok"}, "https://me:pw@github.com/acme/guard.git")
		if err != nil {
			t.Fatal(err)
		}
		basic, ok := am.(*githttp.BasicAuth)
		if !ok || basic.Username != "me" || basic.Password != "pw" {
			t.Errorf("auth = %#v, want basic me:pw", am)
		}
		if u != "https://github.com/acme/guard.git" {
			t.Errorf("fetch URL = %q, want the credentials removed", u)
		}
	})
	// A token written as the user (https://TOKEN@host) is a credential
	// too: used for this fetch, never in the URL fetched or recorded.
	t.Run("token as user", func(t *testing.T) {
		am, u, err := authFor(plugins.Credentials{Token: "tok"}, "https://ghp_SECRET@github.com/acme/guard.git")
		if err != nil {
			t.Fatal(err)
		}
		basic, ok := am.(*githttp.BasicAuth)
		if !ok || basic.Username != "ghp_SECRET" || basic.Password != "" {
			t.Errorf("auth = %#v, want basic ghp_SECRET", am)
		}
		if u != "https://github.com/acme/guard.git" {
			t.Errorf("fetch URL = %q, want the token removed", u)
		}
	})
}
