//go:build unix

package files

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Only regular files are read, within their bound: a link to a device
// and a FIFO are refused at once, without blocking or reading forever.
func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "results.jsonl")
	require.NoError(t, os.WriteFile(plain, []byte("{}\n"), 0o644))
	data, err := ReadRegular(plain, 1<<20)
	require.NoError(t, err)
	assert.Equal(t, "{}\n", string(data))

	_, err = ReadRegular(plain, 2)
	assert.ErrorContains(t, err, "results.jsonl: 3 bytes is more than the limit of 2 bytes")

	zero := filepath.Join(dir, "zero.jsonl")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	fifo := filepath.Join(dir, "fifo.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	for _, path := range []string{zero, fifo, dir} {
		start := time.Now()
		_, err := OpenRegular(path, MaxRunFile)
		require.Error(t, err, path)
		assert.Contains(t, err.Error(), ": not a regular file")
		assert.Less(t, time.Since(start), time.Second)
	}
	_, err = OpenRegular(filepath.Join(dir, "missing"), MaxRunFile)
	assert.True(t, errors.Is(err, fs.ErrNotExist))
}
