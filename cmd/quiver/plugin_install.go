package main

import (
	"context"
	"strings"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/plugins/scan"
	"github.com/quiver-cli/quiver/internal/term"
	"github.com/spf13/cobra"
)

// ---- plugin install ----

type pluginInstallOptions struct{ Global, AllowHiddenUnicode bool }

func (a *App) newPluginInstallCmd() *cobra.Command {
	var o pluginInstallOptions
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Make the installed plugins match quiver.lock exactly",
		Long: `Install every plugin of the lock file at its locked commit, checking each
against its locked content hash before it is swapped in: missing plugins
are installed, differing ones repaired, matching ones left alone, and
plugins the lock no longer names removed (their data kept) and unwired from
the agents: like npm ci, the lock is the set. This is how a teammate
reproduces a project's plugins after git clone or a pull. One entry that
cannot be installed does not stop the others; the command then exits 1.`,
		Example: "  git clone https://example.com/team/app && cd app && quiver plugin install\n  quiver plugin install -g",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				// claude plugin install NAME and npm install NAME add a
				// plugin; this command only reproduces the lock.
				return usageErrorf(cmd, "plugin install reproduces quiver.lock and takes no plugin; to add %s run: quiver plugin add %s", strings.Join(args, " "), strings.Join(args, " "))
			}
			return nil
		},
		PostRunE: a.resyncAgents,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runPluginInstall(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVarP(&o.Global, "global", "g", false, "install your home's lock file")
	var prune bool
	cmd.Flags().BoolVar(&prune, "prune", true, "remove installed plugins that are not in the lock file (always so now)")
	cmd.Flags().MarkDeprecated("prune", "plugin install always removes plugins the lock does not name")
	cmd.Flags().BoolVar(&o.AllowHiddenUnicode, "allow-hidden-unicode", false, "install plugins whose files hide tag, bidi or variation-selector characters")
	a.jobsFlag(cmd)
	return cmd
}

// runPluginInstall never goes through a.changes: the lock file came with
// the repository, so what it names is the repository's choice, not the
// user's (SPEC §9). Its hooks stay untrusted until quiver trust.
func (a *App) runPluginInstall(ctx context.Context, o pluginInstallOptions) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	in := e.Installer(o.Global)
	res, err := in.Sync(ctx, plugins.SyncOptions{HiddenUnicode: scan.ModeFor(o.AllowHiddenUnicode)})
	if err != nil {
		return err
	}
	failed := false
	for _, r := range res {
		a.Say(r.Said(in.Scope))
		failed = failed || r.Failed()
	}
	a.Warnf("%s", plugins.SyncSummary(res, in.Scope))
	a.Say(discovery.UntrustedNotice(e.Layout, in.Scope), nil)
	if failed {
		return errReported
	}
	return nil
}

// ---- plugin verify ----

type pluginVerifyOptions struct{ Global, JSON bool }

func (a *App) newPluginVerifyCmd() *cobra.Command {
	var o pluginVerifyOptions
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check installed plugins against the content hashes in quiver.lock",
		Long: `Recompute the content hash of every installed plugin and compare it with the
lock file: ok, modified (with the changed files when the plugin is a git
checkout), missing, unverified (the hash matches, but no install on this
machine fetched that content from the entry's source and commit: a folder
that came with the repository; plugin install fetches it), unlocked
(installed but not in the lock), and leftovers of an interrupted command
(the next add, update, remove or install cleans them; they are not
drift). Exits 1 on any drift. Changes nothing.`,
		Example: "  quiver plugin verify\n  quiver plugin verify -g --json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runPluginVerify(o)
		},
	}
	cmd.Flags().BoolVarP(&o.Global, "global", "g", false, "verify plugins installed in your home")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	return cmd
}

func (a *App) runPluginVerify(o pluginVerifyOptions) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	s := e.Layout.Scope(o.Global)
	res, err := plugins.Verify(s)
	if err != nil {
		return err
	}
	if err := term.List(&a.Printer, o.JSON, append([]plugins.VerifyResult{}, res...), "", plugins.VerifyHeader, plugins.VerifyResult.Row); err != nil {
		return err
	}
	return a.Verdict(plugins.Verified(res, s.LockPath()))
}
