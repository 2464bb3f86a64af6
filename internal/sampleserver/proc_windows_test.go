//go:build windows

package sampleserver_test

import "os"

// processGone says whether no process has the id pid.
func processGone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	p.Release()
	return false
}
