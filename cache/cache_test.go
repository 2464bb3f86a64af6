package cache

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

func TestShouldStore(t *testing.T) {
	tests := []struct {
		name   string
		record eval.Record
		want   bool
	}{
		{"pass", eval.Record{Status: eval.Pass}, true},
		{"token limit", eval.Record{Status: eval.TokenLimit}, true},
		{"fail", eval.Record{Status: eval.Fail}, false},
		{"error", eval.Record{Status: eval.Error}, false},
		{"no status", eval.Record{}, false},
		{"reference pass", eval.Record{Status: eval.Pass, Reference: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, shouldStore(tt.record))
		})
	}
}

func TestPutThenGet(t *testing.T) {
	tests := []struct {
		status     eval.Status
		wantReused bool
	}{
		{eval.Pass, true},
		{eval.TokenLimit, true},
		{eval.Fail, false},
		{eval.Error, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.status), func(t *testing.T) {
			path := cachePath(t)
			c := openClean(t, path)
			stored := testRecord("gene lookup", tt.status, 100)
			require.NoError(t, c.Put("k1", stored))

			// The same Cache and a fresh one (a later run) agree.
			for _, reader := range []*Cache{c, openClean(t, path)} {
				got, ok := reader.Get("k1")
				require.Equal(t, tt.wantReused, ok)
				if !tt.wantReused {
					assert.Zero(t, got)
					continue
				}
				assert.True(t, got.Cached, "a record from the cache is marked cached")
				got.Cached = false
				assert.Equal(t, stored, got)
			}
		})
	}
}

func TestGetMissingKey(t *testing.T) {
	c := openClean(t, cachePath(t))
	_, ok := c.Get("absent")
	assert.False(t, ok)
}

func TestPutRejectsEmptyKey(t *testing.T) {
	c := openClean(t, cachePath(t))
	assert.Error(t, c.Put("", testRecord("a", eval.Pass, 10)))
}

func TestNotStoredOutcomeRemovesOlderEntry(t *testing.T) {
	tests := []struct {
		older, newer eval.Status
	}{
		{eval.Pass, eval.Fail},
		{eval.Pass, eval.Error},
		{eval.TokenLimit, eval.Fail},
		{eval.TokenLimit, eval.Error},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s then %s", tt.older, tt.newer), func(t *testing.T) {
			path := cachePath(t)
			c := openClean(t, path)
			require.NoError(t, c.Put("k1", testRecord("case", tt.older, 10)))
			require.NoError(t, c.Put("k2", testRecord("other", eval.Pass, 10)))
			require.Contains(t, diskEntries(t, path), "k1")

			require.NoError(t, c.Put("k1", testRecord("case", tt.newer, 10)))

			_, ok := c.Get("k1")
			assert.False(t, ok)
			lines := journalLines(t, path)
			require.Len(t, lines, 3)
			assert.Equal(t, "k1", lines[2].Key)
			assert.Nil(t, lines[2].Entry, "the removal is a journal line")
			entries := diskEntries(t, path)
			assert.NotContains(t, entries, "k1", "the cache must not keep a result the latest run contradicted")
			assert.Contains(t, entries, "k2")
			_, ok = openClean(t, path).Get("k1")
			assert.False(t, ok)

			require.NoError(t, c.Close())
			entries = fileEntries(t, path)
			assert.NotContains(t, entries, "k1", "the compacted file keeps the removal")
			assert.Contains(t, entries, "k2")
		})
	}
}

func TestRenamedCaseReusesEntry(t *testing.T) {
	path := cachePath(t)
	input := KeyInput{Question: "Which gene?", Expected: "TP53", Model: "m"}
	key, err := Key(input)
	require.NoError(t, err)
	require.NoError(t, openClean(t, path).Put(key, testRecord("old name", eval.Pass, 10)))

	// The case was renamed; its content, hence its key, is unchanged.
	sameKey, err := Key(input)
	require.NoError(t, err)
	got, ok := openClean(t, path).Get(sameKey)
	require.True(t, ok)
	assert.Equal(t, "old name", got.Name)
}

func TestSameQuestionDifferentExpectationsAreTwoEntries(t *testing.T) {
	path := cachePath(t)
	c := openClean(t, path)
	strict, err := Key(KeyInput{Question: "Which gene?", Expected: "TP53", Expectations: map[string]any{"tools": []string{"get_gene_by_symbol"}}})
	require.NoError(t, err)
	loose, err := Key(KeyInput{Question: "Which gene?", Expected: "TP53"})
	require.NoError(t, err)

	require.NoError(t, c.Put(strict, testRecord("strict", eval.Pass, 10)))
	require.NoError(t, c.Put(loose, testRecord("loose", eval.Fail, 10)))

	got, ok := c.Get(strict)
	require.True(t, ok)
	assert.Equal(t, "strict", got.Name)
	_, ok = c.Get(loose)
	assert.False(t, ok)
	assert.Len(t, diskEntries(t, path), 1)
}

