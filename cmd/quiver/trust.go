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

// trustJSON is the output of `trust --json`.
type trustJSON struct {
	Project     string          `json:"project"`
	Trusted     bool            `json:"trusted"`
	Fingerprint string          `json:"fingerprint"`
	Hooks       []trustHookJSON `json:"hooks"`
	// Replaces lists the project's plugins that shadow your global
	// install of the same plugin (whose hooks then do not run here).
	Replaces []string `json:"replaces"`
	// Shadows lists your global standalone hooks that a project hook of
	// the same name switches off here.
	Shadows []string `json:"shadows"`
	// Files are the other files of the project's hooks' folders, which
	// the fingerprint covers because the hooks may run them.
	Files []string `json:"files"`
}

type trustHookJSON struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// Invalid says why the hook never runs, trusted or not (it leaves
	// its folder through a symlink).
	Invalid string `json:"invalid,omitempty"`
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
		out := trustJSON{Project: t.Project, Trusted: t.Trusted(), Fingerprint: t.Fingerprint, Hooks: []trustHookJSON{}, Replaces: []string{},
			Shadows: append([]string{}, t.Shadows...), Files: []string{}}
		for _, f := range t.Files {
			out.Files = append(out.Files, f.Path)
		}
		escapes := map[string]string{}
		for _, h := range t.Hooks {
			escapes[h.Path] = h.Escape
		}
		for _, h := range t.Items {
			out.Hooks = append(out.Hooks, trustHookJSON{Name: h.Name, Path: h.Path, Invalid: escapes[h.Path]})
		}
		out.Replaces = append(out.Replaces, t.Replaces...)
		return writeJSON(a.Stdout, out)
	}
	if o.Revoke {
		return nil
	}
	if t.Empty() {
		a.warnf("%s has no project hooks; there is nothing to trust.", layout.ProjectDir)
		return nil
	}
	if len(t.Items) > 0 {
		// One line per hook as hook list shows it; a file whose link
		// leaves its folder says so.
		escapes := map[string]string{}
		for _, h := range t.Hooks {
			escapes[h.Path] = h.Escape
		}
		fmt.Fprintf(a.Stdout, "Trusted %d project hook(s) in %s:\n", len(t.Items), layout.ProjectDir)
		for _, h := range t.Items {
			rel, err := filepath.Rel(layout.ProjectDir, h.Path)
			if err != nil {
				rel = h.Path
			}
			line := fmt.Sprintf("  %-40s %s", h.Name, rel)
			if e := escapes[h.Path]; e != "" {
				line += " (invalid, never runs: " + e + ")"
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
