package main

import (
	"os"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/hooks/async"
)

// newHookCollectCmd is the hidden owner of background handlers: a hook
// run starts it detached (async.Owner) and hands it its order on fd 3;
// it says on fd 4 that it has taken it.
func (a *App) newHookCollectCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "collect",
		Short:  "Own a hook run's background handlers (started by quiver itself)",
		Hidden: true,
		Args:   noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return async.Collect(cmd.Context())
		},
	}
}

// selfOwner is the owner of background handlers that a quiver process
// starts: this same program, as `hook collect`.
func selfOwner() *async.Owner {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return &async.Owner{Command: func() *exec.Cmd { return exec.Command(exe, "hook", "collect") }}
}
