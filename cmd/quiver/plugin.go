package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/quiver-cli/quiver/internal/discovery"
	"github.com/quiver-cli/quiver/internal/plugins"
)

func (a *App) newPluginCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugin",
		Short: "Install, list, show and remove plugins",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.newPluginAddCmd(), a.newPluginListCmd(), a.newPluginShowCmd(), a.newPluginRemoveCmd(),
		a.newPluginUpdateCmd(), a.newPluginOutdatedCmd(), a.newPluginInstallCmd(), a.newPluginVerifyCmd(),
		a.newPluginEnableCmd(false), a.newPluginEnableCmd(true), a.newPluginInitCmd(), a.newPluginValidateCmd(), a.newPluginConfigCmd())
	return cmd
}

// pluginJSON is the shape of a plugin in --json output (SPEC §7).
type pluginJSON struct {
	Name     string   `json:"name"`
	Location string   `json:"location"`
	Path     string   `json:"path"`
	Source   string   `json:"source"`
	Ref      string   `json:"ref"`
	Commit   string   `json:"commit"`
	Enabled  bool     `json:"enabled"`
	Skills   []string `json:"skills"`
	Recipes  []string `json:"recipes"`
	Hooks    []string `json:"hooks"`
	// Parts counts every part the plugin carries (SPEC §16).
	Parts plugins.Count `json:"parts"`
}

// pluginShowJSON adds what only `plugin show` prints.
type pluginShowJSON struct {
	pluginJSON
	// RepoPath is the folder of the repository installed (lock "path").
	RepoPath    string `json:"repo_path,omitempty"`
	Marketplace string `json:"marketplace,omitempty"`
	Hash        string `json:"hash,omitempty"`
	Link        bool   `json:"link,omitempty"`
	Missing     bool   `json:"missing,omitempty"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version,omitempty"`
	Homepage    string `json:"homepage,omitempty"`
	// Problems say which parts could not be read.
	Problems []string `json:"problems,omitempty"`
}

func toJSON(p plugins.Plugin) pluginJSON {
	handlers := discovery.HandlerNames(p.Contents)
	return pluginJSON{
		Name:     p.Name.String(),
		Location: string(p.Scope.Location),
		Path:     p.Dir,
		Source:   p.Entry.Source,
		Ref:      p.Entry.Ref,
		Commit:   p.Entry.Commit,
		Enabled:  p.Enabled(),
		Skills:   plugins.Names(p.Contents.Skills),
		Recipes:  plugins.Names(p.Contents.Recipes),
		Hooks:    append(plugins.Names(p.Contents.Hooks), handlers...),
		Parts:    plugins.CountParts(p.Contents, len(handlers), p.Parts()),
	}
}

// installer builds the installer for the chosen scope, wired to stderr.
func (a *App) installer(layout plugins.Layout, global bool) *plugins.Installer {
	scope := layout.Scope(global)
	in := &plugins.Installer{
		Scope: scope,
		OnWait: func() {
			fmt.Fprintf(a.Stderr, "quiver: waiting for another quiver command to finish in %s (up to %s)...\n", scope.Root, plugins.DefaultMutexWait)
		},
		OnRecover: func(msg string) { a.warnf("quiver: %s", msg) },
		Fetcher:   a.fetcher(),
		GitBase:   a.Getenv("QUIVER_GIT_BASE"),
	}
	if other, ok := layout.Other(scope); ok {
		in.Other = &other
	}
	return in
}

func (a *App) fetcher() *plugins.Fetcher {
	token := a.Getenv("QUIVER_GIT_TOKEN")
	if token == "" {
		token = a.Getenv("GITHUB_TOKEN")
	}
	f := &plugins.Fetcher{Credentials: plugins.Credentials{Token: token, Base: a.Getenv("QUIVER_GIT_BASE")}}
	rw, err := plugins.LoadRewrites(plugins.GitConfigPaths(a.Getenv))
	if err != nil {
		a.warnf("quiver: %v; fetching without its url.insteadOf rewrites", err)
	}
	f.Rewrites = rw
	if a.StderrIsTTY && !a.quiet {
		f.Progress = a.Stderr
	}
	return f
}

func scopeWord(l plugins.Location) string {
	if l == plugins.Global {
		return "globally"
	}
	return "in the project"
}
