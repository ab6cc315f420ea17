package main

import (
	"fmt"
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
)

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
	names, l, err := a.namedIn(o.Plugin)
	if err != nil {
		return err
	}
	launch, err := discovery.ServerLaunch(l.Layout, o.Global, o.Kind, names[0], o.Server, os.Environ())
	if err != nil {
		return err
	}
	if err := execServer(launch.Path, launch.Argv, launch.Env); err != nil {
		return fmt.Errorf("start %s: %w", launch.Path, err)
	}
	return nil
}
