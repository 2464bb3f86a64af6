//go:build unix

package mcpconn

import (
	"os/exec"
	"syscall"
)

// ownGroup starts a stdio server in a process group of its own, so that
// the Ctrl-C a terminal sends to the suite's group does not reach it: an
// interrupted run lets its running cases finish, and they need their
// servers. Ending the connection kills the whole group, whatever the
// server started (go run's binary, npx's node).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
}
