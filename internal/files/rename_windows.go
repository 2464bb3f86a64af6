//go:build windows

package files

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// renameOpen renames t's file over t.path and opens it again at its new
// name. Windows renames no file that is open without sharing its deletion,
// as Go opens files: t is closed first, and the rename is retried for a
// while when a reader holds the target (as cmd/go's robustio does).
func renameOpen(t *Temp) error {
	name := t.Name()
	if err := t.File.Close(); err != nil {
		return err
	}
	var err error
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		err = os.Rename(name, t.path)
		if err == nil || !transient(err) || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		os.Remove(name)
		return err
	}
	t.File, err = os.Open(t.path)
	return err
}

// transient says whether err may pass: another process holds the file.
func transient(err error) bool {
	return errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_SHARING_VIOLATION)
}
