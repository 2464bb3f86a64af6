// Package files holds the file-system helpers the suite, the cache and the
// commands share: atomic replacement of a file and the module root.
package files

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Temp is a new file being written beside the file it will replace. Commit
// puts it in place atomically; until then the old file is untouched, and a
// reader never sees a half-written file.
type Temp struct {
	*os.File
	path string
	done bool
}

// CreateTemp starts the replacement of the file at path: a temporary file in
// the same directory (so that the rename stays on one file system) whose name
// starts with prefix.
func CreateTemp(path, prefix string) (*Temp, error) {
	f, err := os.CreateTemp(filepath.Dir(path), prefix+"*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &Temp{File: f, path: path}, nil
}

// Commit makes the written data durable (fsync), gives the file perm and
// renames it over the target, then syncs the directory so that the rename
// survives a crash. The file stays open for reading; the caller closes it.
func (t *Temp) Commit(perm os.FileMode) error {
	err := t.Chmod(perm)
	if err == nil {
		err = t.Sync()
	}
	if err == nil {
		err = renameOpen(t)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", t.path, err)
	}
	t.done = true
	syncDir(filepath.Dir(t.path))
	return nil
}

// Abort removes a temporary file that was not committed; after Commit it
// does nothing. It is meant for a defer.
func (t *Temp) Abort() {
	if !t.done {
		t.Close()
		os.Remove(t.Name())
	}
}

// WriteAtomic replaces the file at path with what write writes, atomically
// (see Temp), with permissions perm. The temporary files of writers of
// path that were killed before they were done are removed first.
func WriteAtomic(path string, perm os.FileMode, write func(io.Writer) error) error {
	RemoveStaleTemps(path)
	t, err := createHeldTemp(path)
	if err != nil {
		return err
	}
	defer t.Abort()
	if err := write(t); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := t.Commit(perm); err != nil {
		return err
	}
	return t.Close()
}

// createHeldTemp creates WriteAtomic's temporary file for path and holds
// it while it is written, so that RemoveStaleTemps leaves it alone. A
// temporary file another writer's RemoveStaleTemps removed between its
// creation and its lock is created again.
func createHeldTemp(path string) (*Temp, error) {
	for {
		t, err := CreateTemp(path, tempPrefixOf(path))
		if err != nil {
			return nil, err
		}
		if err := lock(t.File, true, true); err != nil {
			t.Abort()
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		if info, err := os.Stat(t.Name()); err == nil {
			if own, err := t.Stat(); err == nil && os.SameFile(info, own) {
				return t, nil
			}
		}
		t.Close()
	}
}

// WriteJSON replaces the file at path with v as indented JSON, atomically.
func WriteJSON(path string, v any) error {
	return WriteAtomic(path, 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

// syncDir makes a rename in dir durable. Systems that cannot sync a
// directory still get the rename, just without that guarantee.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}

// ModuleRoot returns the nearest directory at or above the working
// directory that holds a go.mod.
func ModuleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find module root: %w", err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", errors.New("find module root: no go.mod in " + wd + " or above: run from inside the module (go test does; run a binary built with go test -c from the module's directory)")
		}
	}
}
