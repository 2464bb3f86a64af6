//go:build unix

package runs

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run directory is untrusted input: results.jsonl that is a link to
// /dev/zero or a FIFO is refused within a second, as is a summary that
// is not a regular file; two records of one case run are refused, naming
// both lines.
func TestRunDirectoryReadAsUntrusted(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero", "results.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(zero), 0o755))
	require.NoError(t, os.Symlink("/dev/zero", zero))
	fifo := filepath.Join(dir, "fifo", "results.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Dir(fifo), 0o755))
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	for _, path := range []string{zero, fifo} {
		start := time.Now()
		_, err := ReadRecords(path)
		require.Error(t, err)
		assert.Contains(t, err.Error(), ": not a regular file")
		assert.Less(t, time.Since(start), time.Second)

		summary := filepath.Join(filepath.Dir(path), "summary.json")
		require.NoError(t, os.Symlink("/dev/zero", summary))
		_, err = ReadSummary(filepath.Dir(path))
		assert.ErrorContains(t, err, ": not a regular file")
	}

	dup := filepath.Join(dir, "dup.jsonl")
	require.NoError(t, os.WriteFile(dup, []byte(`{"name":"a","model":"m","status":"pass"}
{"name":"b","model":"m","status":"pass"}
{"name":"a","model":"m","status":"fail"}
`), 0o644))
	_, err := ReadRecords(dup)
	assert.ErrorContains(t, err, `dup.jsonl:3: a second record of case "a" (model "m", arm "", repeat 0), the first on line 1`)
}
