package cache

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// testRecord returns a finished case's record whose conversation carries
// about size bytes of tool output.
func testRecord(name string, status eval.Status, size int) eval.Record {
	toolOutput := strings.Repeat("x", size)
	return eval.Record{
		Name:     name,
		Category: "Genes",
		Status:   status,
		Question: "What is the Entrez id of " + name + "?",
		Expected: "7157",
		Response: "The Entrez id is 7157.",
		Verdict:  "yes",
		Reason:   "matches",
		ToolCalls: []eval.ToolCall{{
			ID: "call_1", Name: "get_gene_by_symbol", Arguments: `{"gene_symbol":"TP53"}`, Result: toolOutput,
		}},
		Conversation: []eval.Message{
			{Role: "user", Content: "What is the Entrez id of " + name + "?"},
			{Role: "tool", Name: "get_gene_by_symbol", ToolCallID: "call_1", Content: toolOutput},
			{Role: "assistant", Content: "The Entrez id is 7157."},
		},
		Usage:     eval.Usage{PromptTokens: 100, CompletionTokens: 10, TotalTokens: 110, Requests: 2},
		Model:     "test/model",
		StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
	}
}

// encodeEntry encodes e as the cache file holds an entry: indented for
// its place inside the file's "entries" object.
func encodeEntry(e entry) ([]byte, error) {
	return json.MarshalIndent(e, "    ", "  ")
}

// cachePath returns a cache file path in a directory that does not exist yet.
func cachePath(t testing.TB) string {
	return filepath.Join(t.TempDir(), "nested", ".cache", "test_results_cache.json")
}

// openClean opens the cache at path, requires that it reported nothing
// and closes it when the test ends.
func openClean(t testing.TB, path string) *Cache {
	t.Helper()
	c, err := Open(path)
	require.NoError(t, err)
	require.Empty(t, c.Warnings())
	t.Cleanup(func() { assert.NoError(t, c.Close()) })
	return c
}

// fileEntries decodes the cache file's entries as plain JSON values.
func fileEntries(t testing.TB, path string) map[string]map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		Version int                       `json:"version"`
		Entries map[string]map[string]any `json:"entries"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	require.Equal(t, FormatVersion, doc.Version)
	return doc.Entries
}

// decodedLine is one decoded line of the journal.
type decodedLine struct {
	Version int            `json:"version"`
	Key     string         `json:"key"`
	Entry   map[string]any `json:"entry"` // nil: a removal
}

// journalLines decodes every line of the journal next to the cache file
// at path (none when it does not exist). Every line must be whole JSON.
func journalLines(t testing.TB, path string) []decodedLine {
	t.Helper()
	data, err := os.ReadFile(path + ".journal")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	require.True(t, len(data) == 0 || bytes.HasSuffix(data, []byte("\n")), "the journal ends with a whole line")
	var lines []decodedLine
	for raw := range bytes.Lines(data) {
		var line decodedLine
		require.NoError(t, json.Unmarshal(raw, &line), "journal line %q", raw)
		require.Equal(t, FormatVersion, line.Version)
		lines = append(lines, line)
	}
	return lines
}

// diskEntries returns the entries a process opening the cache at path
// would find, decoded from the files without this package: the cache
// file's entries (if it exists) with the journal's lines applied in order.
func diskEntries(t testing.TB, path string) map[string]map[string]any {
	t.Helper()
	entries := map[string]map[string]any{}
	if _, err := os.Stat(path); err == nil {
		entries = fileEntries(t, path)
	}
	for _, line := range journalLines(t, path) {
		if line.Entry == nil {
			delete(entries, line.Key)
		} else {
			entries[line.Key] = line.Entry
		}
	}
	return entries
}

// requireNoJournal requires that the journal beside path does not exist.
func requireNoJournal(t testing.TB, path string) {
	t.Helper()
	_, err := os.Stat(path + ".journal")
	require.ErrorIs(t, err, fs.ErrNotExist, "the journal was merged and deleted")
}

// onlyBackup returns the single file in the cache directory whose name
// starts with the cache file's name followed by tag.
func onlyBackup(t testing.TB, path, tag string) string {
	t.Helper()
	matches, err := filepath.Glob(path + "." + tag + "-*")
	require.NoError(t, err)
	require.Len(t, matches, 1, "backups of %s", path)
	return matches[0]
}
