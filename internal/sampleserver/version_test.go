package sampleserver_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/sampleserver"
)

// servedVersion starts a sample server (in process, or the built command
// over stdio when stdio is set) on the datasets in dir and returns the
// version of its serverInfo.
func servedVersion(t *testing.T, dir string, stdio bool) string {
	t.Helper()
	var c *client.Client
	var err error
	if stdio {
		c, err = client.NewStdioMCPClientWithOptions(commandPath, []string{sampleserver.DatasetsEnv + "=" + dir}, serveArgs)
	} else {
		t.Setenv(sampleserver.DatasetsEnv, dir)
		c, err = client.NewInProcessClient(sampleserver.New())
		if err == nil {
			err = c.Start(testContext(t))
		}
	}
	require.NoError(t, err)
	defer c.Close()
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "sampleserver-test", Version: "1"}
	res, err := c.Initialize(testContext(t), req)
	require.NoError(t, err)
	return res.ServerInfo.Version
}

// copyDatasets copies the bundled CSV datasets into a new directory.
func copyDatasets(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "datasets", "*.csv"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644))
	}
	return dir
}

// The cache key of a run holds every server's version: a change of the
// bundled server's data must change its version so that cached passes of
// the old data are not reused.
func TestServedVersionNamesTheData(t *testing.T) {
	dir := copyDatasets(t)
	employees := filepath.Join(dir, "employees.csv")
	original, err := os.ReadFile(employees)
	require.NoError(t, err)

	base := servedVersion(t, dir, false)
	assert.True(t, strings.HasPrefix(base, sampleserver.Version+"+data."), base)
	assert.Equal(t, base, servedVersion(t, dir, false), "the same data, the same version")
	assert.Equal(t, base, servedVersion(t, dir, true), "the command serves the same version")
	assert.Equal(t, base, servedVersion(t, copyDatasets(t), false), "the place of the data does not matter")

	changes := []struct {
		name   string
		change func(t *testing.T)
	}{
		{"a value changed", func(t *testing.T) {
			edited := strings.Replace(string(original), "Engineering", "Engineerinh", 1)
			require.NotEqual(t, string(original), edited)
			require.NoError(t, os.WriteFile(employees, []byte(edited), 0o644))
		}},
		{"a row added", func(t *testing.T) {
			require.NoError(t, os.WriteFile(employees, append(append([]byte{}, original...), "999,Nobody,Sales,1\n"...), 0o644))
		}},
		{"a dataset added", func(t *testing.T) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "extra.csv"), []byte("a,b\n1,2\n"), 0o644))
		}},
		{"a dataset removed", func(t *testing.T) {
			require.NoError(t, os.Remove(employees))
		}},
	}
	seen := map[string]string{base: "the bundled data"}
	for _, ch := range changes {
		t.Run(ch.name, func(t *testing.T) {
			ch.change(t)
			v := servedVersion(t, dir, false)
			_, dup := seen[v]
			assert.False(t, dup, "%s gives the version of %s", ch.name, seen[v])
			seen[v] = ch.name
			// Undo the change: the version is that of the data again.
			os.Remove(filepath.Join(dir, "extra.csv"))
			require.NoError(t, os.WriteFile(employees, original, 0o644))
			assert.Equal(t, base, servedVersion(t, dir, false))
		})
	}
}
