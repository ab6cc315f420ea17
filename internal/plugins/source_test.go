package plugins

import "testing"

func TestNormalSource(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://github.com/Acme/Guard.git", "github.com/Acme/Guard"},
		{"https://GitHub.com/acme/guard/", "github.com/acme/guard"},
		{"https://tok@github.com/acme/guard?x=1#f", "github.com/acme/guard"},
		{"http://127.0.0.1:8080/acme/guard.git", "127.0.0.1:8080/acme/guard"},
		{"ssh://git@github.com/acme/guard.git", "github.com/acme/guard"},
		{"git@github.com:acme/guard.git", "github.com/acme/guard"},
		{"file:///srv/plugins/x", "local:/srv/plugins/x"},
		{"/srv/plugins/x/", "local:/srv/plugins/x"},
		{"", ""},
		// Spellings of one repository that a deny list must not miss:
		// the scheme's default port, a fully qualified host's final dot,
		// empty path segments (servers merge slashes).
		{"https://github.com:443/evil/x", "github.com/evil/x"},
		{"ssh://git@github.com:22/evil/x.git", "github.com/evil/x"},
		{"http://example.com:80/evil/x", "example.com/evil/x"},
		{"https://github.com./evil/x", "github.com/evil/x"},
		{"https://GitHub.COM.:443//evil//x//", "github.com/evil/x"},
		{"git@github.com.:evil//x.git", "github.com/evil/x"},
		{"https://github.com:8443/evil/x", "github.com:8443/evil/x"},
	} {
		if got := NormalSource(c.in); got != c.want {
			t.Errorf("NormalSource(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if !SameSource("https://github.com/acme/guard.git", "ssh://git@github.com/Acme/guard") {
		t.Error("https and ssh of one repository differ")
	}
	if SameSource("https://github.com/acme/guard", "https://github.com/evil/guard") {
		t.Error("two repositories are the same")
	}
}

// A source spelled so that a deny list reads another host or port than
// the one the network code dials (issue 42, defect 7): every spelling of
// one address normalises alike.
func TestNormalSourceReadsHostsAsTheDialerDoes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://github.com:0443/evil/x", "github.com/evil/x"},
		{"https://github.com:00000443/evil/x", "github.com/evil/x"},
		{"http://127.0.0.1:08080/evil/x", "127.0.0.1:8080/evil/x"},
		{"ssh://git@github.com:022/evil/x", "github.com/evil/x"},
		{"https://127.1/evil/x", "127.0.0.1/evil/x"},
		{"https://127.0.1/evil/x", "127.0.0.1/evil/x"},
		{"https://0x7f.0.0.1/evil/x", "127.0.0.1/evil/x"},
		{"https://0177.0.0.01/evil/x", "127.0.0.1/evil/x"},
		{"https://2130706433/evil/x", "127.0.0.1/evil/x"},
		{"https://0x7f000001:0443/evil/x", "127.0.0.1/evil/x"},
		{"https://[0:0:0::1]:443/evil/x", "[::1]/evil/x"},
		{"https://[::FFFF:127.0.0.1]/evil/x", "127.0.0.1/evil/x"},
		{"http://[::ffff:7f00:1]:8080/evil/x", "127.0.0.1:8080/evil/x"},
		{"https://[::1]/evil/x", "[::1]/evil/x"},
		{"https://github.com/evil/x.GIT", "github.com/evil/x"},
		{"https://github.com/evil/x.git.git", "github.com/evil/x"},
		{"git@0x7f.1:evil/x.git", "127.0.0.1/evil/x"},
		// Not addresses: host names stay host names.
		{"https://1.2.3.com/evil/x", "1.2.3.com/evil/x"},
		{"https://0x.example/evil/x", "0x.example/evil/x"},
		{"https://256.1.1.1/evil/x", "256.1.1.1/evil/x"},
		{"https://1.2.3.4.5/evil/x", "1.2.3.4.5/evil/x"},
	} {
		if got := NormalSource(c.in); got != c.want {
			t.Errorf("NormalSource(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
