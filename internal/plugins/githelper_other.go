//go:build !linux

package plugins

import "os/exec"

// dieWithParent does nothing here: the helper ends when its standard
// input closes, which it does when quiver ends.
func dieWithParent(*exec.Cmd) {}
