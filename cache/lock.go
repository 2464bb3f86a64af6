package cache

import (
	"fmt"

	"github.com/rogpeppe/go-internal/lockedfile"
)

// lockFile takes an exclusive lock on the file at path (created if needed),
// waiting for other processes that hold it, and returns the function
// releasing it. lockedfile locks on every system Go runs on (flock on Unix,
// LockFileEx on Windows), so processes sharing a cache coordinate
// everywhere.
func lockFile(path string) (unlock func(), err error) {
	unlock, err = lockedfile.MutexAt(path).Lock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return unlock, nil
}
