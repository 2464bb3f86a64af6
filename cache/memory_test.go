package cache

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// liveHeap returns the bytes of heap objects still reachable after a full
// garbage collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC() // the second one empties what sync.Pools kept through the first
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	return int64(stats.HeapAlloc)
}

// TestPutMemoryIsBounded stores 5,000 records of about 20 KB (100 MB of
// JSON; 500 under the race detector), compactions included, and requires
// that the Cache holds no more than an index of them in memory: under
// 1 KB a Put, during the run and after Close, where keeping the records
// would cost more than 20 KB a Put.
func TestPutMemoryIsBounded(t *testing.T) {
	puts := 5_000
	if raceDetector {
		puts = 500
	}
	const (
		perPut = 1 << 10
		slack  = 1 << 20
		checks = 5
	)
	bound := func(n int) int64 { return int64(n*perPut + slack) }
	path := cachePath(t)
	before := liveHeap()
	c, err := Open(path)
	require.NoError(t, err)
	for i := range puts {
		key := fmt.Sprintf("%064d", i)
		require.NoError(t, c.Put(key, testRecord(key, eval.Pass, benchRecordBytes/2)))
		if (i+1)%(puts/checks) == 0 {
			c.background.Wait()
			assert.Less(t, liveHeap()-before, bound(i+1), "live heap after %d Puts", i+1)
		}
	}
	require.NoError(t, c.Close())
	assert.Less(t, liveHeap()-before, bound(puts), "live heap after Close")

	// The entries stay readable: the Cache that stored them answers from
	// the file it wrote, as does a new one.
	for _, reader := range []*Cache{c, openClean(t, path)} {
		for _, i := range []int{0, puts / 2, puts - 1} {
			key := fmt.Sprintf("%064d", i)
			got, ok := reader.Get(key)
			if assert.True(t, ok, key) {
				assert.Equal(t, key, got.Name)
			}
		}
	}
	runtime.KeepAlive(c)
}

// BenchmarkPutMemory stores new records of about 20 KB into an empty
// cache, one at a time, and reports the heap the Cache still holds per
// Put once the run is over (retained-B/op).
func BenchmarkPutMemory(b *testing.B) {
	path := cachePath(b)
	c := openClean(b, path)
	before := liveHeap()
	i := 0
	for b.Loop() {
		key := fmt.Sprintf("%064d", i)
		i++
		require.NoError(b, c.Put(key, testRecord(key, eval.Pass, benchRecordBytes/2)))
	}
	b.StopTimer()
	c.background.Wait()
	b.ReportMetric(float64(liveHeap()-before)/float64(b.N), "retained-B/op")
	runtime.KeepAlive(c)
}
