package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at release time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func (a *App) newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:         "version",
		Short:       "Print the quiver version",
		Args:        noArgs,
		Example:     "  quiver version",
		Annotations: map[string]string{quick: "true"},
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintln(a.Stdout, versionLine())
			return nil
		},
	}
}

// versionLine names this build: the version, the commit it was built
// from when known, the Go release and the platform.
func versionLine() string {
	rev := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 7 {
				rev = " (" + s.Value[:7] + ")"
			}
		}
	}
	return fmt.Sprintf("quiver %s%s %s %s/%s", version, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
