package cache

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// appendToJournal appends data to the journal beside the cache file.
func appendToJournal(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path+".journal", os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.Write(data)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// firstJournalLine returns the journal's first line, newline included.
func firstJournalLine(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path + ".journal")
	require.NoError(t, err)
	end := bytes.IndexByte(data, '\n')
	require.Positive(t, end)
	return data[:end+1]
}

func TestPutAppendsOneLineAndLeavesTheFileAlone(t *testing.T) {
	path := cachePath(t)
	c := openClean(t, path)
	require.NoError(t, c.Put("k1", testRecord("a", eval.Pass, 10)))
	require.NoError(t, c.Put("k2", testRecord("b", eval.TokenLimit, 10)))
	require.NoError(t, c.Put("k1", testRecord("a", eval.Error, 10)))

	assert.NoFileExists(t, path, "no Put rewrites the cache file")
	lines := journalLines(t, path)
	require.Len(t, lines, 3)
	assert.Equal(t, []string{"k1", "k2", "k1"}, []string{lines[0].Key, lines[1].Key, lines[2].Key})
	assert.Equal(t, "a", lines[0].Entry["name"])
	assert.Equal(t, "token_limit", lines[1].Entry["record"].(map[string]any)["status"])
	assert.Nil(t, lines[2].Entry)
}

func TestTornLastJournalLineIsDropped(t *testing.T) {
	path := cachePath(t)
	c := openClean(t, path)
	require.NoError(t, c.Put("k1", testRecord("a", eval.Pass, 10)))
	require.NoError(t, c.Put("k2", testRecord("b", eval.Pass, 10)))
	line := bytes.Replace(firstJournalLine(t, path), []byte(`"k1"`), []byte(`"k3"`), 1)
	torn := line[:len(line)/2] // a writer killed in the middle of its write

	// A Cache that was open before the tear appends after it.
	appendToJournal(t, path, torn)
	require.NoError(t, c.Put("k4", testRecord("d", eval.Pass, 10)))
	lines := journalLines(t, path) // requires every line to be whole
	require.Len(t, lines, 3)
	assert.Equal(t, "k4", lines[2].Key)
	assert.Empty(t, c.Warnings(), "a cut-off last line is not worth a warning")

	// A Cache opened after the tear reads around it.
	appendToJournal(t, path, torn)
	reopened := openClean(t, path)
	for _, key := range []string{"k1", "k2", "k4"} {
		_, ok := reopened.Get(key)
		assert.True(t, ok, key)
	}
	_, ok := reopened.Get("k3")
	assert.False(t, ok, "the cut-off line's Put never returned")
	assert.Len(t, journalLines(t, path), 3)
}

func TestCompleteLastJournalLineWithoutNewlineIsKept(t *testing.T) {
	path := cachePath(t)
	c := openClean(t, path)
	require.NoError(t, c.Put("k1", testRecord("a", eval.Pass, 10)))
	line := bytes.Replace(firstJournalLine(t, path), []byte(`"k1"`), []byte(`"k2"`), 1)
	whole := line[:len(line)-1] // the whole line but its newline

	// A Cache opened after it reads it, and ends it with its newline.
	appendToJournal(t, path, whole)
	reopened := openClean(t, path)
	for _, key := range []string{"k1", "k2"} {
		got, ok := reopened.Get(key)
		if assert.True(t, ok, key) {
			assert.Equal(t, "a", got.Name)
		}
	}
	require.NoError(t, reopened.Put("k3", testRecord("c", eval.Pass, 10)))
	lines := journalLines(t, path) // requires every line to be whole
	require.Len(t, lines, 3)
	assert.Equal(t, []string{"k1", "k2", "k3"}, []string{lines[0].Key, lines[1].Key, lines[2].Key})

	// A Cache that was open before reads it when it next reads the journal.
	appendToJournal(t, path, bytes.Replace(whole, []byte(`"k2"`), []byte(`"k4"`), 1))
	require.NoError(t, c.Put("k5", testRecord("e", eval.Pass, 10)))
	_, ok := c.Get("k4")
	assert.True(t, ok, "k4")
	lines = journalLines(t, path)
	require.Len(t, lines, 5)
	assert.Equal(t, "k5", lines[4].Key)
	assert.Empty(t, c.Warnings())
	assert.Empty(t, reopened.Warnings())

	require.NoError(t, c.Close())
	require.NoError(t, reopened.Close())
	entries := fileEntries(t, path)
	for _, key := range []string{"k1", "k2", "k3", "k4", "k5"} {
		assert.Contains(t, entries, key, "merged into the file")
	}
}

