package cache

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIndexFileReadsWhatUnmarshalReads streams documents through
// indexFile and requires the outcome json.Unmarshal gives for the same
// bytes: the same error or not, version, revision and entries.
func TestIndexFileReadsWhatUnmarshalReads(t *testing.T) {
	documents := map[string]string{
		"written by this package": "{\n  \"version\": 1,\n  \"revision\": \"ab\",\n  \"entries\": {\n    \"k1\": {\n      \"name\": \"a\"\n    },\n    \"k2\": {\"name\": \"b\"}\n  }\n}\n",
		"compact":                 `{"version":1,"entries":{"k1":{"name":"a"},"k2":[1,2],"k3":"text","k4":12,"k5":null,"k6":true}}`,
		"fields in another order": `{"entries": {"k1": {"name": "a"}}, "revision": "r", "version": 1}`,
		"field names in capitals": `{"VERSION": 1, "Revision": "r", "Entries": {"k1": {}}}`,
		"unknown fields":          `{"version": 1, "extra": {"entries": {"no": 1}}, "more": [1, {"a": "}"}], "entries": {"k1": {}}}`,
		"later fields win":        `{"version": 2, "version": 1, "revision": "a", "revision": "b"}`,
		"entries merged":          `{"version": 1, "entries": {"k1": {"n": 1}, "k2": {}}, "entries": {"k1": {"n": 2}}}`,
		"entries emptied by null": `{"version": 1, "entries": {"k1": {}}, "entries": null}`,
		"duplicate entry key":     `{"version": 1, "entries": {"k1": {"n": 1}, "k1": {"n": 2}}}`,
		"escaped key":             `{"version": 1, "entries": {"k\u00e9\"y": {"n": 1}}}`,
		"null version":            `{"version": null, "entries": {}}`,
		"null document":           `null`,
		"empty object":            ` {} `,
		"no entries":              `{"version": 1}`,
		"entries an array":        `{"version": 1, "entries": [1, 2]}`,
		"entries a string":        `{"version": 1, "entries": "k1"}`,
		"version a string":        `{"version": "1", "entries": {}}`,
		"version a fraction":      `{"version": 1.5, "entries": {}}`,
		"revision a number":       `{"version": 1, "revision": 7}`,
		"array document":          `[{"version": 1}]`,
		"string document":         `"cache"`,
		"empty file":              ``,
		"only spaces":             "  \n",
		"truncated":               `{"version": 1, "entries": {"k1": {"name": "a"`,
		"truncated after entries": `{"version": 1, "entries": {"k1": {}}`,
		"trailing garbage":        `{"version": 1, "entries": {}} x`,
		"second document":         `{"version": 1, "entries": {}} {}`,
		"null then garbage":       `null x`,
		"garbage":                 "\xff\x00\x13x\x80",
		"trailing comma":          `{"version": 1, "entries": {"k1": {},}}`,
		"missing colon":           `{"version" 1}`,
	}
	for name, doc := range documents {
		t.Run(name, func(t *testing.T) {
			var want struct {
				Version  *int                       `json:"version"`
				Revision string                     `json:"revision"`
				Entries  map[string]json.RawMessage `json:"entries"`
			}
			wantErr := json.Unmarshal([]byte(doc), &want)

			path := filepath.Join(t.TempDir(), "cache.json")
			require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			got, err := indexFile(f)

			if wantErr != nil {
				assert.Error(t, err, "json.Unmarshal: %v", wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, want.Version, got.version)
			assert.Equal(t, want.Revision, got.revision)
			entries := map[string]string{}
			for key, at := range got.entries {
				raw, err := at.read(nil)
				require.NoError(t, err)
				entries[key] = string(raw)
			}
			wantEntries := map[string]string{}
			for key, raw := range want.Entries {
				wantEntries[key] = string(raw)
			}
			assert.Equal(t, wantEntries, entries)
		})
	}
}

func TestLocationNoticesAFileEditedInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"version": 1, "entries": {"k1": {"name": "a"}}}`), 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	idx, err := indexFile(f)
	require.NoError(t, err)

	require.NoError(t, os.WriteFile(path, []byte(`{"version": 1, "entries": {"k1": {"name": "b"}}}`), 0o644))
	_, err = idx.entries["k1"].read(nil)
	assert.ErrorContains(t, err, "changed in place")
}