func TestFileIsReadableJSON(t *testing.T) {
	path := cachePath(t)
	c := openClean(t, path)
	before := time.Now().UTC().Add(-time.Second)
	stored := testRecord("gene lookup", eval.Pass, 50)
	stored.Cached = true // a reused record stored again is stored as not cached
	require.NoError(t, c.Put("b-key", stored))
	require.NoError(t, c.Put("a-key", testRecord("token case", eval.TokenLimit, 50)))
	require.NoError(t, c.Close())
	requireNoJournal(t, path)

	data, err := os.ReadFile(path)
	require.NoError(t, err)

	// The file is exactly the standard two-space pretty-printing of itself.
	var compact, pretty bytes.Buffer
	require.NoError(t, json.Compact(&compact, data))
	require.NoError(t, json.Indent(&pretty, compact.Bytes(), "", "  "))
	pretty.WriteByte('\n')
	assert.Equal(t, pretty.String(), string(data))
	assert.Less(t, strings.Index(string(data), `"a-key"`), strings.Index(string(data), `"b-key"`), "entries are sorted by key")

	entries := fileEntries(t, path)
	require.Len(t, entries, 2)
	entry := entries["b-key"]
	assert.Equal(t, "gene lookup", entry["name"])
	storedAt, err := time.Parse(time.RFC3339Nano, entry["stored_at"].(string))
	require.NoError(t, err)
	assert.True(t, storedAt.After(before), "stored_at %s is the time of the Put", storedAt)
	record := entry["record"].(map[string]any)
	assert.Equal(t, "pass", record["status"])
	assert.Equal(t, false, record["cached"])
	assert.Equal(t, "", record["response"], "the large texts are in the recordings beside the cache")
	assert.Nil(t, record["conversation"])
	assert.Regexp(t, `^[0-9a-f]{64}$`, entry["record_fingerprint"])
	reopened := openClean(t, path)
	got, ok := reopened.Get("b-key")
	require.True(t, ok)
	assert.Equal(t, "The Entrez id is 7157.", got.Response)
	assert.Len(t, got.Conversation, 3)
}

func TestOtherFormatVersionIsSetAside(t *testing.T) {
	passEntry := `{"name": "n", "stored_at": "2026-01-01T00:00:00Z", "record": {"name": "n", "status": "pass"}}`
	tests := []struct {
		name    string
		content string
		tag     string
	}{
		{"newer version", `{"version": 3, "entries": {"k1": ` + passEntry + `}}`, "v3"},
		{"version zero", `{"version": 0, "entries": {"k1": ` + passEntry + `}}`, "v0"},
		{"upstream python cache", `{"What is TP53?||7157": {"question": "What is TP53?", "classification": "yes"}}`, "v0"},
		{"null document", `null`, "v0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := cachePath(t)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, []byte(tt.content), 0o644))

			c, err := Open(path)
			require.NoError(t, err)

			backup := onlyBackup(t, path, tt.tag)
			require.Len(t, c.Warnings(), 1)
			assert.Contains(t, c.Warnings()[0], backup, "the warning names the backup")
			kept, err := os.ReadFile(backup)
			require.NoError(t, err)
			assert.Equal(t, tt.content, string(kept), "the old file is kept unchanged")
			_, err = os.Stat(path)
			assert.ErrorIs(t, err, os.ErrNotExist)

			_, ok := c.Get("k1")
			assert.False(t, ok, "entries of another version are not read")
			require.NoError(t, c.Put("k2", testRecord("new", eval.Pass, 10)))
			_, ok = openClean(t, path).Get("k2")
			assert.True(t, ok)
		})
	}
}

