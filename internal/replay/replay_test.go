package replay

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

// writeRun writes a run directory of one case whose one call returned
// result, under the run id given.
func writeRun(t *testing.T, dir, id, result string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	sum := eval.Summary{RunID: id, Tools: &eval.ToolSummary{Servers: []eval.ServerTools{{Server: "s", ID: "s", Name: "s",
		Surface: []eval.Tool{{Name: "lookup", Parameters: json.RawMessage(`{"type":"object"}`)}}}}}}
	data, err := json.Marshal(sum)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, eval.SummaryFile), data, 0o644))
	rec := eval.Record{Name: "c", Model: "m", Status: eval.Pass,
		ToolCalls: []eval.ToolCall{{Name: "lookup", Server: "s", Arguments: `{"id":"1"}`, Result: result}}}
	data, err = json.Marshal(rec)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, eval.RecordsFile), append(data, '\n'), 0o644))
}

// What a replay is keyed by is what it replays: a copy of a run directory
// with other results, under the same run id, is told apart; the same
// records are the same.
func TestDigestIsOfTheRecords(t *testing.T) {
	root := t.TempDir()
	store, err := recordings.Open(filepath.Join(root, "recordings"))
	require.NoError(t, err)
	writeRun(t, filepath.Join(root, "real"), "20261128T000000.000Z-aaaaaa", "NUTM2G: 441457")
	writeRun(t, filepath.Join(root, "copy"), "20261128T000000.000Z-aaaaaa", "NUTM2G: 999999")
	writeRun(t, filepath.Join(root, "same"), "20261128T000000.000Z-aaaaaa", "NUTM2G: 441457")
	digest := map[string]string{}
	for _, name := range []string{"real", "copy", "same"} {
		src, err := Load(filepath.Join(root, name), store)
		require.NoError(t, err)
		assert.Equal(t, "20261128T000000.000Z-aaaaaa", src.ID)
		assert.Len(t, src.Digest, 32)
		digest[name] = src.Digest
	}
	assert.NotEqual(t, digest["real"], digest["copy"], "a poisoned copy has its own key")
	assert.Equal(t, digest["real"], digest["same"])
}

// A recorded call whose arguments were cut in its record cannot be
// matched: it is counted lost, not dropped unsaid.
func TestCutArgumentsCountedLost(t *testing.T) {
	root := t.TempDir()
	store, err := recordings.Open(filepath.Join(root, "recordings"))
	require.NoError(t, err)
	dir := filepath.Join(root, "run")
	writeRun(t, dir, "20261128T000000.000Z-bbbbbb", "ok")
	rec := eval.Record{Name: "d", Model: "m", Status: eval.Pass,
		ToolCalls: []eval.ToolCall{{Name: "lookup", Server: "s", Arguments: `{"id":"12345`, ArgumentsBytes: 300 << 10, Result: "ok"}}}
	data, err := json.Marshal(rec)
	require.NoError(t, err)
	f, err := os.OpenFile(filepath.Join(dir, eval.RecordsFile), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write(append(data, '\n'))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	src, err := Load(dir, store)
	require.NoError(t, err)
	assert.Equal(t, 1, src.Lost)
}

// The messages of a simulated user are replayed from the records: those
// of the same case run, else of the case's first run in the same repeat,
// else of its first run recorded; a case run whose user was done at once
// replays none.
func TestUsersReplayed(t *testing.T) {
	root := t.TempDir()
	store, err := recordings.Open(filepath.Join(root, "recordings"))
	require.NoError(t, err)
	dir := filepath.Join(root, "run")
	writeRun(t, dir, "20261128T000000.000Z-cccccc", "ok")
	var lines []byte
	for _, rec := range []eval.Record{
		{Name: "c", Model: "m", Repeat: 1, Turns: []eval.TurnResult{{Turn: 1, User: "Which gene?"}, {Turn: 2, User: "GRCh38", Simulated: true}, {Turn: 3, User: "thanks", Simulated: true}}},
		{Name: "c", Model: "m", Repeat: 2, Turns: []eval.TurnResult{{Turn: 1, User: "Which gene?"}}},
		{Name: "scripted", Model: "m", Turns: []eval.TurnResult{{Turn: 1, User: "first"}, {Turn: 2, User: "second"}}},
	} {
		data, err := json.Marshal(rec)
		require.NoError(t, err)
		lines = append(append(lines, data...), '\n')
	}
	f, err := os.OpenFile(filepath.Join(dir, eval.RecordsFile), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write(lines)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	src, err := Load(dir, store)
	require.NoError(t, err)
	for _, tt := range []struct {
		run  eval.CaseRun
		want []string
	}{
		{eval.CaseRun{Name: "c", Model: "m", Repeat: 1}, []string{"GRCh38", "thanks"}},
		{eval.CaseRun{Name: "c", Model: "m", Repeat: 2}, []string{}},
		{eval.CaseRun{Name: "c", Model: "other", Repeat: 1}, []string{"GRCh38", "thanks"}},
		{eval.CaseRun{Name: "c", Model: "other", Repeat: 5}, []string{}},
		{eval.CaseRun{Name: "scripted", Model: "m"}, []string{}},
		{eval.CaseRun{Name: "unknown"}, nil},
	} {
		assert.Equal(t, tt.want, src.Users(tt.run), "%v", tt.run)
	}
}
