//go:build windows

package files

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lock takes a lock on f (shared or exclusive), without waiting when wait
// is false: then errHeld says another process holds one that conflicts.
// The lock lasts until f is closed, or its process ends however it ends.
func lock(f *os.File, exclusive, wait bool) error {
	var flags uint32
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	if !wait {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	// The whole file, as flock locks it: every byte there may ever be.
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, ^uint32(0), ^uint32(0), new(windows.Overlapped))
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return errHeld
	}
	return err
}
