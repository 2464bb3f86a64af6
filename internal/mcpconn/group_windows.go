package mcpconn

import (
	"os/exec"
	"syscall"
)

// ownGroup starts a stdio server in a process group of its own, so that
// the Ctrl-C a console sends to the suite does not reach it: an
// interrupted run lets its running cases finish, and they need their
// servers.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}
