package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
)

type trustOptions struct {
	Revoke, JSON bool
}

func (a *App) newTrustCmd() *cobra.Command {
	var o trustOptions
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Trust (or distrust) the project's hooks",
		Long: `Project hooks (.quiver/hooks and the hooks of the project's plugins) come
with the repository, which anyone may have written, so quiver runs none of
them (not even to ask their event) until you trust them. quiver trust lists
them and records a fingerprint of their paths, exec bits and contents in
$QUIVER_HOME/trust.yaml. When any of them changes they are untrusted again
until you run quiver trust once more. --revoke forgets the record.

Your own plugin add/remove in a trusted project keeps it trusted.
QUIVER_TRUST_ALL=1 trusts everything (for CI and containers).`,
		Example: "  quiver hook list --all   # review what would run\n  quiver trust\n  quiver trust --revoke",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runTrust(o)
		},
	}
	cmd.Flags().BoolVar(&o.Revoke, "revoke", false, "stop trusting the project's hooks")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	return cmd
}

func (a *App) runTrust(o trustOptions) error {
	layout, err := a.layout()
	if err != nil {
		return err
	}
	d, err := discovery.Decide(layout, o.Revoke, discovery.AgentSession(a.Getenv))
	if err != nil {
		return err
	}
	t, changed, fromRepo := d.Trust, d.Changed, d.Sources
	if o.Revoke && !o.JSON {
		if d.Revoked {
			a.warnf("No longer trusting the hooks of %s.", layout.ProjectDir)
		} else {
			a.warnf("%s was not trusted.", layout.ProjectDir)
		}
	}
	if o.JSON {
		return writeJSON(a.Stdout, d.Report())
	}
	if o.Revoke {
		return nil
	}
	if len(changed) > 0 {
		fmt.Fprintf(a.Stdout, "Changed since you last trusted %s: %s\n", layout.ProjectDir, visible(strings.Join(changed, ", ")))
	}
	if len(fromRepo) > 0 {
		fmt.Fprintf(a.Stdout, "From sources the repository chose, now yours to update from:\n")
		for _, line := range fromRepo {
			fmt.Fprintln(a.Stdout, "  "+visible(line))
		}
	}
	if t.Empty() {
		a.warnf("%s has no project hooks; its plugin set is recorded as reviewed, so your own commands here keep it trusted.", layout.ProjectDir)
		return nil
	}
	if listing := t.Listing(); len(listing) > 0 {
		fmt.Fprintf(a.Stdout, "Trusted %d project hook(s) in %s:\n", len(t.Items), visible(layout.ProjectDir))
		for _, h := range listing {
			rel, err := filepath.Rel(layout.ProjectDir, h.Path)
			if err != nil {
				rel = h.Path
			}
			line := fmt.Sprintf("  %-40s %s", h.Name, rel)
			if h.Escape != "" {
				line += " (invalid, never runs: " + h.Escape + ")"
			}
			fmt.Fprintln(a.Stdout, visible(line))
		}
	}
	if len(t.Files) > 0 {
		fmt.Fprintf(a.Stdout, "and %d other file(s) of their folders that they may run or load (see quiver trust --json).\n", len(t.Files))
	}
	if len(t.Shadows) > 0 {
		fmt.Fprintf(a.Stdout, "The project's hook(s) %s replace your global hook(s) of the same name, which do not run here.\n", visible(strings.Join(t.Shadows, ", ")))
	}
	if len(t.Replaces) > 0 {
		fmt.Fprintf(a.Stdout, "Trusted the project's own version of %s in %s: it replaces your global install, whose hooks do not run here.\n",
			visible(strings.Join(t.Replaces, ", ")), layout.ProjectDir)
	}
	fmt.Fprintln(a.Stdout, "This holds until any of it changes; then quiver asks you again.")
	return nil
}
