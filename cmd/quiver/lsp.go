package main

import (
	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
)

func (a *App) newLSPCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lsp",
		Short: "Start plugins' LSP servers for agents",
		Args:  noArgs,
	}
	cmd.AddCommand(a.newServerExecCmd(discovery.LSPServer, "  quiver lsp exec --project ~/src/app acme/go gopls\n  quiver lsp exec -g acme/go gopls"))
	return cmd
}