func TestCorruptFileIsSetAside(t *testing.T) {
	validFile := func(t *testing.T, path string) []byte {
		c := openClean(t, path)
		require.NoError(t, c.Put("k1", testRecord("a", eval.Pass, 10)))
		require.NoError(t, c.Close())
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		return data
	}
	tests := []struct {
		name    string
		prepare func(t *testing.T, path string)
	}{
		{"garbage bytes", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte{0xff, 0x00, 0x13, 'x', 0x80}, 0o644))
		}},
		{"empty file", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, nil, 0o644))
		}},
		{"truncated JSON", func(t *testing.T, path string) {
			data := validFile(t, path)
			require.NoError(t, os.WriteFile(path, data[:len(data)/2], 0o644))
		}},
		{"entries of the wrong type", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte(`{"version": 1, "entries": [1, 2]}`), 0o644))
		}},
		{"version of the wrong type", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte(`{"version": "1", "entries": {}}`), 0o644))
		}},
		{"directory in its place", func(t *testing.T, path string) {
			require.NoError(t, os.Mkdir(path, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(path, "inside"), []byte("x"), 0o644))
		}},
		{"unreadable file", func(t *testing.T, path string) {
			if os.Geteuid() == 0 {
				t.Skip("root reads files without read permission")
			}
			validFile(t, path)
			require.NoError(t, os.Chmod(path, 0))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := cachePath(t)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			tt.prepare(t, path)
			before, _ := os.ReadFile(path)

			c, err := Open(path)
			require.NoError(t, err)

			backup := onlyBackup(t, path, "corrupt")
			require.Len(t, c.Warnings(), 1)
			assert.Contains(t, c.Warnings()[0], backup, "the warning names the backup")
			after, _ := os.ReadFile(backup)
			assert.Equal(t, before, after, "the corrupt file is kept unchanged")

			_, ok := c.Get("k1")
			assert.False(t, ok, "the cache starts empty")
			require.NoError(t, c.Put("k2", testRecord("b", eval.Pass, 10)))
			_, ok = openClean(t, path).Get("k2")
			assert.True(t, ok, "the cache works after the corrupt file is set aside")
		})
	}
}

func TestFileCorruptedDuringRunIsSetAside(t *testing.T) {
	path := cachePath(t)
	c := openClean(t, path)
	require.NoError(t, c.Put("k1", testRecord("a", eval.Pass, 10)))
	require.NoError(t, os.WriteFile(path, []byte("{not json"), 0o644))

	require.NoError(t, c.Put("k2", testRecord("b", eval.Pass, 10)))

	backup := onlyBackup(t, path, "corrupt")
	require.Len(t, c.Warnings(), 1)
	assert.Contains(t, c.Warnings()[0], backup)
	require.NoError(t, c.Close())
	entries := fileEntries(t, path)
	assert.Contains(t, entries, "k1", "the journal kept the entry stored before the file broke")
	assert.Contains(t, entries, "k2")
}

func TestUnreadableEntryIsAMissAndKept(t *testing.T) {
	path := cachePath(t)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	good := testRecord("good", eval.Pass, 10)
	goodEntry, err := json.Marshal(entry{Name: "good", Record: good})
	require.NoError(t, err)
	content := `{"version": 1, "entries": {"bad": {"name": "bad", "record": "not a record"}, "good": ` + string(goodEntry) + `}}`
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))

	c := openClean(t, path)
	_, ok := c.Get("bad")
	assert.False(t, ok)
	require.Len(t, c.Warnings(), 1)
	assert.Contains(t, c.Warnings()[0], "bad")
	got, ok := c.Get("good")
	require.True(t, ok)
	assert.Equal(t, "good", got.Name)

	require.NoError(t, c.Put("new", testRecord("new", eval.Pass, 10)))
	require.NoError(t, c.Close())
	entries := fileEntries(t, path)
	assert.Equal(t, "not a record", entries["bad"]["record"], "an entry this version cannot read is written back unchanged")
	assert.Contains(t, entries, "good")
	assert.Contains(t, entries, "new")
}

func TestClear(t *testing.T) {
	path := cachePath(t)
	c := openClean(t, path)
	require.NoError(t, c.Put("k1", testRecord("a", eval.Pass, 10)))

	require.NoError(t, c.Close())
	c = openClean(t, path)
	require.NoError(t, c.Put("k2", testRecord("b", eval.Pass, 10)))
	require.FileExists(t, path)
	require.FileExists(t, path+".journal")

	require.NoError(t, c.Clear())

	_, err := os.Stat(path)
	assert.ErrorIs(t, err, os.ErrNotExist)
	requireNoJournal(t, path)
	for _, key := range []string{"k1", "k2"} {
		_, ok := c.Get(key)
		assert.False(t, ok, key)
	}
	require.NoError(t, c.Clear(), "clearing missing files is fine")

	require.NoError(t, c.Put("k3", testRecord("c", eval.Pass, 10)))
	entries := diskEntries(t, path)
	assert.NotContains(t, entries, "k1")
	assert.NotContains(t, entries, "k2")
	assert.Contains(t, entries, "k3")
}

