//go:build unix

package files

import (
	"errors"
	"os"
	"syscall"
)

// lock takes a lock on f (shared or exclusive), without waiting when wait
// is false: then errHeld says another process holds one that conflicts.
// The lock lasts until f is closed, or its process ends however it ends.
func lock(f *os.File, exclusive, wait bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errHeld
		}
		return err
	}
}
