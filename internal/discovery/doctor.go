package discovery

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/format"
	"github.com/quiver-cli/quiver/internal/term"
)

// Diagnose finds what `quiver doctor` reports about the scopes of o, each
// finding with what to do: invalid hooks, untrusted project hooks, files
// in hooks folders that are no hook, invalid skills and recipes, lock/disk
// drift and leftovers of interrupted commands, disabled plugins, and
// plugins from local git repositories when git is missing. It never runs
// an untrusted hook. An error is a scope that cannot be read at all.
func Diagnose(ctx context.Context, o Options) ([]format.Finding, error) {
	var out []format.Finding
	add := func(sev, file, reason, fix string) {
		out = append(out, format.Finding{Severity: sev, File: file, Reason: reason, Fix: fix})
	}
	hs, err := Hooks(ctx, o)
	if err != nil {
		return nil, err
	}
	untrusted := 0
	for _, h := range hs.Hooks {
		_, claudeOnly := h.ForClaude()
		switch {
		case claudeOnly:
			add("info", h.Path, fmt.Sprintf("hook %s %s: only Claude Code runs it; for other agents it is listed invalid and blocks nothing", h.Name, h.Reason), "")
		case h.Status == Invalid:
			add("error", h.Path, fmt.Sprintf("hook %s is invalid: %s", h.Name, h.Reason), "see what it does with: quiver hook test "+h.Path+" --event EVENT")
		case h.Status == Untrusted:
			untrusted++
		}
	}
	if untrusted > 0 {
		add("warning", "", fmt.Sprintf("%s not trusted, so they never run", term.Counts(untrusted, "project hook is", "project hooks are")),
			"review them with quiver hook list --all, then run quiver trust")
	}
	for _, sk := range hs.Skipped {
		add("warning", sk.Path, "in a hooks folder but not a hook: "+sk.Reason, "chmod +x it if it is a hook, or move it out of hooks/")
	}
	for _, kind := range []Kind{Skill, Recipe} {
		find := Recipes
		if kind == Skill {
			find = Skills
		}
		docs, err := find(o)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			if d.Status == Invalid {
				add("warning", d.Path, fmt.Sprintf("%s %s is invalid: %s", kind, d.Name, d.Reason), "fix its frontmatter (quiver plugin validate checks a plugin)")
			}
		}
	}
	gitMissing := false
	if _, err := exec.LookPath("git-upload-pack"); err != nil {
		if _, err := exec.LookPath("git"); err != nil {
			gitMissing = true
		}
	}
	for _, s := range o.Layout.Scopes() {
		res, err := plugins.Verify(s)
		if err != nil {
			add("error", s.LockPath(), err.Error(), "restore the lock file from version control")
			continue
		}
		for _, r := range res {
			dir := filepath.Join(s.PluginsDir(), r.Name) // leftovers are named by their folder
			if n, err := plugins.ParseName(r.Name); err == nil {
				dir = s.PluginDir(n)
			}
			switch r.Status {
			case "modified":
				add("error", dir, fmt.Sprintf("%s plugin %s differs from the lock file %s", s.Location, r.Name, describeChangedList(r.Changed)),
					"quiver plugin install"+s.Flag()+" restores the locked version")
			case "missing":
				add("error", s.LockPath(), fmt.Sprintf("%s plugin %s is in the lock file but not installed", s.Location, r.Name), "quiver plugin install"+s.Flag())
			case "unverified":
				add("error", dir, fmt.Sprintf("%s plugin %s matches the lock file's hash, but no install on this machine fetched it from its source", s.Location, r.Name),
					"quiver plugin install"+s.Flag()+" fetches it")
			case "unlocked":
				add("warning", dir, fmt.Sprintf("%s plugin %s is installed but not in the lock file", s.Location, r.Name),
					"add it properly with quiver plugin add --force, or remove it with quiver plugin install"+s.Flag())
			case "leftover":
				add("warning", dir, "leftover of an interrupted command", "any mutating command cleans it, e.g. quiver plugin install"+s.Flag())
			}
		}
		ps, err := plugins.ListPlugins(s)
		if err != nil {
			continue
		}
		for _, p := range ps {
			if !p.Enabled() {
				add("info", p.Dir, fmt.Sprintf("%s plugin %s is disabled: it contributes no hook, skill or recipe", s.Location, p.Name), "quiver plugin enable "+p.Name.String()+s.Flag())
			}
			if gitMissing && p.Entry.Commit != "" && filepath.IsAbs(p.Entry.Source) {
				add("error", p.Entry.Source, fmt.Sprintf("%s plugin %s comes from a local git repository, and git is not installed", s.Location, p.Name),
					"install git: quiver clones local repositories with git-upload-pack")
			}
		}
	}
	return out, nil
}

// DiagnoseEnv is what `quiver doctor` reports about the environment
// read through getenv before any scope: QUIVER_NO_HOOKS=1, which turns
// every hook off.
func DiagnoseEnv(getenv func(string) string) []format.Finding {
	var out []format.Finding
	if getenv("QUIVER_NO_HOOKS") == "1" {
		out = append(out, format.Finding{Severity: "warning", Reason: "QUIVER_NO_HOOKS=1 is set: no hook runs at all", Fix: "unset QUIVER_NO_HOOKS"})
	}
	return out
}

// DiagnoseGitHelper is what quiver doctor says of the git helper
// (plugins.CheckGitHelper): nothing when it answers, else why not and how
// to install it. Without it nothing can be fetched: plugin add, update,
// install and outdated fail.
func DiagnoseGitHelper(ctx context.Context) []format.Finding {
	// A helper that hangs is a finding too, not a hung doctor.
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := plugins.CheckGitHelper(ctx); err != nil {
		return []format.Finding{{Severity: "error", Reason: fmt.Sprintf("plugins cannot be fetched: %v", err),
			Fix: "install quiver-git beside quiver: CGO_ENABLED=0 go install ./cmd/quiver ./cmd/quiver-git (README, Install)"}}
	}
	return nil
}

func describeChangedList(changed []string) string {
	if len(changed) == 0 {
		return "(content hash)"
	}
	return fmt.Sprintf("(changed: %s)", plugins.ChangedList(changed))
}
