//go:build windows

package sampleserver

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// canFork says whether run_pandas can run here: its worker forks a process
// for every run, which Windows cannot.
const canFork = false

// newProcessGroup starts cmd in a process group of its own.
func newProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killGroup ends p.
func killGroup(p *os.Process) {
	p.Kill()
}

// openNoFollow opens path for reading, refusing a symbolic link (or any
// other reparse point): the file opened must be the one Lstat saw.
func openNoFollow(path string) (*os.File, error) {
	before, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if after, err := f.Stat(); err != nil || !os.SameFile(before, after) {
		f.Close()
		return nil, fmt.Errorf("%s: replaced while it was opened", path)
	}
	return f, nil
}
