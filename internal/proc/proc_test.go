package proc

import (
	"slices"
	"testing"
)

// TestEnvironKeepsHooksFromChangingTheirTrust: whatever the caller's
// environment holds, a hook process gets PYTHONDONTWRITEBYTECODE=1 (so a
// trusted Python hook never writes .pyc files into its fingerprinted
// folder), and neither the shells' startup files nor quiver's token.
func TestEnvironKeepsHooksFromChangingTheirTrust(t *testing.T) {
	t.Setenv("PYTHONDONTWRITEBYTECODE", "")
	t.Setenv("BASH_ENV", "/tmp/x.sh")
	t.Setenv("ENV", "./rc")
	t.Setenv("QUIVER_GIT_TOKEN", "secret")
	t.Setenv("KEEP", "me")
	env := Environ("QUIVER_EVENT=run", "PYTHONDONTWRITEBYTECODE=")
	for _, want := range []string{"PYTHONDONTWRITEBYTECODE=1", "KEEP=me", "QUIVER_EVENT=run"} {
		if !slices.Contains(env, want) {
			t.Errorf("Environ lacks %s", want)
		}
	}
	for _, kv := range env {
		switch kv {
		case "PYTHONDONTWRITEBYTECODE=", "BASH_ENV=/tmp/x.sh", "ENV=./rc", "QUIVER_GIT_TOKEN=secret":
			t.Errorf("Environ holds %s", kv)
		}
	}
}
