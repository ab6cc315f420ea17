package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/hooks"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/term"
)

// Tools for plugin authors: plugin init and plugin validate.

type pluginInitOptions struct {
	Dir, Name string
	plugins.ScaffoldOptions
}

func (a *App) newPluginInitCmd() *cobra.Command {
	var o pluginInitOptions
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Scaffold a new plugin repository",
		Long: `Create a plugin repository in DIR (default: the current folder): plugin.yaml,
hooks/ with a commented bash example for each blocking event, a skill, a
recipe and a README that explains the layout. With --persistent, the
before_tool_call example is a persistent hook: it also answers "serve",
so quiver hook serve starts it once and keeps it running (docs/hooks.md),
and it still works one-shot. With --format claude, the Claude Code layout
instead: .claude-plugin/plugin.json, hooks/hooks.json with a PreToolUse
and a SessionStart handler and their scripts, a command and a skill
(never persistent). A folder that already has files is refused unless
--force. The result passes plugin validate and installs with plugin add
./DIR.`,
		Example: "  quiver plugin init my-plugin\n  quiver plugin init --name acme/guard guard\n  quiver plugin init --persistent --name acme/guard guard\n  quiver plugin init --format claude --name acme/cc cc",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Dir = dirArg(args)
			return a.runPluginInit(cmd, o)
		},
	}
	cmd.Flags().StringVar(&o.Name, "name", "", "the plugin's `org/repo` (default local/<folder name>)")
	cmd.Flags().BoolVar(&o.Force, "force", false, "write into a folder that already has files")
	cmd.Flags().StringVar(&o.Format, "format", plugins.FormatNative, "the layout: `native` or claude (Claude Code's plugin format)")
	cmd.Flags().BoolVar(&o.Persistent, "persistent", false, "make the before_tool_call example a persistent hook, kept running by hook serve (native format only)")
	return cmd
}

func (a *App) runPluginInit(cmd *cobra.Command, o pluginInitOptions) error {
	name, written, err := plugins.Create(o.Dir, o.Name, o.ScaffoldOptions)
	if err != nil {
		return usageIf(cmd, err, plugins.ErrUnknownFormat, plugins.ErrNotPersistent, plugins.ErrInvalidName)
	}
	for _, f := range written {
		fmt.Fprintf(a.Stdout, "  %s\n", filepath.Join(o.Dir, f))
	}
	a.Warnf("Created plugin %s in %s. Next: %s", name, o.Dir, plugins.NextSteps(o.Dir, o.Format))
	return nil
}

// dirArg is the optional [DIR] argument: the current folder by default.
func dirArg(args []string) string {
	if len(args) == 1 {
		return args[0]
	}
	return "."
}

type pluginValidateOptions struct {
	Dir       string
	JSON, Run bool
}

func (a *App) newPluginValidateCmd() *cobra.Command {
	var o pluginValidateOptions
	cmd := &cobra.Command{
		Use:   "validate [DIR]",
		Short: "Check a plugin repository for everything an author can get wrong",
		Long: `Check the plugin in DIR (default: the current folder) before publishing:
hooks without exec bit or #! line, hooks that do not answer "hook" within
5 s or answer an unknown event, hooks that fail "run" on a minimal payload
for their event, skills without frontmatter or description or whose name
differs from their folder, recipes whose frontmatter does not parse,
symlinks leading out of the plugin, an empty plugin, a plugin.yaml that does
not parse. Each finding comes with the file, the reason and a fix.

Native hooks are checked without running them (exec bit, #! line) unless
--run is given: then each is asked "hook" and run on a sample payload for
its event, which runs the plugin's code, so pass --run only for code you
are willing to run (your own). Claude-format hooks.json files are checked
by reading them. Exits 1 on errors, 0 with warnings only.`,
		Example: "  quiver plugin validate --run\n  quiver plugin validate ./my-plugin --json",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Dir = dirArg(args)
			return a.runPluginValidate(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&o.Run, "run", false, "also run each native hook (\"hook\", then \"run\" on a sample payload): runs the plugin's code")
	return cmd
}

func (a *App) runPluginValidate(ctx context.Context, o pluginValidateOptions) error {
	running := func(n int) {
		if n == 0 {
			a.Warnf("quiver: %s has no native hooks for --run to run; its hooks.json handlers are checked as written, not run (quiver hook test runs one)", o.Dir)
			return
		}
		a.Warnf("quiver: validate runs the %s in %s (\"hook\" and \"run\" on a sample payload) to check them", term.Count(n, "native hook"), o.Dir)
	}
	r, err := hooks.Validate(ctx, o.Dir, hooks.ValidateOptions{Run: o.Run, QueryTimeout: a.envAt(plugins.Layout{}).QueryTimeout(), Running: running})
	if err != nil {
		return err
	}
	if err := a.Report(o.JSON, r); err != nil {
		return err
	}
	valid, err := r.Valid(o.Dir)
	if err == nil && !o.JSON {
		a.Warnf("%s", valid)
	}
	return err
}
