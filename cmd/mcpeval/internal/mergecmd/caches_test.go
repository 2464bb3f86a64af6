package mergecmd

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/cache"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/cmdtest"
	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// writeCache writes a cache holding a pass under each key.
func writeCache(t *testing.T, keys ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cache.json")
	c, err := cache.Open(path)
	require.NoError(t, err)
	for _, k := range keys {
		require.NoError(t, c.Put(k, eval.Record{Name: k, Status: eval.Pass, ToolCalls: []eval.ToolCall{}}))
	}
	require.NoError(t, c.Close())
	return path
}

func TestMergeCaches(t *testing.T) {
	a, b := writeCache(t, "k1", "k2"), writeCache(t, "k3")
	out := filepath.Join(t.TempDir(), "merged", "cache.json")
	var stdout, stderr bytes.Buffer
	require.NoError(t, cmdtest.Run(Cmd, []string{"caches", a, b, "-o", out}, nil, &stdout, &stderr, nil))
	assert.Equal(t, "read "+a+": 2 stored results, 0 removals\nread "+b+": 1 stored results, 0 removals\n"+
		"wrote "+out+": 3 stored results, 0 removals (0 case runs on which the inputs differed: the latest outcome kept)\n", stdout.String())
	c, err := cache.Open(out)
	require.NoError(t, err)
	defer c.Close()
	for _, k := range []string{"k1", "k2", "k3"} {
		_, ok := c.Get(k)
		assert.True(t, ok, k)
	}
}

func TestMergeCachesRefuses(t *testing.T) {
	a := writeCache(t, "k1")
	foreign := filepath.Join(t.TempDir(), "old.json")
	require.NoError(t, os.WriteFile(foreign, []byte(`{"case": {"passed": true}}`), 0o644))
	out := filepath.Join(t.TempDir(), "out.json")
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"caches", a}, "name the caches to merge and the merged cache's file (-o)"},
		{[]string{"caches", "-o", out}, "name the caches to merge"},
		{[]string{"caches", a, foreign, "-o", out}, foreign + " has no format version in old.json"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		err := cmdtest.Run(Cmd, tt.args, nil, &stdout, &stderr, nil)
		require.Error(t, err, "%v", tt.args)
		assert.Contains(t, err.Error(), tt.wantErr)
		assert.Equal(t, 2, base.ExitStatus(err))
	}
	assert.NoFileExists(t, out)
}
