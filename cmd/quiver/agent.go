package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/agents"
	"github.com/quiver-cli/quiver/internal/plugins"
	"github.com/quiver-cli/quiver/internal/term"
)

func (a *App) newAgentCmd() *cobra.Command {
	return group("agent", "Wire quiver into Claude Code, Codex, Copilot CLI, Cursor, Gemini CLI or OpenCode",
		`An agent calls quiver only if its own hook configuration says so. These
commands add quiver to (and remove it from) an agent's configuration, and keep
quiver's active skills and recipes linked into the folders the agent reads.`,
		a.newAgentInstallCmd(), a.newAgentRemoveCmd(), a.newAgentListCmd(), a.newAgentSyncCmd())
}

type agentInstallOptions struct {
	Agents      []string
	All, Global bool
	agents.InstallOptions
}

func (a *App) newAgentInstallCmd() *cobra.Command {
	var o agentInstallOptions
	cmd := &cobra.Command{
		Use:   "install AGENT... | --all",
		Short: "Make agents call quiver at every event",
		Long: fmt.Sprintf(`Add one entry per event to the agent's hook configuration (%s), each
running "quiver hook run --format AGENT EVENT", and link quiver's active skills
(and, for Claude Code, recipes as commands) into the agent's folders. Nothing
else in the file changes; installing again changes nothing. OpenCode has no
hook configuration: quiver writes it a plugin (.opencode/plugins/quiver.js)
that calls quiver, and removes it only while it is as quiver wrote it. What
quiver added is recorded in quiver's folder for the project on this machine
(~/.quiver/projects/PROJECT/agents.yaml; ~/.quiver/agents.yaml with -g), never
in the repository.
Several agents may be named at once; --all wires every agent found on this
machine (its program on PATH, or its folder in your home). One that fails
does not stop the others; the command then exits 1.
--dry-run prints the file as it would be written.`, strings.Join(agents.Names(), ", ")),
		Example: `  quiver agent install claude
  quiver agent install claude codex gemini
  quiver agent install --all
  quiver agent install gemini -g
  quiver agent install cursor --dry-run
  quiver agent install copilot
  quiver agent install opencode -g
  quiver agent install claude --command /usr/local/bin/quiver`,
		Args:              agentArgs(&o.All),
		ValidArgsFunction: completeAgents,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Agents = args
			return a.runAgentInstall(cmd, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.All, "all", false, "every agent found on this machine")
	f.BoolVarP(&o.Global, "global", "g", false, "wire the agent's user configuration (in your home)")
	f.BoolVar(&o.DryRun, "dry-run", false, "print the configuration file instead of writing it")
	f.BoolVar(&o.AllowRewrites, "allow-rewrites", false, "let a hook's rewritten tool input run without asking the user")
	f.StringVar(&o.Command, "command", "quiver", "the quiver the agent runs, a `PATH` or a name on PATH (with -g: this quiver's absolute path)")
	return cmd
}

// agentSite resolves the agent and the site a command acts on.
func (a *App) agentSite(cmd *cobra.Command, name string, global bool) (*agents.Wirer, agents.Site, error) {
	ag, err := agents.Lookup(name)
	if err != nil {
		return nil, agents.Site{}, &usageError{err: err, cmd: cmd}
	}
	e, err := a.env()
	if err != nil {
		return nil, agents.Site{}, err
	}
	w := agents.NewWirer(e)
	return w, w.Site(ag, global), nil
}

// agentArgs are the Args of a command that takes agents by name, or
// --all and none.
func agentArgs(all *bool) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case *all && len(args) > 0:
			return usageErrorf(cmd, "--all and agent names exclude each other")
		case !*all && len(args) == 0:
			return usageErrorf(cmd, "%s needs an agent (%s), or --all", commandName(cmd), strings.Join(agents.Names(), ", "))
		}
		for _, name := range args {
			if _, err := agents.Lookup(name); err != nil {
				return &usageError{err: err, cmd: cmd}
			}
		}
		return nil
	}
}

// agentsNamed are the agents a command acts on: those named, or with
// --all those found on this machine.
func (a *App) agentsNamed(names []string, all bool) ([]string, error) {
	if !all {
		return names, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, err
	}
	found, why := agents.Found(home, exec.LookPath)
	if len(found) == 0 {
		return nil, fmt.Errorf("found no agent on this machine (no %s on PATH, nor their folders in your home); name one: quiver agent install claude", strings.Join(agents.Names(), ", "))
	}
	var out, said []string
	for _, ag := range found {
		out = append(out, ag.Name)
		said = append(said, ag.Name+" ("+why[ag.Name]+")")
	}
	a.Warnf("Found %s: %s", term.Count(len(found), "agent"), strings.Join(said, ", "))
	return out, nil
}

