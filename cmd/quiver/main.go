// Command quiver is a package manager for AI-agent plugins: it installs
// plugin repositories, indexes their hooks, skills and recipes, and runs the
// merged hook set at agent lifecycle events.
package main

import (
	"context"
	"os"

	"github.com/quiver-cli/quiver/internal/proc"
)

func main() {
	os.Exit(quiverMain())
}

// quiverMain runs the command line and returns the exit code; tests run it
// in-process through testscript.
func quiverMain() int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	app := newApp()
	app.owner = selfOwner()
	stop := func() {}
	defer func() { stop() }()
	app.handleSignals = func() {
		stop = proc.HandleInterrupts(cancel, func(ie proc.Interrupted) {
			// The command did not wind down in time: end it here, as
			// the shell would, saying why.
			app.Error(ie)
			if app.lastWords != nil {
				os.Exit(app.lastWords(ie))
			}
			os.Exit(ie.ExitCode())
		})
	}
	return app.run(ctx, os.Args[1:])
}