func TestClearByAnotherCacheIsNotUndone(t *testing.T) {
	path := cachePath(t)
	first := openClean(t, path)
	require.NoError(t, first.Put("k1", testRecord("a", eval.Pass, 10)))
	second := openClean(t, path)

	require.NoError(t, second.Clear())
	// The new journal grows past where the first Cache read the old one.
	require.NoError(t, second.Put("k3", testRecord("c", eval.Pass, 100)))
	require.NoError(t, first.Put("k2", testRecord("b", eval.Pass, 10)))

	entries := diskEntries(t, path)
	assert.NotContains(t, entries, "k1", "a cleared entry must not come back")
	assert.Contains(t, entries, "k2")
	assert.Contains(t, entries, "k3")
	_, ok := first.Get("k1")
	assert.False(t, ok, "the first Cache learns of the Clear on its next append")
	_, ok = first.Get("k3")
	assert.True(t, ok, "and reads the new journal from its start")
	assert.Empty(t, first.Warnings())

	require.NoError(t, first.Close())
	entries = fileEntries(t, path)
	assert.NotContains(t, entries, "k1", "nor at compaction")
	assert.Contains(t, entries, "k2")
	assert.Contains(t, entries, "k3")
}

func TestCachesSharingAFileMerge(t *testing.T) {
	path := cachePath(t)
	first := openClean(t, path)
	second := openClean(t, path)

	require.NoError(t, first.Put("k1", testRecord("a", eval.Pass, 10)))
	require.NoError(t, second.Put("k2", testRecord("b", eval.Pass, 10)))
	entries := diskEntries(t, path)
	assert.Contains(t, entries, "k1", "the second writer keeps the first one's entry")
	assert.Contains(t, entries, "k2")

	// The second run failed k1: the pass the first run stored must go, and
	// the first Cache learns it on its next write.
	require.NoError(t, second.Put("k1", testRecord("a", eval.Fail, 10)))
	require.NoError(t, first.Put("k3", testRecord("c", eval.Pass, 10)))
	entries = diskEntries(t, path)
	assert.NotContains(t, entries, "k1")
	assert.Contains(t, entries, "k2")
	assert.Contains(t, entries, "k3")
	_, ok := first.Get("k1")
	assert.False(t, ok)
	_, ok = first.Get("k2")
	assert.True(t, ok)

	// Both close; the second finds the journal merged by the first.
	require.NoError(t, first.Close())
	require.NoError(t, second.Close())
	requireNoJournal(t, path)
	entries = fileEntries(t, path)
	assert.NotContains(t, entries, "k1")
	assert.Contains(t, entries, "k2")
	assert.Contains(t, entries, "k3")
}

func TestEditKeepingTheHeaderIsMerged(t *testing.T) {
	path := cachePath(t)
	first := openClean(t, path)
	require.NoError(t, first.Put("k1", testRecord("a", eval.Pass, 10)))
	require.NoError(t, first.Close())
	c := openClean(t, path)

	// A person adds an entry by hand; the header (and its revision) stays.
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	added, err := encodeEntry(entry{Name: "manual", Record: testRecord("manual", eval.Pass, 10)})
	require.NoError(t, err)
	edited := strings.Replace(string(data), `"entries": {`, `"entries": {`+"\n    \"k0\": "+string(added)+",", 1)
	require.NoError(t, os.WriteFile(path, []byte(edited), 0o644))

	require.NoError(t, c.Put("k2", testRecord("b", eval.Pass, 10)))
	_, ok := c.Get("k0")
	assert.True(t, ok, "the edit is read again at the next append")
	require.NoError(t, c.Close())
	entries := fileEntries(t, path)
	assert.Contains(t, entries, "k0")
	assert.Contains(t, entries, "k1")
	assert.Contains(t, entries, "k2")
}

func TestManyGoroutines(t *testing.T) {
	path := cachePath(t)
	c := openClean(t, path)
	const writers = 100
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			key := fmt.Sprintf("key-%03d", i)
			status := eval.Pass
			if i%10 == 0 {
				status = eval.Fail
			}
			assert.NoError(t, c.Put(key, testRecord(key, status, 500)))
			_, ok := c.Get(key)
			assert.Equal(t, status == eval.Pass, ok)
		})
	}
	wg.Wait()
	assert.Len(t, journalLines(t, path), writers, "one journal line a Put")
	require.NoError(t, c.Close())

	entries := fileEntries(t, path)
	reopened := openClean(t, path)
	for i := range writers {
		key := fmt.Sprintf("key-%03d", i)
		_, ok := reopened.Get(key)
		if i%10 == 0 {
			assert.NotContains(t, entries, key)
			assert.False(t, ok, key)
		} else {
			assert.Contains(t, entries, key)
			assert.True(t, ok, key)
		}
	}
}

