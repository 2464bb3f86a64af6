package files

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// errHeld says that another process holds a lock on a file.
var errHeld = errors.New("held by another process")

// Hold marks the file at path (created if needed) as in use by this
// process until release is called or the process ends, however it ends:
// Held then reports true. Several processes may hold a file at once.
func Hold(path string) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("hold %s: %w", path, err)
	}
	if err := lock(f, false, true); err != nil {
		f.Close()
		return nil, fmt.Errorf("hold %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

// Held reports whether a process holds the file at path (see Hold, and
// the temporary files of WriteAtomic while they are written). A file that
// does not exist is not held.
func Held(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return lock(f, true, false) != nil
}

// RemoveStaleTemps removes the temporary files that writers of path killed
// before they were done left behind (see WriteAtomic); those still being
// written are held and stay.
func RemoveStaleTemps(path string) {
	names, _ := filepath.Glob(filepath.Join(filepath.Dir(path), globEscape(tempPrefixOf(path))+"*"))
	for _, name := range names {
		if !Held(name) {
			os.Remove(name)
		}
	}
}

// tempPrefixOf is the name prefix of WriteAtomic's temporary files for path.
func tempPrefixOf(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// globEscape quotes the characters filepath.Match treats specially.
func globEscape(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', '\\':
			out = append(out, '\\')
		}
		out = append(out, s[i])
	}
	return string(out)
}
