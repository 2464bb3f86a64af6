package cache

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/result"
)

const (
	benchEntries     = 1000
	benchRecordBytes = 20_000
)

// writeBenchCache writes a cache file of benchEntries passes of about
// benchRecordBytes each and returns its path and keys.
func writeBenchCache(b *testing.B) (string, []string) {
	b.Helper()
	path := cachePath(b)
	entries := make(map[string][]byte, benchEntries)
	keys := make([]string, benchEntries)
	for i := range keys {
		keys[i] = fmt.Sprintf("%064d", i)
		raw, err := encodeEntry(entry{Name: keys[i], Record: testRecord(keys[i], result.Pass, benchRecordBytes/2)})
		require.NoError(b, err)
		entries[keys[i]] = raw
	}
	openClean(b, path) // creates the directory
	_, err := writeFile(path, entries)
	require.NoError(b, err)
	return path, keys
}

// BenchmarkOpen opens a 1,000-entry cache and looks up every entry, as a
// run of 1,000 cached cases does.
func BenchmarkOpen(b *testing.B) {
	path, keys := writeBenchCache(b)
	for b.Loop() {
		c, err := Open(path)
		require.NoError(b, err)
		for _, key := range keys {
			if _, ok := c.Get(key); !ok {
				b.Fatalf("entry %s missing", key)
			}
		}
	}
}

// BenchmarkPut stores one more case, one at a time, into a 1,000-entry cache.
func BenchmarkPut(b *testing.B) {
	path, _ := writeBenchCache(b)
	c := openClean(b, path)
	i := 0
	for b.Loop() {
		key := fmt.Sprintf("new-%d", i%50)
		i++
		require.NoError(b, c.Put(key, testRecord(key, result.Pass, benchRecordBytes/2)))
	}
}

// BenchmarkPutParallel stores cases from many goroutines at once into a
// 1,000-entry cache; concurrent Puts share one write.
func BenchmarkPutParallel(b *testing.B) {
	path, _ := writeBenchCache(b)
	c := openClean(b, path)
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			key := fmt.Sprintf("new-%p-%d", pb, i%50)
			i++
			require.NoError(b, c.Put(key, testRecord(key, result.Pass, benchRecordBytes/2)))
		}
	})
}