func TestOpenCreatesDirectoryAndRemovesStaleTemporaryFiles(t *testing.T) {
	path := cachePath(t)
	c := openClean(t, path)
	require.NoError(t, c.Put("k1", testRecord("a", eval.Pass, 10)))
	stale := filepath.Join(filepath.Dir(path), tempPrefix(filepath.Base(path))+"12345")
	require.NoError(t, os.WriteFile(stale, []byte("half a write"), 0o644))

	openClean(t, path)

	_, err := os.Stat(stale)
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.Contains(t, diskEntries(t, path), "k1")
}

func TestOpenFailsWhenDirectoryCannotBeCreated(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o644))
	_, err := Open(filepath.Join(blocker, "cache.json"))
	assert.Error(t, err)
}

func TestFailedWriteIsCarriedByTheNextPut(t *testing.T) {
	path := cachePath(t)
	c := openClean(t, path)
	require.NoError(t, c.Put("k1", testRecord("a", eval.Pass, 10)))

	// A directory where the lock file belongs makes every write fail.
	lockPath := path + ".lock"
	require.NoError(t, os.Remove(lockPath))
	require.NoError(t, os.Mkdir(lockPath, 0o755))
	assert.Error(t, c.Put("k2", testRecord("b", eval.Pass, 10)))
	assert.Error(t, c.Put("k1", testRecord("a", eval.Fail, 10)))
	entries := diskEntries(t, path)
	require.Contains(t, entries, "k1")
	require.NotContains(t, entries, "k2")

	require.NoError(t, os.Remove(lockPath))
	require.NoError(t, c.Put("k3", testRecord("c", eval.Pass, 10)))
	entries = diskEntries(t, path)
	assert.NotContains(t, entries, "k1", "the failed removal is written now")
	assert.Contains(t, entries, "k2", "the failed store is written now")
	assert.Contains(t, entries, "k3")
}

func TestGetAnswersFromFilesAnotherCacheReplaced(t *testing.T) {
	path := cachePath(t)
	first := openClean(t, path)
	require.NoError(t, first.Put("k1", testRecord("a", eval.Pass, 10)))
	require.NoError(t, first.Close())
	first = openClean(t, path) // k1 in the cache file
	require.NoError(t, first.Put("k2", testRecord("b", eval.Pass, 10)))

	// Another run removes k1 and compacts: the file first read is
	// replaced, the journal first written is deleted.
	second := openClean(t, path)
	require.NoError(t, second.Put("k1", testRecord("a", eval.Fail, 10)))
	require.NoError(t, second.Close())
	requireNoJournal(t, path)

	for key, name := range map[string]string{"k1": "a", "k2": "b"} {
		got, ok := first.Get(key)
		if assert.True(t, ok, "%s: the first Cache answers from the files it read", key) {
			assert.Equal(t, name, got.Name)
		}
	}
	assert.Empty(t, first.Warnings())

	require.NoError(t, first.Put("k3", testRecord("c", eval.Pass, 10)))
	_, ok := first.Get("k1")
	assert.False(t, ok, "the next Put reads the new file")
	for _, key := range []string{"k2", "k3"} {
		_, ok := first.Get(key)
		assert.True(t, ok, key)
	}
}

func TestEntryEditedInPlaceIsAMissUntilReadAgain(t *testing.T) {
	path := cachePath(t)
	first := openClean(t, path)
	require.NoError(t, first.Put("k1", testRecord("alpha", eval.Pass, 10)))
	require.NoError(t, first.Close())
	c, err := Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.Close()) })

	// A person renames the case in the file, keeping every offset.
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	edited := bytes.ReplaceAll(data, []byte("alpha"), []byte("omega"))
	require.NotEqual(t, data, edited)
	require.NoError(t, os.WriteFile(path, edited, 0o644))

	_, ok := c.Get("k1")
	assert.False(t, ok, "the entry changed since it was read")
	require.Len(t, c.Warnings(), 1)
	assert.Contains(t, c.Warnings()[0], "k1")

	require.NoError(t, c.Put("k2", testRecord("b", eval.Pass, 10)))
	got, ok := c.Get("k1")
	require.True(t, ok, "the next Put reads the file again")
	assert.Equal(t, "omega", got.Name)
}
