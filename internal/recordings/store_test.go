package recordings

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dirBytes is the size of the files under dir.
func dirBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	require.NoError(t, filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
		return err
	}))
	return n
}

// toolResult is a tool result as a database server returns one: JSON with
// identifiers and numbers that do not repeat, about size bytes of it.
func toolResult(r *rand.Rand, i, size int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"query":%d,"variants":[`, i)
	for j := 0; b.Len() < size; j++ {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"rs%d","pos":%d,"af":%.6f,"gene":"G%04X","clin":"%x"}`,
			r.Uint32(), r.Uint32()%250000000, r.Float64(), r.IntN(1<<16), r.Uint64())
	}
	b.WriteString("]}")
	return b.String()
}

// The recordings of a 10,000-case run whose calls return the same results
// over and over take at most 1.2 times the space of its distinct results:
// each is stored once, whichever case returned it.
func TestRepeatedResultsAreStoredOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const distinct, cases, callsPerCase = 800, 10000, 3
	results := make([]string, distinct)
	var distinctBytes int64
	for i := range results {
		results[i] = toolResult(r, i, 300+r.IntN(4000))
		distinctBytes += int64(len(results[i]))
	}
	dir := t.TempDir()
	s, err := Open(dir)
	require.NoError(t, err)
	defer s.Close()
	fingerprints := map[string]string{}
	for c := range cases {
		for k := range callsPerCase {
			text := results[(c*callsPerCase+k*7919)%distinct]
			fp, err := s.Put(text)
			require.NoError(t, err)
			require.Equal(t, Fingerprint(text), fp)
			fingerprints[fp] = text
		}
	}
	require.Len(t, fingerprints, distinct, "every distinct result was returned")

	st, err := s.Stats()
	require.NoError(t, err)
	assert.Equal(t, distinct, st.Results, "one entry per distinct result")
	assert.Equal(t, distinctBytes, st.RawBytes)
	size := dirBytes(t, dir)
	t.Logf("%d calls, %d distinct results of %d bytes, recordings %d bytes (%.2f×)",
		cases*callsPerCase, distinct, distinctBytes, size, float64(size)/float64(distinctBytes))
	assert.LessOrEqual(t, float64(size), 1.2*float64(distinctBytes))

	// Each result comes back whole from a store opened afresh.
	again, err := Open(dir)
	require.NoError(t, err)
	defer again.Close()
	for fp, text := range fingerprints {
		got, ok, err := again.Get(fp)
		require.NoError(t, err)
		require.True(t, ok, fp)
		require.Equal(t, text, got)
	}
	_, ok, err := again.Get(Fingerprint("never stored"))
	require.NoError(t, err)
	assert.False(t, ok)
}
