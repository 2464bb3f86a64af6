package files

import (
	"fmt"
	"io"
	"os"
)

// MaxRunFile bounds a file read from a run directory (records, summary,
// test stream): a run directory is untrusted input, copied from CI or
// elsewhere.
const MaxRunFile = 8 << 30

// OpenRegular opens path for reading when it is a regular file of at most
// max bytes. Anything else (a device such as /dev/zero, a FIFO that would
// block the reader, a directory, a file too large) is an error that says
// what it is; one that does not exist wraps fs.ErrNotExist.
func OpenRegular(path string, max int64) (*os.File, error) {
	fi, err := os.Stat(path) // before opening: opening a FIFO blocks
	if err != nil {
		return nil, err
	}
	if err := regular(path, fi, max); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err == nil {
		err = regular(path, fi, max) // it was not swapped in between
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadRegular reads the regular file path of at most max bytes whole (see
// OpenRegular).
func ReadRegular(path string, max int64) ([]byte, error) {
	f, err := OpenRegular(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}

func regular(path string, fi os.FileInfo, max int64) error {
	switch {
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file (%s): it is not read", path, fi.Mode().Type())
	case fi.Size() > max:
		return fmt.Errorf("%s holds %d bytes, more than the %d a file of a run may: it is not read", path, fi.Size(), max)
	}
	return nil
}
