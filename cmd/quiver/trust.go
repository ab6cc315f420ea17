package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
)

type trustOptions struct {
	Revoke, JSON bool
}

// trustJSON is the output of `trust --json`.
type trustJSON struct {
	Project     string          `json:"project"`
	Trusted     bool            `json:"trusted"`
	Fingerprint string          `json:"fingerprint"`
	Hooks       []trustHookJSON `json:"hooks"`
}

type trustHookJSON struct {
	Name string `json:"name"`
	Path string `json:"path"`
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
	if layout.Local == nil {
		return fmt.Errorf("%s is your home scope, whose hooks are always trusted; run quiver trust inside a project", layout.ProjectDir)
	}
	var t discovery.Trust
	if o.Revoke {
		had, err := discovery.RevokeTrust(layout)
		if err != nil {
			return err
		}
		if t, err = discovery.ProjectTrust(layout, false); err != nil {
			return err
		}
		if !o.JSON {
			if had {
				a.warnf("No longer trusting the hooks of %s.", layout.ProjectDir)
			} else {
				a.warnf("%s was not trusted.", layout.ProjectDir)
			}
		}
	} else if t, err = discovery.RecordTrust(layout); err != nil {
		return err
	}
	if o.JSON {
		out := trustJSON{Project: t.Project, Trusted: t.Trusted(), Fingerprint: t.Fingerprint, Hooks: []trustHookJSON{}}
		for _, h := range t.Hooks {
			out.Hooks = append(out.Hooks, trustHookJSON{Name: h.Name, Path: h.Path})
		}
		return writeJSON(a.Stdout, out)
	}
	if o.Revoke {
		return nil
	}
	if len(t.Hooks) == 0 {
		a.warnf("%s has no project hooks; there is nothing to trust.", layout.ProjectDir)
		return nil
	}
	fmt.Fprintf(a.Stdout, "Trusted %d project hook(s) in %s:\n", len(t.Hooks), layout.ProjectDir)
	for _, h := range t.Hooks {
		rel, err := filepath.Rel(layout.ProjectDir, h.Path)
		if err != nil {
			rel = h.Path
		}
		fmt.Fprintf(a.Stdout, "  %-40s %s\n", visible(h.Name), visible(rel))
	}
	fmt.Fprintln(a.Stdout, "They run until one of them changes; then quiver asks you again.")
	return nil
}
