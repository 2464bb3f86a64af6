//go:build unix

package sampleserver_test

import (
	"errors"
	"syscall"
)

// processGone says whether no process has the id pid.
func processGone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }
