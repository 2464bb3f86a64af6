package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// watchPeakRSS follows a running process's peak resident set size (VmHWM
// in /proc/PID/status) and returns the function that stops following it
// and gives the highest seen, in bytes (0 when none could be read). The
// peak the kernel reports for a finished child (its rusage) is no good
// here: a child os/exec starts shares the parent's memory until its exec
// and keeps the parent's high-water mark, so a large evalbench (its stub
// holding 10,000 cases) would inflate every child's figure. VmHWM is the child's own address
// space's. It is read every 5 ms: growth in a run's last 5 ms is missed.
func watchPeakRSS(pid int) (stop func() int64) {
	path := fmt.Sprintf("/proc/%d/status", pid)
	var mu sync.Mutex
	var peak int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	read := func() {
		if hwm := readHWM(path); hwm > 0 {
			mu.Lock()
			peak = max(peak, hwm)
			mu.Unlock()
		}
	}
	wg.Go(func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			read()
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return func() int64 {
		close(done)
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// readHWM reads VmHWM from a /proc status file, in bytes; 0 when it
// cannot (the process has ended).
func readHWM(path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(data) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}
