package recordings

import (
	"bytes"
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

// The index is read from the entries' headers: a store of large results
// opens without reading them, and an entry a killed writer left without
// its end is not indexed, and is cut off by the next Put.
func TestIndexSkipsPayloadsAndStopsAtATornEntry(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	dir := t.TempDir()
	s, err := Open(dir)
	require.NoError(t, err)
	var texts []string
	for i := range 6 {
		size := 100
		if i%2 == 0 {
			size = 300 << 10 // past the reader's buffer
		}
		text := toolResult(r, i, size)
		_, err := s.Put(text)
		require.NoError(t, err)
		texts = append(texts, text)
	}
	require.NoError(t, s.Close())

	pack := filepath.Join(dir, packName)
	whole, err := os.ReadFile(pack)
	require.NoError(t, err)
	torn := toolResult(r, 99, 200<<10)
	f, err := os.OpenFile(pack, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	fmt.Fprintf(f, "R %s raw %d\n%s", Fingerprint(torn), len(torn), torn) // no final newline
	require.NoError(t, f.Close())

	again, err := Open(dir)
	require.NoError(t, err)
	defer again.Close()
	for _, text := range texts {
		got, ok, err := again.Get(Fingerprint(text))
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, text, got)
	}
	assert.False(t, again.Has(Fingerprint(torn)), "a torn entry is not indexed")

	_, err = again.Put("after the torn entry")
	require.NoError(t, err)
	after, err := os.ReadFile(pack)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(after), string(whole)), "the entries before stay")
	assert.NotContains(t, string(after[len(whole):]), Fingerprint(torn), "the torn entry was cut off")
	got, ok, err := again.Get(Fingerprint("after the torn entry"))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "after the torn entry", got)
}

// A prune forgets the output directories that are gone.
func TestPruneForgetsGoneOutputs(t *testing.T) {
	dir, kept, gone := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "gone")
	require.NoError(t, os.Mkdir(gone, 0o755))
	s, err := Open(dir)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Register(kept))
	require.NoError(t, s.Register(gone))
	require.NoError(t, os.Remove(gone))
	_, err = s.Put("a result")
	require.NoError(t, err)
	_, err = s.Prune(map[string]bool{})
	require.NoError(t, err)
	outs, err := s.Outputs()
	require.NoError(t, err)
	assert.Equal(t, []string{kept}, outs)
}

// A damaged entry in the middle of the pack is passed over, and said: the
// entries after it stay readable, and the next writer cuts nothing.
func TestDamagedEntryIsSkippedNotCut(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	require.NoError(t, err)
	var fps []string
	for i := range 10 {
		fp, err := s.Put(fmt.Sprintf("result %d of a tool, long enough to be itself", i))
		require.NoError(t, err)
		fps = append(fps, fp)
	}
	require.NoError(t, s.Close())
	pack := filepath.Join(dir, packName)
	data, err := os.ReadFile(pack)
	require.NoError(t, err)
	third := bytes.Index(data, []byte("R "+fps[3]))
	require.Positive(t, third)
	data[third] = 'X' // the header of the fourth entry is damaged
	require.NoError(t, os.WriteFile(pack, data, 0o644))

	s, err = Open(dir)
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Put("a new result")
	require.NoError(t, err)
	for i, fp := range fps {
		text, ok, err := s.Get(fp)
		if i == 3 {
			assert.False(t, ok, "the damaged entry is lost")
			continue
		}
		require.NoError(t, err)
		require.True(t, ok, "entry %d survives", i)
		assert.Equal(t, fmt.Sprintf("result %d of a tool, long enough to be itself", i), text)
	}
	assert.Positive(t, s.Skipped())
	after, err := os.ReadFile(pack)
	require.NoError(t, err)
	assert.Greater(t, len(after), len(data), "nothing was cut")
}
