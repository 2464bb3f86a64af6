package suite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Shards of one run share a group; a shard started by another CI run, or
// from another cache, has another.
func TestShardGroup(t *testing.T) {
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache.json")
	assert.Empty(t, shardGroup(env(nil), cache), "nothing to tell runs apart by")
	assert.Equal(t, "GITHUB_RUN_ID 42", shardGroup(env(map[string]string{"GITHUB_RUN_ID": "42"}), cache))
	assert.Equal(t, "CI_PIPELINE_ID 7", shardGroup(env(map[string]string{"CI_PIPELINE_ID": "7"}), cache))

	require.NoError(t, os.WriteFile(cache, []byte(`{"version":1,"entries":{}}`), 0o644))
	first := shardGroup(env(nil), cache)
	assert.Regexp(t, `^cache [0-9a-f]{16}$`, first)
	assert.Equal(t, first, shardGroup(env(nil), cache), "the same cache: the same run")
	require.NoError(t, os.WriteFile(cache+".journal", []byte("{}\n"), 0o644))
	assert.NotEqual(t, first, shardGroup(env(nil), cache), "the cache an earlier run started from")
}
