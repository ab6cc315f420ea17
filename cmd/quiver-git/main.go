// Command quiver-git does quiver's git work: quiver starts it for each
// fetch, each look at what a remote ref points to, and each read of a
// commit or an index, as git starts git-remote-https. It reads one request
// (a JSON object, one line) on standard input, writes the answer on
// standard output, and stops as soon as its standard input closes (quiver
// ended). Install it beside quiver (go install ./cmd/quiver
// ./cmd/quiver-git), where quiver looks first, or anywhere on PATH. It is
// a program of its own so that the quiver that agents start at every
// event links no git library (docs/performance.md).
package main

import (
	"os"

	"github.com/quiver-cli/quiver/internal/plugins/gitwork"
)

func main() {
	os.Exit(gitwork.Main(os.Stdin, os.Stdout, os.Stderr, func() { os.Exit(3) }))
}