func TestUnreadableJournalLinesAreSkippedAndSavedAside(t *testing.T) {
	path := cachePath(t)
	c := openClean(t, path)
	require.NoError(t, c.Put("k1", testRecord("a", eval.Pass, 10)))
	otherVersion := bytes.Replace(firstJournalLine(t, path), []byte(`{"version":2,`), []byte(`{"version":3,`), 1)
	require.NotEqual(t, firstJournalLine(t, path), otherVersion)
	bad := append([]byte("not json at all\n"), otherVersion...)
	appendToJournal(t, path, bad)
	require.NoError(t, c.Put("k2", testRecord("b", eval.Pass, 10)))
	require.Len(t, c.Warnings(), 2, "the Cache appending after the lines reports them")

	reopened, err := Open(path)
	require.NoError(t, err)
	warnings := reopened.Warnings()
	require.Len(t, warnings, 2)
	assert.Contains(t, warnings[0], "line 2 of cache journal")
	assert.Contains(t, warnings[1], "line 3 of cache journal")
	assert.Contains(t, warnings[1], "format version 3")
	for _, key := range []string{"k1", "k2"} {
		_, ok := reopened.Get(key)
		assert.True(t, ok, "%s is read around the bad lines", key)
	}

	require.NoError(t, reopened.Close())
	backup := onlyBackup(t, path+".journal", "corrupt")
	require.Len(t, reopened.Warnings(), 3)
	assert.Contains(t, reopened.Warnings()[2], backup, "the warning names the saved lines")
	saved, err := os.ReadFile(backup)
	require.NoError(t, err)
	assert.Equal(t, string(bad), string(saved))
	requireNoJournal(t, path)
	entries := fileEntries(t, path)
	assert.Len(t, entries, 2)
	assert.Contains(t, entries, "k1")
	assert.Contains(t, entries, "k2")
}

func TestJournalIsCompactedWhenItOutgrowsTheFile(t *testing.T) {
	path := cachePath(t)
	c := openClean(t, path)
	const puts = minCompactLines + 40
	for i := range puts {
		key := fmt.Sprintf("key-%04d", i)
		require.NoError(t, c.Put(key, testRecord(key, eval.Pass, 10)))
	}
	c.background.Wait()

	inFile := fileEntries(t, path)
	assert.Greater(t, len(inFile), minCompactLines, "a compaction ran once the journal passed %d lines", minCompactLines)
	assert.Len(t, journalLines(t, path), puts-len(inFile), "the journal holds only what came after")
	assert.Len(t, diskEntries(t, path), puts)
	assert.Empty(t, c.Warnings())

	// Now the bound is the file's size: a journal shorter than the file
	// is left alone.
	for i := range len(inFile) / 2 {
		key := fmt.Sprintf("key-%04d", i)
		require.NoError(t, c.Put(key, testRecord(key, eval.Fail, 10)))
	}
	c.background.Wait()
	assert.Len(t, fileEntries(t, path), len(inFile), "no compaction below the bound")
	assert.Len(t, diskEntries(t, path), puts-len(inFile)/2)
}

func TestClose(t *testing.T) {
	path := cachePath(t)
	c, err := Open(path)
	require.NoError(t, err)
	require.NoError(t, c.Put("k1", testRecord("a", eval.Pass, 10)))

	// An append that fails is carried by Close.
	lockPath := path + ".lock"
	require.NoError(t, os.Remove(lockPath))
	require.NoError(t, os.Mkdir(lockPath, 0o755))
	require.Error(t, c.Put("k2", testRecord("b", eval.Pass, 10)))
	require.NoError(t, os.Remove(lockPath))

	require.NoError(t, c.Close())
	requireNoJournal(t, path)
	entries := fileEntries(t, path)
	assert.Contains(t, entries, "k1")
	assert.Contains(t, entries, "k2")

	require.NoError(t, c.Close(), "closing twice does nothing")
	got, ok := c.Get("k2")
	assert.True(t, ok, "Get still answers after Close")
	assert.Equal(t, "b", got.Name)
	assert.ErrorIs(t, c.Put("k3", testRecord("c", eval.Pass, 10)), errClosed)
	_, ok = c.Get("k3")
	assert.False(t, ok, "a Put after Close changes nothing")
	assert.ErrorIs(t, c.Clear(), errClosed)
	assert.NotContains(t, diskEntries(t, path), "k3")
}

func TestJournalLineWrittenByHandIsRead(t *testing.T) {
	path := cachePath(t)
	c := openClean(t, path)
	require.NoError(t, c.Put("k1", testRecord("a", eval.Pass, 10)))
	compact, err := json.Marshal(entry{Name: "by hand", Record: testRecord("by hand", eval.Pass, 10)})
	require.NoError(t, err)
	// Other field order, spaces, and the entry's bytes also in another field.
	line := `{ "entry" : ` + string(compact) + ` , "key": "k9", "copy": ` + string(compact) + `, "version": 1 }` + "\n"
	appendToJournal(t, path, []byte(line))

	require.NoError(t, c.Put("k2", testRecord("b", eval.Pass, 10)))
	reopened := openClean(t, path)
	for _, reader := range []*Cache{c, reopened} {
		got, ok := reader.Get("k9")
		if assert.True(t, ok) {
			assert.Equal(t, "by hand", got.Name)
		}
	}
	assert.Empty(t, c.Warnings())

	require.NoError(t, reopened.Close())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var compactFile, pretty bytes.Buffer
	require.NoError(t, json.Compact(&compactFile, data))
	require.NoError(t, json.Indent(&pretty, compactFile.Bytes(), "", "  "))
	pretty.WriteByte('\n')
	assert.Equal(t, pretty.String(), string(data), "the merged file is pretty-printed")
	assert.Equal(t, "by hand", fileEntries(t, path)["k9"]["name"])
}
