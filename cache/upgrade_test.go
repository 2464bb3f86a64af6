package cache

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/recordings"
)

// fixtureV1 is a cache file written by commit c14a7a2 (format version 1,
// whole records): two cases of the sample server passed against the stub
// model at http://127.0.0.1:18741/v1.
const fixtureV1 = "testdata/c14a7a2/cache.json"

// fixtureEntries decodes the entries of the cache file at path as they
// are.
func fixtureEntries(t *testing.T, path string) map[string]entry {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		Version int              `json:"version"`
		Entries map[string]entry `json:"entries"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	require.Equal(t, 1, doc.Version)
	require.Len(t, doc.Entries, 2)
	return doc.Entries
}

// A key is derived as it was in format version 1: this one is what
// cache.Key of commit c14a7a2 gives for the same input.
func TestKeyOfFormatVersion1IsUnchanged(t *testing.T) {
	key, err := Key(KeyInput{
		Question: "What is the Entrez id of NUTM2G?", Expected: "441457",
		Expectations: map[string]any{"kind": "tool", "checks": map[string]any{"contains": []string{"441457"}}},
		Model:        "stub", BaseURL: "http://127.0.0.1:18741/v1", SystemPrompt: "You are a research assistant.",
		MaxIterations: 10, JudgeModel: "stub", TokenLimit: 20000, ToolsHash: "abc123", Repeat: 1,
	})
	require.NoError(t, err)
	assert.Equal(t, "2eea3daa08dea25626b7b619e7717b1f6e7770dafa0c910a3a8e5bb3dc4f434e", key)
}

// A cache file of c14a7a2 serves its passes, whole, under its keys: it is
// rewritten in the current format when opened, its records' large texts
// moved to the recordings beside it, and serves them the same afterwards.
func TestCacheOfC14a7a2ServesItsPasses(t *testing.T) {
	path := cachePath(t)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	data, err := os.ReadFile(fixtureV1)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	want := fixtureEntries(t, path)

	check := func(c *Cache) {
		t.Helper()
		for key, e := range want {
			whole := e.Record
			whole.Cached = true
			got, ok := c.Get(key)
			require.True(t, ok, key)
			assert.Equal(t, whole, got, "%s: the whole record", e.Name)
			require.NotEmpty(t, got.Conversation)
			require.NotEmpty(t, got.JudgePrompt)

			hit, ok := c.Lookup(key)
			require.True(t, ok)
			assert.False(t, hit.Whole())
			assert.Equal(t, lean(whole), hit.Record, "%s: without its large texts", e.Name)
			assert.Empty(t, hit.Record.Conversation)
			stored, err := hit.JSON()
			require.NoError(t, err)
			var r eval.Record
			require.NoError(t, json.Unmarshal(stored, &r))
			assert.Equal(t, e.Record, r, "the whole record's JSON, Cached false")
		}
		assert.Empty(t, c.Warnings())
	}

	c, err := Open(path)
	require.NoError(t, err)
	check(c)
	upgraded := fileEntries(t, path) // requires the current format version
	for key := range want {
		assert.Regexp(t, `^[0-9a-f]{64}$`, upgraded[key]["record_fingerprint"], "rewritten when opened")
		assert.Nil(t, upgraded[key]["record"].(map[string]any)["conversation"])
	}
	require.NoError(t, c.Close())
	check(openClean(t, path))
}

// Lines of a c14a7a2 journal (a run killed before it merged them) are read
// and upgraded too.
func TestJournalOfC14a7a2ServesItsPasses(t *testing.T) {
	path := cachePath(t)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	want := fixtureEntries(t, fixtureV1)
	var journal []byte
	for key, e := range want {
		compact, err := json.Marshal(e)
		require.NoError(t, err)
		journal = append(journal, `{"version":1,"key":"`+key+`","entry":`...)
		journal = append(append(journal, compact...), "}\n"...)
	}
	require.NoError(t, os.WriteFile(path+".journal", journal, 0o644))

	c := openClean(t, path)
	requireNoJournal(t, path)
	for key, e := range want {
		got, ok := c.Get(key)
		require.True(t, ok)
		whole := e.Record
		whole.Cached = true
		assert.Equal(t, whole, got)
	}
	assert.Len(t, fileEntries(t, path), 2)
}

// A stored record's large texts are kept once, in the recordings beside the
// cache: Lookup decodes the rest, Full and JSON give the whole record.
func TestLookupLeavesTheLargeTextsInTheRecordings(t *testing.T) {
	path := cachePath(t)
	c := openClean(t, path)
	r := testRecord("a", eval.Pass, 5000)
	r.JudgePrompt, r.JudgeReply, r.JudgeRaw = "the judge's prompt", "yes", "raw"
	r.Judges = []eval.JudgeVerdict{{Model: "j", Verdict: "yes", Reply: "yes, because"}}
	r.ToolCalls[0].ResultTokens = 1250
	r.Turns = []eval.TurnResult{{Turn: 1, User: "hello", Reply: "hi", Status: eval.Pass, Leaks: []string{"x"}}}
	require.NoError(t, c.Put("k", r))
	for _, closed := range []bool{false, true} {
		if closed {
			require.NoError(t, c.Close())
			c = openClean(t, path)
		}
		hit, ok := c.Lookup("k")
		require.True(t, ok)
		assert.False(t, hit.Whole())
		small, err := json.Marshal(hit.Record)
		require.NoError(t, err)
		assert.Less(t, len(small), 1000, "no tool result, conversation or judge text: %s", small)
		assert.Equal(t, "get_gene_by_symbol", hit.Record.ToolCalls[0].Name)
		assert.Equal(t, `{"gene_symbol":"TP53"}`, hit.Record.ToolCalls[0].Arguments)
		assert.Equal(t, []string{"x"}, hit.Record.Turns[0].Leaks)
		assert.True(t, hit.Record.Cached)

		full, err := hit.Full()
		require.NoError(t, err)
		want := r
		want.Cached = true
		assert.Equal(t, want, full)
		stored, err := hit.JSON()
		require.NoError(t, err)
		want.Cached = false
		wantJSON, err := marshal(want)
		require.NoError(t, err)
		assert.Equal(t, string(wantJSON), string(stored))
	}
}

// A cache file copied without the recordings beside it still serves its
// passes (nothing is paid twice), without their large texts and with a
// warning.
func TestCacheFileWithoutItsRecordingsServesItsOutcomes(t *testing.T) {
	path := cachePath(t)
	c := openClean(t, path)
	r := testRecord("a", eval.Pass, 100)
	require.NoError(t, c.Put("k", r))
	require.NoError(t, c.Close())
	require.NoError(t, os.RemoveAll(recordings.DirBeside(path)))

	c, err := Open(path)
	require.NoError(t, err)
	defer c.Close()
	hit, ok := c.Lookup("k")
	require.True(t, ok)
	_, err = hit.JSON()
	assert.ErrorContains(t, err, "do not hold it")
	got, ok := c.Get("k")
	require.True(t, ok, "the pass is served")
	assert.Equal(t, eval.Pass, got.Status)
	assert.Empty(t, got.Conversation)
	require.Len(t, c.Warnings(), 1)
	assert.Contains(t, c.Warnings()[0], "without its texts")
}
