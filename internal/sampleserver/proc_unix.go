//go:build unix

package sampleserver

import (
	"os"
	"os/exec"
	"syscall"
)

// canFork says whether run_pandas can run here: its worker forks a process
// for every run.
const canFork = true

// newProcessGroup makes cmd lead a process group of its own, so that
// killGroup ends it with every process it started.
func newProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup ends p and its process group.
func killGroup(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGKILL)
	p.Kill()
}

// openNoFollow opens path for reading, refusing a symbolic link.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}
