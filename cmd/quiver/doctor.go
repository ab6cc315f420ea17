package main

import (
	"fmt"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
)

func (a *App) newDoctorCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Find problems with installed plugins and hooks, and say what to do",
		Long: `Look for what keeps hooks from firing or plugins from matching the lock
file: invalid and non-executable hooks, untrusted project hooks, lock/disk
drift, leftovers of interrupted commands, disabled plugins, invalid skills
and recipes, QUIVER_NO_HOOKS in effect, git missing where local
repositories must be cloned, a wired agent that cannot find quiver, and a
plugin installed both through quiver and natively in a wired agent (its
hooks would run twice). Each finding says what to do. Exits 0 on a
healthy setup (notes only), 1 otherwise. It never runs untrusted hooks.`,
		Example: "  quiver doctor\n  quiver doctor --json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			layout, err := a.layout()
			if err != nil {
				return err
			}
			fs, err := a.diagnose(cmd, layout)
			if err != nil {
				return err
			}
			r := newReport("", fs)
			if asJSON {
				if err := writeJSON(a.Stdout, r); err != nil {
					return err
				}
			} else {
				a.printReport(r)
			}
			if r.Errors+r.Warnings > 0 {
				return fmt.Errorf("found %d error(s) and %d warning(s)", r.Errors, r.Warnings)
			}
			if !asJSON {
				a.warnf("No problems found in %s.", scopeRoots(layout))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func scopeRoots(l plugins.Layout) string {
	if l.Local == nil {
		return l.Global.Root
	}
	return l.Local.Root + " and " + l.Global.Root
}

func (a *App) diagnose(cmd *cobra.Command, layout plugins.Layout) ([]finding, error) {
	var out []finding
	add := func(sev, file, reason, fix string) {
		out = append(out, finding{Severity: sev, File: file, Reason: reason, Fix: fix})
	}
	if a.Getenv("QUIVER_NO_HOOKS") == "1" {
		add("warning", "", "QUIVER_NO_HOOKS=1 is set: no hook runs at all", "unset QUIVER_NO_HOOKS")
	}
	hs, err := discovery.Hooks(cmd.Context(), a.discoveryOptions(layout))
	if err != nil {
		return nil, err
	}
	untrusted := 0
	for _, h := range hs.Hooks {
		switch h.Status {
		case discovery.Invalid:
			add("error", h.Path, fmt.Sprintf("hook %s is invalid: %s", h.Name, h.Reason), "see what it does with: quiver hook test "+h.Path+" --event EVENT")
		case discovery.Untrusted:
			untrusted++
		}
	}
	if untrusted > 0 {
		add("warning", "", fmt.Sprintf("%d project hook(s) are not trusted, so they never run", untrusted),
			"review them with quiver hook list --all, then run quiver trust")
	}
	for _, sk := range hs.Skipped {
		add("warning", sk.Path, "in a hooks folder but not a hook: "+sk.Reason, "chmod +x it if it is a hook, or move it out of hooks/")
	}
	for _, kind := range []discovery.Kind{discovery.Skill, discovery.Recipe} {
		find := discovery.Recipes
		if kind == discovery.Skill {
			find = discovery.Skills
		}
		docs, err := find(a.discoveryOptions(layout))
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			if d.Status == discovery.Invalid {
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
	for _, s := range layout.Scopes() {
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
					"quiver plugin install"+scopeFlag(s)+" restores the locked version")
			case "missing":
				add("error", s.LockPath(), fmt.Sprintf("%s plugin %s is in the lock file but not installed", s.Location, r.Name), "quiver plugin install"+scopeFlag(s))
			case "unlocked":
				add("warning", dir, fmt.Sprintf("%s plugin %s is installed but not in the lock file", s.Location, r.Name),
					"add it properly with quiver plugin add --force, or remove it with quiver plugin install --prune"+scopeFlag(s))
			case "leftover":
				add("warning", dir, "leftover of an interrupted command", "any mutating command cleans it, e.g. quiver plugin install"+scopeFlag(s))
			}
		}
		ps, err := plugins.ListPlugins(s)
		if err != nil {
			continue
		}
		for _, p := range ps {
			if !p.Enabled() {
				add("info", p.Dir, fmt.Sprintf("%s plugin %s is disabled: it contributes no hook, skill or recipe", s.Location, p.Name), "quiver plugin enable "+p.Name.String()+scopeFlag(s))
			}
			if gitMissing && p.Entry.Commit != "" && filepath.IsAbs(p.Entry.Source) {
				add("error", p.Entry.Source, fmt.Sprintf("%s plugin %s comes from a local git repository, and git is not installed", s.Location, p.Name),
					"install git: quiver clones local repositories with git-upload-pack")
			}
		}
	}
	out = append(out, a.wirer(layout).Diagnose()...)
	return out, nil
}

func scopeFlag(s plugins.Scope) string {
	if s.Location == plugins.Global {
		return " -g"
	}
	return ""
}

func describeChangedList(changed []string) string {
	if len(changed) == 0 {
		return "(content hash)"
	}
	return fmt.Sprintf("(changed: %s)", plugins.ChangedList(changed))
}
