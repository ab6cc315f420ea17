package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/agents"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/audit"
)

func (a *App) newAuditCmd() *cobra.Command {
	var o audit.Flags
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Check that what is installed is exactly what the lock says, and nothing hides in it",
		Long: `Answer, for a CI job or a reviewer, "is what is installed here exactly what was
reviewed?" for the project (or, with -g, your home): the plugin folders
against quiver.lock and its content hashes, a content scan of every
installed file for hidden Unicode, untrusted or invalid hooks, and wired
agents whose configuration lost or changed quiver's entries. It changes
nothing that is installed or wired, and never runs an untrusted hook.

Errors (exit 1): drift from the lock, a content hash mismatch, a critical
hidden character (bidi override, tag, variation selector). Warnings (exit
0, listed; exit 1 with --strict): warning-class characters, untrusted or
invalid hooks (trust lives in each user's home, so a CI machine sees every
project hook untrusted), a wired agent's configuration that changed.

Output is a table, --json, or --format sarif (SARIF 2.1.0, for GitHub code
scanning: paths relative to the project; the global scope's are file://
URIs). docs/audit.md lists every rule.`,
		Example: `  quiver audit
  quiver audit --strict
  quiver audit --format sarif > quiver.sarif
  quiver audit -g --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runAudit(cmd, o)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&o.Global, "global", "g", false, "audit your home's plugins (--scope global)")
	f.StringVar(&o.Scope, "scope", "", "the scope to audit: `project` (the default) or global")
	f.BoolVar(&o.JSON, "json", false, "print JSON (--format json)")
	f.StringVar(&o.Format, "format", "", "the output: `table` (the default), json or sarif")
	f.BoolVar(&o.Strict, "strict", false, "count warnings as errors")
	a.jobsFlag(cmd)
	return cmd
}

func (a *App) runAudit(cmd *cobra.Command, o audit.Flags) error {
	format, global, err := o.Resolve()
	if err != nil {
		return usageIf(cmd, err, audit.ErrUsage)
	}
	e, err := a.env()
	if err != nil {
		return err
	}
	s := e.Layout.Scope(global)
	var checks []audit.Check
	for _, check := range auditChecks(cmd.Context(), e, s) {
		checks = append(checks, check())
	}
	r := audit.NewReport(checks, audit.Options{Strict: o.Strict, Root: projectRoot(e.Layout, s), Fallback: s.LockPath()})
	if err := r.Print(&a.Printer, format, version); err != nil {
		return err
	}
	return a.Verdict(r.Verdict(global, o.Strict))
}

// auditChecks are the checks quiver audit runs on scope s, in the order
// it reports them, each offered by the room that owns what it reads
// (STYLE.md, "The house").
func auditChecks(ctx context.Context, e *discovery.Env, s plugins.Scope) []func() audit.Check {
	return []func() audit.Check{
		func() audit.Check { return plugins.LockCheck(s) },
		func() audit.Check { return plugins.ScanCheck(s) },
		func() audit.Check { return discovery.HookCheck(ctx, e.Options(), s.Location) },
		func() audit.Check { return agents.NewWirer(e).DriftCheck(s) },
		func() audit.Check {
			return e.Policy().Scope(s.Location == plugins.Global).Audit(ctx, s, projectRoot(e.Layout, s), e.Fetcher())
		},
	}
}

// projectRoot is what an audit of scope s makes its files relative to:
// the project, or nothing for the global scope, whose files stay absolute.
func projectRoot(layout plugins.Layout, s plugins.Scope) string {
	if s.Location == plugins.Local {
		return layout.ProjectDir
	}
	return ""
}
