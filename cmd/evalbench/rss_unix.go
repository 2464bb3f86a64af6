//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSS returns the peak resident set size of a finished process in
// bytes, or 0 when the system does not say: where watchPeakRSS cannot
// follow it. On Linux it counts the parent's memory too (see there).
func peakRSS(state *os.ProcessState) int64 {
	ru, ok := state.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) // bytes on macOS, KiB elsewhere
	}
	return int64(ru.Maxrss) * 1024
}
