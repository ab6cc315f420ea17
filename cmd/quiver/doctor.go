package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/hooks/agents"
	"github.com/quiver-cli/quiver/internal/plugins/format"
)

func (a *App) newDoctorCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Find problems with installed plugins and hooks, and say what to do",
		Long: `Look for what keeps hooks from firing or plugins from matching the lock
file: invalid and non-executable hooks, untrusted project hooks, lock/disk
drift, leftovers of interrupted commands, disabled plugins, invalid skills
and recipes, QUIVER_NO_HOOKS in effect, quiver's git helper (quiver-git)
missing or of another version, git missing where local repositories must
be cloned, a wired agent that cannot find quiver, and a
plugin installed both through quiver and natively in a wired agent (its
hooks would run twice). Each finding says what to do. Exits 0 on a
healthy setup (notes only), 1 otherwise. It never runs untrusted hooks.`,
		Example: "  quiver doctor\n  quiver doctor --json",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runDoctor(cmd, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (a *App) runDoctor(cmd *cobra.Command, asJSON bool) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	fs, err := diagnose(cmd.Context(), e)
	if err != nil {
		return err
	}
	r := format.NewReport("", fs)
	if err := a.Report(asJSON, r); err != nil {
		return err
	}
	healthy, err := r.Healthy(e.Layout.Roots())
	if err == nil && !asJSON {
		a.Warnf("%s", healthy)
	}
	return err
}

// diagnose is what doctor reports: the environment's switch, then each
// room's checks (discovery's of the scopes, the agents' wiring).
func diagnose(ctx context.Context, e *discovery.Env) ([]format.Finding, error) {
	out := append(discovery.DiagnoseEnv(e.Getenv), discovery.DiagnoseGitHelper(ctx)...)
	fs, err := discovery.Diagnose(ctx, e.Options())
	if err != nil {
		return nil, err
	}
	out = append(out, fs...)
	out = append(out, agents.NewWirer(e).Diagnose()...)
	return out, nil
}

// version is set at release time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func (a *App) newVersionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:         "version",
		Short:       "Print the quiver version",
		Args:        noArgs,
		Example:     "  quiver version\n  quiver --version\n  quiver version --json",
		Annotations: map[string]string{quick: "true"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON {
				return a.JSON(thisBuild())
			}
			fmt.Fprintln(a.Stdout, versionLine())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// build names this build (version --json, docs/json.md).
type build struct {
	Version string `json:"version"`
	// Commit is the full commit the binary was built from, when the
	// build recorded it (a go install of a module version does not).
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
}

func thisBuild() build {
	b := build{Version: version, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if b.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			b.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			}
		}
	}
	return b
}

// versionLine names this build: the version, the commit it was built
// from when known, the Go release and the platform.
func versionLine() string {
	b := thisBuild()
	rev := ""
	if len(b.Commit) >= 7 {
		rev = " (" + b.Commit[:7] + ")"
	}
	return fmt.Sprintf("quiver %s%s %s %s/%s", b.Version, rev, b.Go, b.OS, b.Arch)
}
