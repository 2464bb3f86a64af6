package cache

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/recordings"
)

// put stores a record of the status under key and closes nothing.
func put(t *testing.T, c *Cache, key string, status eval.Status, seconds float64) {
	t.Helper()
	r := testRecord(key, status, 100)
	r.Seconds = seconds
	require.NoError(t, c.Put(key, r))
}

// copyCache copies the cache at from (file and journal, where present) to
// a new path and returns it.
func copyCache(t *testing.T, from string) string {
	t.Helper()
	to := copyCacheFile(t, from)
	require.NoError(t, os.CopyFS(recordings.DirBeside(to), os.DirFS(recordings.DirBeside(from))))
	return to
}

// copyCacheFile copies the cache file at from and its journal, not the
// recordings beside them, to a new directory, and returns the copy's path.
func copyCacheFile(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "cache.json")
	for _, suffix := range []string{"", ".journal"} {
		data, err := os.ReadFile(from + suffix)
		if os.IsNotExist(err) {
			continue
		}
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(to+suffix, data, 0o644))
	}
	return to
}

func TestRemovalIsRememberedWithItsSeconds(t *testing.T) {
	path := cachePath(t)
	c, err := Open(path)
	require.NoError(t, err)
	put(t, c, "k1", eval.Pass, 3)
	put(t, c, "k1", eval.Fail, 4.5)
	put(t, c, "k2", eval.Fail, 7)
	seconds, ok := c.Removed("k1")
	assert.True(t, ok)
	assert.Equal(t, 4.5, seconds)
	assert.False(t, c.Has("k1"))
	require.NoError(t, c.Close())

	c = openClean(t, path)
	for key, want := range map[string]float64{"k1": 4.5, "k2": 7} {
		seconds, ok := c.Removed(key)
		assert.True(t, ok, "%s: the removal survives the compaction", key)
		assert.Equal(t, want, seconds)
	}
	put(t, c, "k2", eval.Pass, 1)
	_, ok = c.Removed("k2")
	assert.False(t, ok, "a later pass ends the removal")
	assert.True(t, c.Has("k2"))
	_, ok = c.Removed("never")
	assert.False(t, ok)
}

func TestOldRemovalsAreForgottenAtCompaction(t *testing.T) {
	path := cachePath(t)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	old := time.Now().Add(-removalTTL - time.Hour).UTC().Format(time.RFC3339Nano)
	recent := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	lines := fmt.Sprintf("{\"version\":1,\"key\":\"old\",\"entry\":null,\"removed\":{\"at\":%q,\"seconds\":2}}\n"+
		"{\"version\":1,\"key\":\"recent\",\"entry\":null,\"removed\":{\"at\":%q,\"seconds\":2}}\n"+
		"{\"version\":1,\"key\":\"untimed\",\"entry\":null}\n", old, recent)
	require.NoError(t, os.WriteFile(path+".journal", []byte(lines), 0o644))
	c := openClean(t, path)
	_, ok := c.Removed("old")
	assert.True(t, ok, "read from the journal")
	require.NoError(t, c.Close())

	c = openClean(t, path)
	_, ok = c.Removed("old")
	assert.False(t, ok, "older than the TTL: left out by the compaction")
	_, ok = c.Removed("untimed")
	assert.False(t, ok, "a removal without its time is not kept")
	_, ok = c.Removed("recent")
	assert.True(t, ok)
}

