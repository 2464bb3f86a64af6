//go:build unix

package docs

import (
	"os/exec"
	"syscall"
)

// ownGroup makes cmd the leader of a process group of its own, which the
// commands it starts join; the group is killed when cmd's context (if it
// has one) ends.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cmd.Cancel != nil {
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	}
}

// stopGroup kills what is left of cmd's process group.
func stopGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