func (a *App) runAgentInstall(cmd *cobra.Command, o agentInstallOptions) error {
	names, err := a.agentsNamed(o.Agents, o.All)
	if err != nil {
		return err
	}
	failed := false
	for _, name := range names {
		if err := a.installAgent(cmd, name, o, len(names) > 1); err != nil {
			if len(names) == 1 {
				return err
			}
			a.Error(fmt.Errorf("%s: %w", name, err))
			failed = true
		}
	}
	if failed {
		return errReported
	}
	return nil
}

// installAgent is agent install of one agent; several says the command
// wires more than one, so a dry run heads each file with its path.
func (a *App) installAgent(cmd *cobra.Command, name string, o agentInstallOptions, several bool) error {
	w, site, err := a.agentSite(cmd, name, o.Global)
	if err != nil {
		return err
	}
	if o.Command == "" {
		return usageErrorf(cmd, "--command is empty")
	}
	if o.Global && !cmd.Flags().Changed("command") {
		// The user's own configuration: the absolute path, so that an
		// agent started with another PATH still finds this quiver.
		if exe, err := os.Executable(); err == nil {
			if p, ok := agents.StableQuiver(exe, os.TempDir()); ok {
				o.Command = p
			}
		}
	}
	res, err := w.Install(cmd.Context(), site, o.InstallOptions)
	if err != nil {
		return err
	}
	if o.DryRun {
		if several {
			fmt.Fprintf(a.Stdout, "==> %s <==\n", site.Config)
		}
		_, err := a.Stdout.Write(res.Data)
		return err
	}
	a.Lines(res.Lines(site, o.InstallOptions))
	for _, w := range res.Warnings(site, o.InstallOptions) {
		a.Warnf("%s", w)
	}
	return nil
}

type agentRemoveOptions struct {
	Agents      []string
	All, Global bool
}

func (a *App) newAgentRemoveCmd() *cobra.Command {
	var o agentRemoveOptions
	cmd := &cobra.Command{
		Use:     "remove AGENT... | --all",
		Aliases: []string{"rm", "uninstall"},
		Short:   "Stop agents from calling quiver",
		Long: `Remove quiver's entries from the agent's hook configuration, the keys quiver
created there while they are empty, and the links quiver made in the agent's
folders. Everything else in the file and the folders stays; a file quiver
created and nothing else uses is deleted, as is a folder quiver made that is
left empty. --all removes quiver from every agent of the scope.`,
		Example:           "  quiver agent remove claude\n  quiver agent remove claude codex\n  quiver agent remove --all\n  quiver agent remove gemini -g",
		Args:              agentArgs(&o.All),
		ValidArgsFunction: completeAgents,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Agents = args
			return a.runAgentRemove(cmd, o)
		},
	}
	cmd.Flags().BoolVar(&o.All, "all", false, "every agent quiver may be wired into")
	cmd.Flags().BoolVarP(&o.Global, "global", "g", false, "unwire the agent's user configuration")
	return cmd
}

func (a *App) runAgentRemove(cmd *cobra.Command, o agentRemoveOptions) error {
	names := o.Agents
	if o.All {
		names = agents.Names()
	}
	failed := false
	for _, name := range names {
		w, site, err := a.agentSite(cmd, name, o.Global)
		if err != nil {
			return err
		}
		removed, err := w.Remove(cmd.Context(), site)
		switch {
		case err != nil && len(names) == 1:
			return err
		case err != nil:
			a.Error(fmt.Errorf("%s: %w", name, err))
			failed = true
		case removed || !o.All:
			fmt.Fprintln(a.Stdout, agents.Removed(site, removed))
		}
	}
	if failed {
		return errReported
	}
	return nil
}

func (a *App) newAgentSyncCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "sync",
		Short: "Re-link skills and recipes into every wired agent's folders",
		Long: `Make the links quiver keeps in wired agents' skill and command folders match
the active skills and recipes. Every command that installs, removes, updates,
enables or disables plugins does this already; sync is for changes quiver did
not make (a standalone skill you added by hand).`,
		Example: "  quiver agent sync",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runAgentSync(cmd.Context())
		},
	}
}

// runAgentSync re-links the active skills and recipes into every wired
// agent's folders.
func (a *App) runAgentSync(ctx context.Context) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	return agents.NewWirer(e).Sync(ctx)
}

