package examples_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/lockedfile"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/files"
)

// stableDir returns an empty directory for the test's copies of the
// repository whose path is the same from one run of the tests to the next
// (for this checkout and name), as a CI runner's workspace is. The go
// command's build cache keys a package outside GOROOT by its directory too,
// so a copy at a new path each time compiled the whole module again (tens
// of CPU seconds a copy, and as many new entries in the build cache); at
// the same path, the cache serves what did not change. What the test
// checks does not depend on the path.
//
// An exclusive lock, released when the test ends or its process dies, keeps
// two runs of the test from one checkout apart (the second waits); the
// directory is emptied before the test and removed after it, so nothing of
// one run reaches the next but the build cache's entries.
func stableDir(t *testing.T, name string) string {
	t.Helper()
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	sum := sha256.Sum256([]byte(root))
	base := filepath.Join(os.TempDir(), "mcpeval-examples-"+hex.EncodeToString(sum[:6]))
	require.NoError(t, os.MkdirAll(base, 0o755))
	unlock, err := lockedfile.MutexAt(filepath.Join(base, name+".lock")).Lock()
	require.NoError(t, err)
	dir := filepath.Join(base, name)
	t.Cleanup(func() {
		os.RemoveAll(dir)
		unlock()
	})
	require.NoError(t, os.RemoveAll(dir))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}
