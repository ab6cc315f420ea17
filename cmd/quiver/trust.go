package main

import (
	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins/policy"
	"github.com/quiver-cli/quiver/internal/plugins/scan"
	"github.com/quiver-cli/quiver/internal/term"
)

type trustOptions struct {
	Revoke, JSON, AllowHiddenUnicode bool
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

The project's own hooks, skills and recipes and the plugin settings of
.quiver/config.yaml reach your agents once you trust it, so they are
scanned for hidden Unicode as installs scan a plugin: a tag character or a
bidi override refuses, unless --allow-hidden-unicode (or the policy's
scan.hidden_unicode) lets it in.

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
	cmd.Flags().BoolVar(&o.AllowHiddenUnicode, "allow-hidden-unicode", false, "trust the project although its own items hold hidden Unicode (tag characters, bidi overrides)")
	return cmd
}

func (a *App) runTrust(o trustOptions) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	d, err := discovery.Decide(e.Layout, o.Revoke, discovery.AgentSession(a.Getenv), e.Policy(), scan.ModeFor(o.AllowHiddenUnicode))
	if err != nil {
		return err
	}
	if o.JSON {
		return a.JSON(d.Report())
	}
	lines, notice := d.Summary(e.Layout.ProjectDir, o.Revoke)
	a.Lines(lines)
	a.Say(notice, nil)
	return nil
}

func (a *App) newPolicyCmd() *cobra.Command {
	return group("policy", "Show the team policy that applies here", "", a.newPolicyShowCmd())
}

type policyShowOptions struct{ Global, JSON bool }

func (a *App) newPolicyShowCmd() *cobra.Command {
	var o policyShowOptions
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print the effective policy and the file each rule comes from",
		Long: `Print the policy that plugin add, install and update, marketplace add and
update, agent install and sync, and quiver trust enforce here, one rule per
line with the file it comes from. Up to three files apply, each only able
to tighten the ones before it: the machine's (/etc/quiver/policy.yaml, or
the file $QUIVER_POLICY_FILE names), yours ($QUIVER_HOME/policy.yaml) and
the project's (.quiver/policy.yaml; not with -g). A source must match
every allow list shown and no deny list. A file that does not parse is
named, and the command exits 1: until it is fixed nothing is installed.
See docs/policy.md. Changes nothing.`,
		Example: "  quiver policy show\n  quiver policy show -g --json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runPolicyShow(o)
		},
	}
	cmd.Flags().BoolVarP(&o.Global, "global", "g", false, "the policy of your home scope (the machine's and yours)")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	return cmd
}

func (a *App) runPolicyShow(o policyShowOptions) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	p := e.Policy().Scope(o.Global)
	if o.JSON {
		if err := a.JSON(p.Report()); err != nil {
			return err
		}
		return p.Err()
	}
	if len(p.Files) == 0 {
		a.Warnf("No policy file applies here; quiver's default: scan.hidden_unicode block.")
	}
	if err := term.List(&a.Printer, false, p.Rules(), "", policy.RuleHeader, policy.Rule.Row); err != nil {
		return err
	}
	return p.Err()
}
