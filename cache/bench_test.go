package cache

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

const (
	benchEntries     = 1000
	benchRecordBytes = 20_000
)

// writeBenchCache writes a cache file of benchEntries passes of about
// benchRecordBytes each and returns its path and keys.
func writeBenchCache(b *testing.B) (string, []string) {
	return writeCacheFile(b, benchEntries, benchRecordBytes)
}

// writeCacheFile writes a cache file of n passes of about recordBytes
// each and returns its path and keys. The entries are written as a
// journal that Open and Close merge into the file.
func writeCacheFile(b *testing.B, n, recordBytes int) (string, []string) {
	b.Helper()
	path := cachePath(b)
	require.NoError(b, os.MkdirAll(filepath.Dir(path), 0o755))
	journal, err := os.Create(path + ".journal")
	require.NoError(b, err)
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("%064d", i)
		compact, err := json.Marshal(entry{Name: keys[i], Record: testRecord(keys[i], eval.Pass, recordBytes/2)})
		require.NoError(b, err)
		_, err = journal.Write(journalLine(keys[i], compact))
		require.NoError(b, err)
	}
	require.NoError(b, journal.Close())
	c, err := Open(path)
	require.NoError(b, err)
	require.NoError(b, c.Close())
	requireNoJournal(b, path)
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
		c.release()
	}
}

// BenchmarkOpenJournal opens a cache whose 1,000 entries are all in the
// journal (a run that was killed before any compaction) and looks them up.
func BenchmarkOpenJournal(b *testing.B) {
	path := cachePath(b)
	require.NoError(b, os.MkdirAll(filepath.Dir(path), 0o755))
	var journal []byte
	keys := make([]string, benchEntries)
	for i := range keys {
		keys[i] = fmt.Sprintf("%064d", i)
		compact, err := json.Marshal(entry{Name: keys[i], Record: testRecord(keys[i], eval.Pass, benchRecordBytes/2)})
		require.NoError(b, err)
		journal = append(journal, journalLine(keys[i], compact)...)
	}
	require.NoError(b, os.WriteFile(path+".journal", journal, 0o644))
	for b.Loop() {
		c, err := Open(path)
		require.NoError(b, err)
		for _, key := range keys {
			if _, ok := c.Get(key); !ok {
				b.Fatalf("entry %s missing", key)
			}
		}
		c.release() // without compacting: the next Open reads the journal again
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
		require.NoError(b, c.Put(key, testRecord(key, eval.Pass, benchRecordBytes/2)))
	}
}

// BenchmarkPut10000 stores new small cases into a 10,000-entry cache; its
// cost per Put must not depend on the cache's size.
func BenchmarkPut10000(b *testing.B) {
	path, _ := writeCacheFile(b, 10_000, 500)
	c := openClean(b, path)
	i := 0
	for b.Loop() {
		key := fmt.Sprintf("new-%d", i)
		i++
		require.NoError(b, c.Put(key, testRecord(key, eval.Pass, 250)))
	}
}

// BenchmarkPutParallel stores cases from many goroutines at once into a
// 1,000-entry cache; Puts that wait meanwhile share one append.
func BenchmarkPutParallel(b *testing.B) {
	path, _ := writeBenchCache(b)
	c := openClean(b, path)
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			key := fmt.Sprintf("new-%p-%d", pb, i%50)
			i++
			require.NoError(b, c.Put(key, testRecord(key, eval.Pass, benchRecordBytes/2)))
		}
	})
}

// BenchmarkIndex opens a 1,000-entry cache, finding where each entry is
// without reading any: the start of every run that uses the cache.
func BenchmarkIndex(b *testing.B) {
	path, _ := writeBenchCache(b)
	for b.Loop() {
		c, err := Open(path)
		require.NoError(b, err)
		c.release()
	}
}
