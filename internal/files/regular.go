package files

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxRunFile bounds a file read from a run directory (records, summary,
// test stream): a run directory is untrusted input, copied from CI or
// elsewhere.
const MaxRunFile = 8 << 30

// OpenRegular opens path for reading when it is a regular file (or a link
// to one) of at most max bytes. Anything else (a device such as /dev/zero,
// a FIFO that would block the reader, a directory, a file too large) is an
// error that says what it is; one that does not exist wraps
// fs.ErrNotExist. Read it through a limit of max bytes: it may grow.
func OpenRegular(path string, max int64) (*os.File, error) {
	fi, err := os.Stat(path) // before opening: opening a FIFO blocks
	if err != nil {
		return nil, err
	}
	if err := regular(path, fi, max); err != nil {
		return nil, err
	}
	// O_NONBLOCK: should the path have become a FIFO since Stat, opening
	// it does not wait for a writer; what was opened is checked again.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err == nil {
		err = regular(path, fi, max)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadRegular reads the regular file path of at most max bytes whole (see
// OpenRegular); a file that grew past max since it was opened is refused.
func ReadRegular(path string, max int64) ([]byte, error) {
	f, err := OpenRegular(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: more than the limit of %s: it is not read", path, size(max))
	}
	return data, nil
}

func regular(path string, fi os.FileInfo, max int64) error {
	switch {
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s: not a regular file (%s): it is not read", path, fileKind(fi.Mode()))
	case fi.Size() > max:
		return fmt.Errorf("%s: %d bytes is more than the limit of %s: it is not read", path, fi.Size(), size(max))
	}
	return nil
}

// size writes a limit in MiB when it is a whole number of them.
func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// fileKind names what a file that is not regular is.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "type " + m.Type().String()
}
