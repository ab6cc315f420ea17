package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
)

// Commands that work from the lock file: outdated, update, install, verify,
// enable and disable.

// parseNames validates every name before anything else happens.
func parseNames(cmd *cobra.Command, raw []string) ([]plugins.Name, error) {
	var names []plugins.Name
	seen := map[plugins.Name]bool{}
	for _, r := range raw {
		n, err := plugins.ParseName(r)
		if err != nil {
			return nil, &usageError{err: err, cmd: cmd}
		}
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return names, nil
}

// scopeError explains a plugin installed in the other scope, naming the
// flag, for command verb.
func scopeError(err error, verb string) error {
	var ws *plugins.WrongScopeError
	if errors.As(err, &ws) {
		if ws.In == plugins.Global {
			return fmt.Errorf("plugin %s is installed globally; use -g to %s it", ws.Name, verb)
		}
		return fmt.Errorf("plugin %s is installed in the project, not globally; drop -g to %s it", ws.Name, verb)
	}
	if errors.Is(err, plugins.ErrNotInstalled) {
		return fmt.Errorf("%w; see quiver plugin list", err)
	}
	return err
}

// ---- plugin outdated ----

// outdatedJSON is one plugin in `plugin outdated --json`.
type outdatedJSON struct {
	Name            string `json:"name"`
	Location        string `json:"location"`
	Ref             string `json:"ref"`
	Current         string `json:"current"`
	Latest          string `json:"latest"`
	Pinned          bool   `json:"pinned"`
	Local           bool   `json:"local"`
	UpdateAvailable bool   `json:"update_available"`
	Error           string `json:"error,omitempty"`
}

func (a *App) newPluginOutdatedCmd() *cobra.Command {
	var global, asJSON bool
	cmd := &cobra.Command{
		Use:   "outdated",
		Short: "Show which plugins update would move",
		Long: `For each plugin in the lock file, show the locked commit and the newest
commit its ref points to now, asking the remote for its refs only (no
clone). Tag and commit pins are shown as pinned, local folders and links as
local. Exits 1 when a remote cannot be asked.`,
		Example: "  quiver plugin outdated\n  quiver plugin outdated -g --json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			layout, err := a.layout()
			if err != nil {
				return err
			}
			in := a.installer(layout, global)
			res, err := in.Update(cmd.Context(), nil, plugins.UpdateOptions{DryRun: true, Force: true, Resolve: a.marketplaces(layout, global).Resolve})
			if err != nil {
				return err
			}
			out := []outdatedJSON{}
			failed := false
			for _, r := range res {
				o := outdatedJSON{
					Name: r.Name.String(), Location: string(in.Scope.Location), Ref: r.Ref,
					Current: r.From, Latest: r.To, Pinned: r.Status == plugins.Pinned,
					Local: r.Status == plugins.LocalSource, UpdateAvailable: r.Status == plugins.WouldUpdate,
				}
				if r.Err != nil {
					o.Error, failed = r.Err.Error(), true
				}
				out = append(out, o)
			}
			if asJSON {
				if err := writeJSON(a.Stdout, out); err != nil {
					return err
				}
			} else if len(out) == 0 {
				a.warnf("No plugins in %s.", in.Scope.LockPath())
			} else {
				rows := [][]string{}
				for _, o := range out {
					latest := shortCommit(o.Latest)
					switch {
					case o.Error != "":
						latest = "error: " + oneLine(o.Error)
					case o.Pinned:
						latest = "pinned"
					case o.Local:
						latest = "local"
					case !o.UpdateAvailable:
						latest = "up to date"
					}
					rows = append(rows, []string{o.Name, o.Location, dash(shortRef(o.Ref)), dash(shortCommit(o.Current)), latest})
				}
				if err := a.writeTable([]string{"NAME", "LOCATION", "REF", "CURRENT", "LATEST"}, rows); err != nil {
					return err
				}
			}
			if failed {
				return errReported
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&global, "global", "g", false, "check plugins installed in your home")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// ---- plugin update ----

type pluginUpdateOptions struct {
	Names               []string
	All, Global, DryRun bool
	Force, JSON         bool
	Ref                 string
}

// updateJSON is one plugin in `plugin update --json`.
type updateJSON struct {
	Name   string `json:"name"`
	Ref    string `json:"ref"`
	From   string `json:"from"`
	To     string `json:"to"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

func (a *App) newPluginUpdateCmd() *cobra.Command {
	var o pluginUpdateOptions
	cmd := &cobra.Command{
		Use:   "update [NAME...]",
		Short: "Move branch-tracking plugins to their newest commit",
		Long: `Update plugins that follow a branch (or the default branch) to its newest
commit, through the same staged, atomic swap as add, and record the new
commit and content hash in the lock file. Plugins pinned to a tag or a
commit stay where they are unless --ref moves them. A plugin whose folder
was edited is refused (the message lists the changed files) unless
--force. The plugin's data folder is kept. --dry-run changes nothing.`,
		Example: "  quiver plugin update --all\n  quiver plugin update acme/guard --dry-run\n  quiver plugin update acme/guard --ref v2.0.0",
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Names = args
			return a.runPluginUpdate(cmd, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.All, "all", false, "update every plugin of the scope")
	f.BoolVarP(&o.Global, "global", "g", false, "update plugins installed in your home")
	f.BoolVar(&o.DryRun, "dry-run", false, "show what would change, change nothing")
	f.BoolVar(&o.Force, "force", false, "discard local edits to the plugin folders")
	f.StringVar(&o.Ref, "ref", "", "move one plugin to this branch, tag or commit")
	f.BoolVar(&o.JSON, "json", false, "print JSON")
	return cmd
}

func (a *App) runPluginUpdate(cmd *cobra.Command, o pluginUpdateOptions) error {
	switch {
	case len(o.Names) == 0 && !o.All:
		return usageErrorf(cmd, "name the plugins to update, or pass --all")
	case len(o.Names) > 0 && o.All:
		return usageErrorf(cmd, "give plugin names or --all, not both")
	case o.Ref != "" && len(o.Names) != 1:
		return usageErrorf(cmd, "--ref moves one plugin; name it")
	}
	if o.Ref != "" {
		if err := plugins.ValidateRef(o.Ref); err != nil {
			return &usageError{err: err, cmd: cmd}
		}
	}
	names, err := parseNames(cmd, o.Names)
	if err != nil {
		return err
	}
	layout, err := a.layout()
	if err != nil {
		return err
	}
	in := a.installer(layout, o.Global)
	var res []plugins.UpdateResult
	change := func() error {
		res, err = in.Update(cmd.Context(), names, plugins.UpdateOptions{Ref: o.Ref, Force: o.Force, DryRun: o.DryRun, Resolve: a.marketplaces(layout, o.Global).Resolve})
		return err
	}
	if o.DryRun {
		err = change()
	} else {
		// No names: every plugin may move (update --all).
		var touched []plugins.Name
		if len(names) > 0 {
			touched = names
		}
		err = a.keepTrust(layout, o.Global, &discovery.Change{Plugins: touched}, change, nil)
	}
	if err != nil {
		return scopeError(err, "update")
	}
	out := []updateJSON{}
	failed := false
	for _, r := range res {
		u := updateJSON{Name: r.Name.String(), Ref: r.Ref, From: r.From, To: r.To, Status: r.Status}
		if r.Err != nil {
			u.Status, u.Error, failed = "failed", r.Err.Error(), true
			if len(res) == 1 && !o.JSON {
				return r.Err
			}
			if !o.JSON {
				a.printError(r.Err)
			}
		} else if !o.JSON {
			a.warnf("%s", describeUpdate(r))
		}
		out = append(out, u)
	}
	if o.JSON {
		if err := writeJSON(a.Stdout, out); err != nil {
			return err
		}
	}
	if failed {
		return errReported
	}
	return nil
}

func describeUpdate(r plugins.UpdateResult) string {
	switch r.Status {
	case plugins.Updated:
		return fmt.Sprintf("Updated %s %s -> %s", r.Name, shortCommit(r.From), shortCommit(r.To))
	case plugins.WouldUpdate:
		to := shortCommit(r.To)
		if to == "" {
			to = r.Ref
		}
		return fmt.Sprintf("Would update %s %s -> %s", r.Name, shortCommit(r.From), to)
	case plugins.Pinned:
		return fmt.Sprintf("%s is pinned at %s; move it with plugin update %s --ref REF", r.Name, shortRef(r.Ref), r.Name)
	case plugins.LocalSource:
		return fmt.Sprintf("%s is a local folder; reinstall it with plugin add --force", r.Name)
	}
	return fmt.Sprintf("%s is already up to date (%s)", r.Name, shortCommit(r.To))
}

// ---- plugin install ----

func (a *App) newPluginInstallCmd() *cobra.Command {
	var global, prune bool
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Make the installed plugins match quiver.lock exactly",
		Long: `Install every plugin of the lock file at its locked commit, checking each
against its locked content hash before it is swapped in: missing plugins
are installed, differing ones repaired, matching ones left alone. This is
how a teammate reproduces a project's plugins after git clone. Plugins not
in the lock stay (with a warning) unless --prune. One entry that cannot be
installed does not stop the others; the command then exits 1.`,
		Example: "  git clone https://example.com/team/app && cd app && quiver plugin install\n  quiver plugin install -g --prune",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			layout, err := a.layout()
			if err != nil {
				return err
			}
			in := a.installer(layout, global)
			// Never keepTrust: the lock file came with the repository, so
			// what it names is the repository's choice, not the user's
			// (SPEC §9). Its hooks stay untrusted until quiver trust.
			res, err := in.Sync(cmd.Context(), prune)
			if err != nil {
				return err
			}
			failed := false
			counts := map[string]int{}
			for _, r := range res {
				if r.Marketplace != "" {
					switch r.Status {
					case "failed":
						a.printError(r.Err)
						failed = true
					case "installed", "repaired":
						a.warnf("%s marketplace %s", strings.ToUpper(r.Status[:1])+r.Status[1:], r.Marketplace)
					}
					continue
				}
				counts[r.Status]++
				switch r.Status {
				case "failed":
					a.printError(r.Err)
					failed = true
				case "unlocked":
					a.warnf("quiver: %s is installed but not in %s; keep it, add it with plugin add --force, or remove it with plugin install --prune", r.Name, in.Scope.LockPath())
				case "installed", "repaired", "pruned":
					a.warnf("%s %s", strings.ToUpper(r.Status[:1])+r.Status[1:], r.Name)
				}
			}
			a.warnf("%d plugin(s) up to date with %s, %d installed, %d repaired, %d failed",
				counts["ok"], in.Scope.LockPath(), counts["installed"], counts["repaired"], counts["failed"])
			if in.Scope.Location == plugins.Local {
				if t, err := discovery.ProjectTrust(layout, false); err == nil && !t.Trusted() && t.UntrustedCount() > 0 {
					a.warnf("quiver: %d project hook(s) are not trusted, so none of them runs; review them with 'quiver hook list --all', then run 'quiver trust'", t.UntrustedCount())
				}
			}
			if failed {
				return errReported
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&global, "global", "g", false, "install your home's lock file")
	cmd.Flags().BoolVar(&prune, "prune", false, "remove installed plugins that are not in the lock file")
	return cmd
}

// ---- plugin verify ----

// verifyJSON is one line of `plugin verify --json`.
type verifyJSON struct {
	Name     string   `json:"name"`
	Location string   `json:"location"`
	Status   string   `json:"status"`
	Changed  []string `json:"changed,omitempty"`
}

func (a *App) newPluginVerifyCmd() *cobra.Command {
	var global, asJSON bool
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check installed plugins against the content hashes in quiver.lock",
		Long: `Recompute the content hash of every installed plugin and compare it with the
lock file: ok, modified (with the changed files when the plugin is a git
checkout), missing, unlocked (installed but not in the lock), and leftovers
of an interrupted command (the next add, update, remove or install cleans
them; they are not drift). Exits 1 on any drift. Changes nothing.`,
		Example: "  quiver plugin verify\n  quiver plugin verify -g --json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			layout, err := a.layout()
			if err != nil {
				return err
			}
			s := layout.Scope(global)
			res, err := plugins.Verify(s)
			if err != nil {
				return err
			}
			out := []verifyJSON{}
			drift := false
			for _, r := range res {
				out = append(out, verifyJSON{Name: r.Name, Location: string(s.Location), Status: r.Status, Changed: r.Changed})
				// A leftover of an interrupted command is shown, but it is
				// no plugin and the next mutating command removes it:
				// it is not drift.
				drift = drift || (r.Status != "ok" && r.Status != "leftover")
			}
			if asJSON {
				if err := writeJSON(a.Stdout, out); err != nil {
					return err
				}
			} else {
				rows := [][]string{}
				for _, r := range out {
					rows = append(rows, []string{r.Name, r.Location, r.Status, strings.Join(r.Changed, ", ")})
				}
				if len(rows) > 0 {
					if err := a.writeTable([]string{"NAME", "LOCATION", "STATUS", "CHANGED"}, rows); err != nil {
						return err
					}
				}
			}
			if drift {
				return fmt.Errorf("installed plugins differ from %s; plugin install repairs them", s.LockPath())
			}
			matched := 0
			for _, r := range out {
				if r.Status == "ok" {
					matched++
				}
			}
			a.warnf("All %d plugin(s) match %s.", matched, s.LockPath())
			return nil
		},
	}
	cmd.Flags().BoolVarP(&global, "global", "g", false, "verify plugins installed in your home")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// ---- plugin enable / disable ----

func (a *App) newPluginEnableCmd(disable bool) *cobra.Command {
	verb, did := "enable", "Enabled"
	short := "Let a disabled plugin contribute its hooks, skills and recipes again"
	if disable {
		verb, did = "disable", "Disabled"
		short = "Stop a plugin from contributing any hook, skill or recipe"
	}
	var global bool
	cmd := &cobra.Command{
		Use:   verb + " NAME...",
		Short: short,
		Long: fmt.Sprintf(`%s plugins: recorded as "disabled" in the lock file, so it is shared with
the team. A disabled plugin stays installed but contributes no hook, skill
or recipe, so none of its hooks can run.`, strings.ToUpper(verb[:1])+verb[1:]),
		Example: fmt.Sprintf("  quiver plugin %s acme/guard\n  quiver plugin %s -g acme/guard", verb, verb),
		Args:    minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			names, err := parseNames(cmd, args)
			if err != nil {
				return err
			}
			layout, err := a.layout()
			if err != nil {
				return err
			}
			in := a.installer(layout, global)
			changed := false
			err = a.keepTrust(layout, global, &discovery.Change{Plugins: names}, func() error {
				err := in.SetDisabled(cmd.Context(), names, disable)
				changed = err == nil
				return err
			}, func() error {
				if !changed {
					return nil
				}
				return discovery.ChooseDisabled(layout, names, disable)
			})
			if err != nil {
				return scopeError(err, verb)
			}
			for _, n := range names {
				a.warnf("%s %s %s", did, n, scopeWord(in.Scope.Location))
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&global, "global", "g", false, "act on your home's plugins")
	return cmd
}
