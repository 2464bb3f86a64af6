package cache

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/result"
)

// testRecord returns a finished case's record whose conversation carries
// about size bytes of tool output.
func testRecord(name string, status result.Status, size int) result.Record {
	toolOutput := strings.Repeat("x", size)
	return result.Record{
		Name:     name,
		Category: "Genes",
		Status:   status,
		Question: "What is the Entrez id of " + name + "?",
		Expected: "7157",
		Response: "The Entrez id is 7157.",
		Verdict:  "yes",
		Reason:   "matches",
		ToolCalls: []result.ToolCall{{
			ID: "call_1", Name: "get_gene_by_symbol", Arguments: `{"gene_symbol":"TP53"}`, Result: toolOutput,
		}},
		Conversation: []result.Message{
			{Role: "user", Content: "What is the Entrez id of " + name + "?"},
			{Role: "tool", Name: "get_gene_by_symbol", ToolCallID: "call_1", Content: toolOutput},
			{Role: "assistant", Content: "The Entrez id is 7157."},
		},
		Usage:     result.Usage{PromptTokens: 100, CompletionTokens: 10, TotalTokens: 110, Requests: 2},
		Model:     "test/model",
		StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
	}
}

// cachePath returns a cache file path in a directory that does not exist yet.
func cachePath(t testing.TB) string {
	return filepath.Join(t.TempDir(), "nested", ".cache", "test_results_cache.json")
}

// openClean opens the cache at path and requires that it reported nothing.
func openClean(t testing.TB, path string) *Cache {
	t.Helper()
	c, err := Open(path)
	require.NoError(t, err)
	require.Empty(t, c.Warnings())
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

// onlyBackup returns the single file in the cache directory whose name
// starts with the cache file's name followed by tag.
func onlyBackup(t testing.TB, path, tag string) string {
	t.Helper()
	matches, err := filepath.Glob(path + "." + tag + "-*")
	require.NoError(t, err)
	require.Len(t, matches, 1, "backups of %s", path)
	return matches[0]
}
