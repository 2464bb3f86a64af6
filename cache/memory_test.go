package cache

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/result"
)

// liveHeap returns the bytes of heap objects still reachable after a full
// garbage collection.
func liveHeap() uint64 {
	runtime.GC()
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	return stats.HeapAlloc
}

// TestPutMemoryIsBounded stores 5,000 records of about 20 KB (100 MB of
// JSON, compactions included) and requires that the Cache keeps only a
// small index of them in memory, during the run and after Close.
func TestPutMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100 MB")
	}
	const (
		puts     = 5_000
		bound    = 40 << 20 // the records themselves are 100 MB
		perCheck = 1_000
	)
	path := cachePath(t)
	before := liveHeap()
	c, err := Open(path)
	require.NoError(t, err)
	for i := range puts {
		key := fmt.Sprintf("%064d", i)
		require.NoError(t, c.Put(key, testRecord(key, result.Pass, benchRecordBytes/2)))
		if (i+1)%perCheck == 0 {
			c.background.Wait()
			grown := int64(liveHeap()) - int64(before)
			assert.Less(t, grown, int64(bound), "live heap after %d Puts", i+1)
		}
	}
	require.NoError(t, c.Close())
	grown := int64(liveHeap()) - int64(before)
	assert.Less(t, grown, int64(bound), "live heap after Close")

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
		require.NoError(b, c.Put(key, testRecord(key, result.Pass, benchRecordBytes/2)))
	}
	b.StopTimer()
	c.background.Wait()
	retained := int64(liveHeap()) - int64(before)
	b.ReportMetric(float64(retained)/float64(b.N), "retained-B/op")
	runtime.KeepAlive(c)
}
