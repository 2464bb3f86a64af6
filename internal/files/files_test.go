package files

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteAtomicReplacesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.html")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o600))
	require.NoError(t, WriteAtomic(path, 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, "new")
		return err
	}))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "new", string(data))
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm())
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left behind")
}

func TestWriteAtomicFailureKeepsTheOldFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary.json")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	boom := errors.New("boom")
	err := WriteAtomic(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	require.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "old", string(data))
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "the temporary file is removed")
}

func TestWriteAtomicIntoMissingDirectory(t *testing.T) {
	err := WriteAtomic(filepath.Join(t.TempDir(), "no", "such", "file"), 0o644, func(io.Writer) error { return nil })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no/such/file")
}

func TestModuleRoot(t *testing.T) {
	root, err := ModuleRoot()
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(root, "go.mod"))
	assert.Equal(t, "files", filepath.Base(mustGetwd(t)))

	t.Chdir(t.TempDir())
	_, err = ModuleRoot()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no go.mod")
}

func mustGetwd(t *testing.T) string {
	wd, err := os.Getwd()
	require.NoError(t, err)
	return wd
}
