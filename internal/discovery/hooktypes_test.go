package discovery

import (
	"testing"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// TestOptionsFor: QUIVER_QUERY_TIMEOUT bounds the `hook` question, a bad
// one is the default and an error that names it; QUIVER_TRUST_ALL=1
// trusts all; hooks are asked with QUIVER_PROJECT_DIR.
func TestOptionsFor(t *testing.T) {
	layout := plugins.NewLayout("/p", "/h/.quiver")
	for _, c := range []struct {
		timeout, trustAll string
		want              time.Duration
		bad               bool
	}{
		{"", "", DefaultQueryTimeout, false},
		{"50ms", "1", 50 * time.Millisecond, false},
		{"soon", "0", DefaultQueryTimeout, true},
		{"0s", "", DefaultQueryTimeout, true},
	} {
		vars := map[string]string{"QUIVER_QUERY_TIMEOUT": c.timeout, "QUIVER_TRUST_ALL": c.trustAll}
		o, err := OptionsFor(layout, func(k string) string { return vars[k] })
		if o.QueryTimeout != c.want || (err != nil) != c.bad || o.TrustAll != (c.trustAll == "1") {
			t.Errorf("%q, %q: timeout %v, trust all %v, error %v", c.timeout, c.trustAll, o.QueryTimeout, o.TrustAll, err)
		}
		if len(o.Env) != 1 || o.Env[0] != "QUIVER_PROJECT_DIR=/p" || o.Layout.ProjectDir != "/p" {
			t.Errorf("env %q, layout %+v", o.Env, o.Layout)
		}
	}
}
