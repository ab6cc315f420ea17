package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

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
	rows := [][]string{}
	for _, r := range p.Rules() {
		rows = append(rows, []string{r.Rule, ruleValue(r.Value), r.From})
	}
	if err := a.Table([]string{"RULE", "VALUE", "FROM"}, rows); err != nil {
		return err
	}
	return p.Err()
}

// ruleValue writes a rule's value for the table: a list as [a, b].
func ruleValue(v any) string {
	if l, ok := v.([]string); ok {
		return "[" + strings.Join(l, ", ") + "]"
	}
	return fmt.Sprint(v)
}
