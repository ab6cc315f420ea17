package main

import (
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
		Example:  "  quiver hook list --all   # review what would run\n  quiver trust\n  quiver trust --revoke",
		Args:     noArgs,
		PostRunE: a.resyncAgents,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runTrust(o)
		},
	}
	cmd.Flags().BoolVar(&o.Revoke, "revoke", false, "stop trusting the project's hooks")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	return cmd
}

func (a *App) runTrust(o trustOptions) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	d, err := discovery.Decide(e.Layout, o.Revoke, discovery.AgentSession(a.Getenv), e.Policy())
	if err != nil {
		return err
	}
	if o.JSON {
		return a.JSON(d.Report())
	}
	lines, notice := d.Summary(e.Layout.ProjectDir, o.Revoke)
	a.Lines(lines)
	if notice != "" {
		a.Warnf("%s", notice)
	}
	return nil
}
