package discovery

import (
	"fmt"

	"github.com/quiver-cli/quiver/internal/plugins"
)

// Decided is what `quiver trust` did and has to say.
type Decided struct {
	// Trust is the project's trust after the decision.
	Trust Trust
	// Changed names what differs from the last record on this machine,
	// named before the person accepts it (trusting only).
	Changed []string
	// Sources are the lock's sources that came with the repository,
	// which trusting makes the person's own choice (trusting only).
	Sources []string
	// Revoked: a record was forgotten (revoking only).
	Revoked bool
}

// Decide records the person's decision about the project's hooks:
// trust them as they are now, or, with revoke, forget the record. agent
// is AgentSession's answer: trusting is a person's decision, refused
// inside an agent's session (revoking is not). The home scope has no
// project hooks to decide about.
func Decide(l plugins.Layout, revoke bool, agent string) (Decided, error) {
	var d Decided
	if l.Local == nil {
		return d, fmt.Errorf("%s is your home scope, whose hooks are always trusted; run quiver trust inside a project", l.ProjectDir)
	}
	var err error
	if revoke {
		if d.Revoked, err = RevokeTrust(l); err != nil {
			return d, err
		}
		d.Trust, err = ProjectTrust(l, false)
		return d, err
	}
	if agent != "" {
		return d, fmt.Errorf("quiver trust records a person's decision, and this runs inside an agent's session (%s is set): run it yourself, in a terminal", agent)
	}
	// What the person is about to accept, named before it is.
	if pre, err := ProjectTrust(l, false); err == nil {
		d.Changed, _ = ChangedSinceRecord(l, pre)
	}
	if d.Sources, err = RepositorySources(l); err != nil {
		return d, err
	}
	d.Trust, err = RecordTrust(l)
	return d, err
}

// Listing is what trust shows: each hook as hook list names it (a native
// hook, a hooks.json handler), then the files of hooks folders that are
// no hook (not regular, unsafe names) but which the fingerprint covers,
// with why a hook never runs (Escape).
func (t Trust) Listing() []ProjectHook {
	escapes := map[string]string{}
	for _, h := range t.Hooks {
		escapes[h.Path] = h.Escape
	}
	var out []ProjectHook
	listed := map[string]bool{}
	for _, it := range t.Items {
		out = append(out, ProjectHook{Name: it.Name, Path: it.Path, Escape: escapes[it.Path]})
		listed[it.Path] = true
	}
	for _, h := range t.Hooks {
		if !listed[h.Path] {
			out = append(out, h)
		}
	}
	return out
}
