package plugins

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill the helper when quiver ends, so a
// killed quiver never leaves a helper writing into its staging folder for
// the next command to find.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
