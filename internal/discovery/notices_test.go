package discovery

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

func TestKeptNotices(t *testing.T) {
	untrusted := Trust{Hooks: []ProjectHook{{}}, Fingerprint: "new", Recorded: "old"}
	many := []string{"a", "b", "c", "d", "e", "f", "g"}
	tests := []struct {
		name string
		k    Kept
		want []string
	}{
		{"renewed", Kept{Renewal: Renewal{Renewed: true, Trust: Trust{}}}, nil},
		{"agent, trusted", Kept{Agent: "CLAUDECODE"}, nil},
		{"agent, untrusted", Kept{Agent: "CLAUDECODE", AgentUntrusted: true, RecordErr: errors.New("ignored")},
			[]string{"quiver: the project's hooks are not trusted, and quiver records no trust inside an agent's session (CLAUDECODE is set): run quiver trust yourself, in a terminal"}},
		{"record and snapshot errors", Kept{RecordErr: errors.New("disk full"), SnapshotErr: errors.New("unreadable")},
			[]string{"quiver: could not record your choice of source: disk full",
				"quiver: could not read the project's trust before the change, so it was not renewed: unreadable"}},
		{"raced", Kept{RenewErr: fmt.Errorf("renew: %w", ErrTrustChanged)},
			[]string{"quiver: the project's trust changed while this command ran, so it was not renewed; review with quiver hook list --all, then run quiver trust"}},
		{"renew error", Kept{RenewErr: errors.New("boom")}, []string{"quiver: could not record trust for the project's hooks: boom"}},
		{"stale", Kept{Renewal: Renewal{Stale: true, Trust: untrusted}},
			[]string{"quiver: trust was not renewed: the project changed since you last trusted it (a pull?); quiver trust names what changed"}},
		{"foreign, cut at five", Kept{Renewal: Renewal{Foreign: many, Trust: untrusted}},
			[]string{"quiver: trust was not renewed: a, b, c, d, e, and 2 more changed without being your choice (changed meanwhile, or fetched from a source the repository's lock or marketplace chose); review with quiver hook list --all, then run quiver trust"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.k.Notices(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Notices() = %q\nwant %q", got, tt.want)
			}
		})
	}
	if len(many) != 7 {
		t.Errorf("Notices changed its argument: %q", many)
	}
}
