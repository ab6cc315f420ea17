package discovery

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/policy"
	"github.com/quiver-cli/quiver/internal/plugins/scan"
	"github.com/quiver-cli/quiver/internal/safefs"
	"github.com/quiver-cli/quiver/internal/term"
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
	// Scan is what the content scan found in the project's own items
	// and settings (warnings, and critical findings let in).
	Scan []scan.Finding
}

// Decide records the person's decision about the project's hooks:
// trust them as they are now, or, with revoke, forget the record. agent
// is AgentSession's answer: trusting is a person's decision, refused
// inside an agent's session (revoking is not). The home scope has no
// project hooks to decide about. pol, when not nil, is the team's policy:
// what the project has installed must keep it to be trusted (SPEC §17).
//
// The project's own items and settings, which reach the agents once it is
// trusted, are scanned as installs scan a plugin (SPEC §17): a critical
// finding refuses unless hidden (scan.ModeFor of --allow-hidden-unicode,
// under the policy's scan.hidden_unicode) lets it in.
func Decide(l plugins.Layout, revoke bool, agent string, pol *policy.Policy, hidden scan.Mode) (Decided, error) {
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
	if err := pol.Scope(false).CheckInstalled(*l.Local); err != nil {
		return d, fmt.Errorf("not trusting %s: %w", l.ProjectDir, err)
	}
	// A folder that no install on this machine fetched may be what the
	// repository committed beside a lock entry of its own hash: it is not
	// the person's to trust until quiver fetched what the lock names.
	if res, err := plugins.Verify(*l.Local); err == nil {
		var unverified []string
		for _, r := range res {
			if r.Status == "unverified" {
				unverified = append(unverified, r.Name)
			}
		}
		if len(unverified) > 0 {
			return d, fmt.Errorf("not trusting %s: plugin %s was not fetched by quiver on this machine (the folder came with the repository); run quiver plugin install, which fetches what the lock names", l.ProjectDir, safefs.Visible(strings.Join(unverified, ", ")))
		}
	}
	if pol != nil {
		hidden = pol.Scope(false).ScanMode(hidden)
	}
	if hidden != scan.Off {
		rep, err := plugins.ScanOwn(*l.Local)
		if err != nil {
			return d, fmt.Errorf("not trusting %s: %w", l.ProjectDir, err)
		}
		if rel, err := filepath.Rel(l.ProjectDir, l.Local.Root); err == nil {
			for i := range rep.Findings {
				rep.Findings[i].File = filepath.ToSlash(filepath.Join(rel, rep.Findings[i].File))
			}
		}
		if crit := rep.Critical(); len(crit) > 0 && hidden == scan.Block {
			return d, fmt.Errorf("not trusting %s: its own files hold %w", l.ProjectDir, &plugins.HiddenUnicodeError{Findings: crit, Verb: "trust it"})
		}
		d.Scan = rep.Findings
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

// Summary is what quiver trust says of d in the project at dir: the
// lines it prints, then a notice for the person ("" for none). Text the
// repository wrote is made visible (safefs.Visible).
func (d Decided) Summary(dir string, revoke bool) (lines []string, notice string) {
	if revoke {
		if d.Revoked {
			return nil, fmt.Sprintf("No longer trusting the hooks of %s.", dir)
		}
		return nil, fmt.Sprintf("%s was not trusted.", dir)
	}
	say := func(format string, a ...any) { lines = append(lines, fmt.Sprintf(format, a...)) }
	for _, f := range d.Scan {
		say("quiver: %s: hidden Unicode in the project's own files: %s", f.Severity, f)
	}
	t := d.Trust
	if len(d.Changed) > 0 {
		say("Changed since you last trusted %s: %s", dir, safefs.Visible(strings.Join(d.Changed, ", ")))
	}
	if len(d.Sources) > 0 {
		say("From sources the repository chose, now yours to update from:")
		for _, line := range d.Sources {
			say("  %s", safefs.Visible(line))
		}
	}
	if t.Empty() {
		return lines, fmt.Sprintf("%s has no project hooks; its plugin set is recorded as reviewed, so your own commands here keep it trusted.", dir)
	}
	if listing := t.Listing(); len(listing) > 0 {
		say("Trusted %s in %s:", term.Count(len(t.Items), "project hook"), safefs.Visible(dir))
		for _, h := range listing {
			rel, err := filepath.Rel(dir, h.Path)
			if err != nil {
				rel = h.Path
			}
			line := fmt.Sprintf("  %-40s %s", h.Name, rel)
			if h.Escape != "" {
				line += " (invalid, never runs: " + h.Escape + ")"
			}
			say("%s", safefs.Visible(line))
		}
	}
	if len(t.Files) > 0 {
		say("and %s of their folders that they may run or load (see quiver trust --json).", term.Counts(len(t.Files), "other file", "other files"))
	}
	if len(t.Shadows) > 0 {
		if len(t.Shadows) == 1 {
			say("The project's hook %s replaces your global hook of the same name, which does not run here.", safefs.Visible(t.Shadows[0]))
		} else {
			say("The project's hooks %s replace your global hooks of the same names, which do not run here.", safefs.Visible(strings.Join(t.Shadows, ", ")))
		}
	}
	if len(t.Replaces) > 0 {
		say("Trusted the project's own version of %s in %s: it replaces your global install, whose hooks do not run here.", safefs.Visible(strings.Join(t.Replaces, ", ")), dir)
	}
	say("This holds until any of it changes; then quiver asks you again.")
	return lines, ""
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

// UntrustedNotice is what a command that installed the project's plugins
// from its lock says when their hooks are not trusted (then none runs),
// "" when they are or the scope is the user's own.
func UntrustedNotice(l plugins.Layout, s plugins.Scope) string {
	if s.Location != plugins.Local {
		return ""
	}
	t, err := ProjectTrust(l, false)
	if err != nil || t.Trusted() || t.UntrustedCount() == 0 {
		return ""
	}
	return fmt.Sprintf("quiver: %s not trusted, so none of them runs; review them with 'quiver hook list --all', then run 'quiver trust'", term.Counts(t.UntrustedCount(), "project hook is", "project hooks are"))
}

// TrustReport is what quiver trust --json prints.
type TrustReport struct {
	Project     string            `json:"project"`
	Trusted     bool              `json:"trusted"`
	Fingerprint string            `json:"fingerprint"`
	Hooks       []TrustReportHook `json:"hooks"`
	// Replaces lists the project's plugins that shadow your global
	// install of the same plugin (whose hooks then do not run here).
	Replaces []string `json:"replaces"`
	// Shadows lists your global standalone hooks that a project hook of
	// the same name switches off here.
	Shadows []string `json:"shadows"`
	// Files are the other files of the project's hooks' folders, which
	// the fingerprint covers because the hooks may run them.
	Files []string `json:"files"`
	// Changed names what differs from the last record on this machine.
	Changed []string `json:"changed"`
	// Sources are the lock's sources that came with the repository,
	// which trusting makes the user's own choice.
	Sources []string `json:"sources"`
}

// TrustReportHook is one project hook in TrustReport.
type TrustReportHook struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// Invalid says why the hook never runs, trusted or not (it leaves
	// its folder through a symlink).
	Invalid string `json:"invalid,omitempty"`
}

// Report is d as quiver trust --json prints it; its lists are never nil,
// so JSON says [].
func (d Decided) Report() TrustReport {
	t := d.Trust
	out := TrustReport{Project: t.Project, Trusted: t.Trusted(), Fingerprint: t.Fingerprint, Hooks: []TrustReportHook{},
		Replaces: append([]string{}, t.Replaces...), Shadows: append([]string{}, t.Shadows...), Files: []string{},
		Changed: append([]string{}, d.Changed...), Sources: append([]string{}, d.Sources...)}
	for _, f := range t.Files {
		out.Files = append(out.Files, f.Path)
	}
	for _, h := range t.Listing() {
		out.Hooks = append(out.Hooks, TrustReportHook{Name: h.Name, Path: h.Path, Invalid: h.Escape})
	}
	return out
}
