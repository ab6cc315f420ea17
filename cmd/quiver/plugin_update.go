package main

import (
	"fmt"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/spf13/cobra"
)

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