// shardCaches builds a carried cache and two shards' caches started from
// it: shard A fails "carried-1" (forced to run again) and passes "a-new";
// shard B passes "b-new" and leaves "carried-1" and "carried-2" alone.
func shardCaches(t *testing.T) (base, a, b string) {
	base = cachePath(t)
	c, err := Open(base)
	require.NoError(t, err)
	put(t, c, "carried-1", eval.Pass, 1)
	put(t, c, "carried-2", eval.Pass, 1)
	put(t, c, "carried-fail", eval.Fail, 9)
	require.NoError(t, c.Close())

	a, b = copyCache(t, base), copyCache(t, base)
	ca, err := Open(a)
	require.NoError(t, err)
	put(t, ca, "carried-1", eval.Fail, 2)
	put(t, ca, "a-new", eval.Pass, 2)
	require.NoError(t, ca.Close())
	cb, err := Open(b)
	require.NoError(t, err)
	put(t, cb, "b-new", eval.TokenLimit, 3)
	// B is killed before closing: its results are in its journal only.
	require.NoError(t, cb.flush())
	return base, a, b
}

func TestMergeKeepsTheLatestOutcomeOfEachKey(t *testing.T) {
	_, a, b := shardCaches(t)
	require.FileExists(t, b+".journal", "shard B was not compacted")
	out := filepath.Join(t.TempDir(), "merged", "cache.json")
	res, err := Merge(out, []string{a, b})
	require.NoError(t, err)
	assert.Equal(t, 3, res.Entries, "carried-2, a-new, b-new")
	assert.Equal(t, 2, res.Removed, "carried-1 (A's fail) and carried-fail")
	assert.Equal(t, 1, res.Conflicts, "carried-1: a pass in B, a later fail in A")
	require.Len(t, res.Inputs, 2)
	assert.Equal(t, MergeInput{Path: a, Entries: 2, Removed: 2}, res.Inputs[0], "A: carried-2 and a-new; carried-1 and carried-fail removed")

	c := openClean(t, out)
	for key, want := range map[string]bool{"carried-1": false, "carried-2": true, "a-new": true, "b-new": true, "carried-fail": false} {
		_, ok := c.Get(key)
		assert.Equal(t, want, ok, key)
	}
	seconds, ok := c.Removed("carried-1")
	assert.True(t, ok, "the fail in shard A beats the older pass shard B carried")
	assert.Equal(t, 2.0, seconds)
	r, _ := c.Get("b-new")
	assert.Equal(t, eval.TokenLimit, r.Status)
	for _, key := range []string{"carried-2", "a-new", "b-new"} {
		r, _ := c.Get(key)
		assert.NotEmpty(t, r.Conversation, "%s: the whole record is in the recordings beside the merged cache", key)
	}
	assert.Empty(t, c.Warnings())
}

// An input copied without the recordings beside it gives its outcomes to
// the merged cache, with a warning for each whole record it lacks.
func TestMergeOfACacheFileWithoutItsRecordings(t *testing.T) {
	base := cachePath(t)
	c, err := Open(base)
	require.NoError(t, err)
	put(t, c, "k1", eval.Pass, 1)
	require.NoError(t, c.Close())
	bare := copyCacheFile(t, base)
	out := filepath.Join(t.TempDir(), "cache.json")
	res, err := Merge(out, []string{bare})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Entries)
	require.Len(t, res.Inputs[0].Warnings, 1)
	assert.Contains(t, res.Inputs[0].Warnings[0], "keeps its outcome without its texts")
	merged := openClean(t, out)
	r, ok := merged.Get("k1")
	require.True(t, ok)
	assert.Equal(t, eval.Pass, r.Status)
}

func TestMergeOrderDoesNotMatter(t *testing.T) {
	_, a, b := shardCaches(t)
	out1 := filepath.Join(t.TempDir(), "ab.json")
	out2 := filepath.Join(t.TempDir(), "ba.json")
	_, err := Merge(out1, []string{a, b})
	require.NoError(t, err)
	_, err = Merge(out2, []string{b, a})
	require.NoError(t, err)
	assert.Equal(t, fileEntries(t, out1), fileEntries(t, out2))
}

func TestMergeIntoAnInput(t *testing.T) {
	base, a, b := shardCaches(t)
	res, err := Merge(base, []string{base, a, b})
	require.NoError(t, err)
	assert.Equal(t, 3, res.Entries)
	assert.NoFileExists(t, base+".journal")
	c := openClean(t, base)
	_, ok := c.Get("carried-1")
	assert.False(t, ok)
	_, ok = c.Get("b-new")
	assert.True(t, ok)
}

