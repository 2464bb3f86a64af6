//go:build !windows

package files

import "os"

// renameOpen renames t's file over t.path; t stays open.
func renameOpen(t *Temp) error { return os.Rename(t.Name(), t.path) }