func (a *App) newAgentListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "Show which agents call quiver, in this project and in your home",
		Example: "  quiver agent list\n  quiver agent list --json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runAgentList(asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (a *App) runAgentList(asJSON bool) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	rows, err := agents.NewWirer(e).Rows()
	if err != nil {
		return err
	}
	if err := term.List(&a.Printer, asJSON, rows, "", agents.RowHeader, agents.Row.Cells); err != nil || asJSON {
		return err
	}
	for i, note := range agents.Notes(rows) {
		if i == 0 {
			fmt.Fprintln(a.Stdout)
		}
		fmt.Fprintln(a.Stdout, term.Visible(note))
	}
	return nil
}

// resyncAgents ends each command that changes which skills and recipes
// are active (plugin add, remove, update, install, enable, disable,
// config; trust and trust --revoke too: what of a project reaches its
// agents depends on it, SPEC §16) by re-syncing them into wired agents'
// folders; a failure there is a warning, since the command itself
// succeeded.
//
// While what a scope has installed breaks the policy, the scope's agents
// are synced without anything its plugins carry (Wirer.Sync): the
// policy never keeps a forbidden server wired after a disable or a
// revoke.
func (a *App) resyncAgents(cmd *cobra.Command, args []string) error {
	e, err := a.env()
	if err == nil {
		err = agents.NewWirer(e).Sync(cmd.Context())
	}
	if err != nil {
		a.Warnf("quiver: warning: re-linking skills into wired agents: %v", err)
	}
	return nil
}

// execServer replaces quiver with a server (a seam for tests).
var execServer = syscall.Exec

func (a *App) newMCPCmd() *cobra.Command {
	return group("mcp", "Start plugins' MCP servers for agents", "",
		a.newServerExecCmd(discovery.MCPServer, "  quiver mcp exec --project ~/src/app acme/search docs\n  quiver mcp exec -g acme/search docs"))
}

func (a *App) newLSPCmd() *cobra.Command {
	return group("lsp", "Start plugins' LSP servers for agents", "",
		a.newServerExecCmd(discovery.LSPServer, "  quiver lsp exec --project ~/src/app acme/go gopls\n  quiver lsp exec -g acme/go gopls"))
}

// newServerExecCmd is `quiver mcp exec` and `quiver lsp exec`: what
// quiver writes into an agent's configuration for a project plugin's
// server (SPEC §16).
func (a *App) newServerExecCmd(kind discovery.ServerKind, example string) *cobra.Command {
	o := serverExecOptions{Kind: kind}
	exec := &cobra.Command{
		Use:   "exec PLUGIN SERVER",
		Short: fmt.Sprintf("Start a plugin's %s server after checking trust (what agents' configurations call)", kind),
		Long: fmt.Sprintf(`Start %s server SERVER of plugin PLUGIN on this process's stdio.

This is what quiver writes into an agent's configuration for a project
plugin's server: before it starts anything it checks again that the project
is trusted as it is now, that the plugin is installed and enabled and still
declares the server, then sets the plugin's variables (CLAUDE_PLUGIN_ROOT,
CLAUDE_PLUGIN_DATA, CLAUDE_PROJECT_DIR) and the server's environment and
replaces itself with the server.`, kind),
		Args:    exactArgs(2),
		Example: example,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Plugin, o.Server = args[0], args[1]
			return a.runServerExec(o)
		},
	}
	exec.Flags().BoolVarP(&o.Global, "global", "g", false, "start a server of your own plugins (in your home)")
	return exec
}

type serverExecOptions struct {
	Kind           discovery.ServerKind
	Plugin, Server string
	Global         bool
}

func (a *App) runServerExec(o serverExecOptions) error {
	if strings.Contains(a.projectFlag, "${") {
		// An agent that did not expand its variable for the project
		// (Cursor's ${workspaceFolder}): the project is found below.
		a.projectFlag = ""
	}
	if !o.Global && a.projectFlag == "" && a.Getenv("QUIVER_PROJECT_DIR") == "" {
		// A committed configuration names no project (issue 43): it is
		// the one that holds .quiver, from the folder the agent started
		// the server in up.
		if wd, err := a.Getwd(); err == nil {
			home, _ := plugins.Home(a.Getenv)
			if d := plugins.ProjectHolding(wd, home); d != "" {
				a.projectFlag = d
			}
		}
	}
	names, l, err := a.namedIn(o.Plugin)
	if err != nil {
		return err
	}
	launch, err := l.ServerLaunch(o.Global, o.Kind, names[0], o.Server, os.Environ())
	if err != nil {
		return err
	}
	if err := execServer(launch.Path, launch.Argv, launch.Env); err != nil {
		return fmt.Errorf("start %s: %w", launch.Path, err)
	}
	return nil
}