func TestMergeRefuses(t *testing.T) {
	_, a, b := shardCaches(t)
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing.json")
	require.NoError(t, os.WriteFile(existing, []byte(`{"version": 1, "entries": {}}`), 0o644))
	v0 := filepath.Join(dir, "python.json")
	require.NoError(t, os.WriteFile(v0, []byte(`{"some_case": {"passed": true}}`), 0o644))
	v2 := filepath.Join(dir, "v2.json")
	require.NoError(t, os.WriteFile(v2, []byte(`{"version": 3, "entries": {}}`), 0o644))
	garbage := filepath.Join(dir, "garbage.json")
	require.NoError(t, os.WriteFile(garbage, []byte(`not json`), 0o644))
	out := filepath.Join(dir, "out.json")

	tests := []struct {
		name    string
		out     string
		inputs  []string
		wantErr []string
	}{
		{"versions", out, []string{a, v0, v2}, []string{
			"cannot merge caches of other format versions (this mcpeval reads versions 1 and 2 and writes version 2)",
			a + " has format version 2 in cache.json",
			v0 + " has no format version in python.json (an older or foreign cache file)",
			v2 + " has format version 3 in v2.json",
		}},
		{"existing output", existing, []string{a, b}, []string{existing + " exists and is not an input"}},
		{"missing input", out, []string{a, filepath.Join(dir, "nope.json")}, []string{"no cache at " + filepath.Join(dir, "nope.json")}},
		{"not a cache", out, []string{a, garbage}, []string{garbage + " is not a cache file"}},
		{"no input", out, nil, []string{"no input"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Merge(tt.out, tt.inputs)
			require.Error(t, err)
			for _, want := range tt.wantErr {
				assert.Contains(t, err.Error(), want)
			}
			assert.NoFileExists(t, out, "nothing is written")
		})
	}
	data, err := os.ReadFile(v0)
	require.NoError(t, err)
	assert.Equal(t, `{"some_case": {"passed": true}}`, string(data), "an input of another version is left as it is")
}

func TestMergeRefusesAJournalOfAnotherVersion(t *testing.T) {
	_, a, _ := shardCaches(t)
	other := cachePath(t)
	require.NoError(t, os.MkdirAll(filepath.Dir(other), 0o755))
	require.NoError(t, os.WriteFile(other+".journal", []byte("{\"version\":3,\"key\":\"k\",\"entry\":null}\n"), 0o644))
	_, err := Merge(filepath.Join(t.TempDir(), "out.json"), []string{a, other})
	require.Error(t, err)
	assert.Contains(t, err.Error(), other+" has format version 3 in test_results_cache.json.journal")
}

// A merge into a cache that a run is writing to keeps every result the run
// stores meanwhile: the merge reads the output's journal and removes it
// under one lock, so no line appended in between is lost.
func TestMergeIntoACacheBeingWrittenLosesNothing(t *testing.T) {
	base, a, _ := shardCaches(t)
	writer, err := Open(base)
	require.NoError(t, err)
	const puts = 300
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range puts {
			key := fmt.Sprintf("run-%04d", i)
			if !assert.NoError(t, writer.Put(key, testRecord(key, eval.Pass, 200))) {
				return
			}
		}
	}()
	merges := 0
	for running := true; running; merges++ {
		select {
		case <-done:
			running = false
		default:
		}
		_, err := Merge(base, []string{base, a})
		require.NoError(t, err)
	}
	require.NoError(t, writer.Close())
	t.Logf("%d merges while %d passes were stored", merges, puts)

	c := openClean(t, base)
	var lost []string
	for i := range puts {
		if key := fmt.Sprintf("run-%04d", i); !c.Has(key) {
			lost = append(lost, key)
		}
	}
	assert.Empty(t, lost, "passes stored while the merges ran")
}
