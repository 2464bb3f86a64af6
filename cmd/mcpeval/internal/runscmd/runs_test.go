package runscmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/cache"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/cmdtest"
	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/recordings"
	"github.com/mcpeval/mcpeval/internal/runs"
)

func TestHistoryAndPrune(t *testing.T) {
	parent := t.TempDir()
	names := cmdtest.CaseNames(4)
	for i, id := range []string{"20261101T000000Z-aaaaaa", "20261102T000000Z-bbbbbb", "20261103T000000Z-cccccc"} {
		cmdtest.WriteRun(t, parent, id, names, map[string]bool{"c00": i > 0, "c01": i > 1}, 1)
	}
	_, err := runs.Create(parent, "20261104T000000Z-dddddd") // a run that never finished
	require.NoError(t, err)

	for _, args := range [][]string{{"-out", parent}, {"history", "-out", parent}} {
		var stdout bytes.Buffer
		require.NoError(t, cmdtest.Run(Cmd, args, nil, &stdout, nil, nil), "%v", args)
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		require.Len(t, lines, 5, "%v", args)
		assert.Regexp(t, `^20261104T000000Z-dddddd\s+\(did not finish\)`, lines[1], "newest first")
		assert.Regexp(t, `^20261103T000000Z-cccccc\s+.*\sm\s+4\s+50\.0%`, lines[2])
		assert.Regexp(t, `^20261101T000000Z-aaaaaa\s+.*\s100\.0%`, lines[4])
	}

	var stdout bytes.Buffer
	require.NoError(t, cmdtest.Run(Cmd, []string{"prune", "-out", parent, "-keep", "2", "-cache", filepath.Join(parent, "cache.json")}, nil, &stdout, nil, nil))
	assert.Equal(t, 2, strings.Count(stdout.String(), "removed "))
	left, err := runs.List(parent)
	require.NoError(t, err)
	assert.Len(t, left, 2)
}

// The output directory comes from EVAL_OUT when -out is not given.
func TestHistoryOfEvalOut(t *testing.T) {
	parent := t.TempDir()
	cmdtest.WriteRun(t, parent, "20261101T000000Z-aaaaaa", cmdtest.CaseNames(2), nil, 1)
	var stdout bytes.Buffer
	require.NoError(t, cmdtest.Run(Cmd, nil, nil, &stdout, nil, map[string]string{"EVAL_OUT": parent, "EVAL_DOTENV": "off"}))
	assert.Regexp(t, `(?m)^20261101T000000Z-aaaaaa\s+.*\s100\.0%`, stdout.String())

	stdout.Reset()
	require.NoError(t, cmdtest.Run(Cmd, []string{"-out", t.TempDir()}, nil, &stdout, nil, nil))
	assert.Contains(t, stdout.String(), "no runs in ")
}

func TestRunsRefuses(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"prune", "-keep", "-3"}, "must not be negative"},
		{[]string{"prune", "10"}, `unexpected argument "10"`},
		{[]string{"clean"}, `unknown command "clean": it has history, prune`},
		{[]string{"history", "-bogus"}, "flag provided but not defined: -bogus"},
	}
	for _, tt := range tests {
		err := cmdtest.Run(Cmd, append(tt.args, "-out", t.TempDir()), nil, nil, nil, nil)
		require.ErrorContains(t, err, tt.want, "%v", tt.args)
		assert.Equal(t, 2, base.ExitStatus(err), "%v: a usage error", tt.args)
	}
}

// Pruning runs prunes the recorded tool results only they named: those of
// the kept runs, and of the cache, stay.
func TestPruneRecordings(t *testing.T) {
	parent := t.TempDir()
	cache := filepath.Join(parent, "cache.json")
	store, err := recordings.Open(recordings.DirBeside(cache))
	require.NoError(t, err)
	require.NoError(t, store.Register(parent))
	var fps []string
	for _, text := range []string{"result of the oldest run", "result of the middle run", "result of the newest run", "result in the cache"} {
		fp, err := store.Put(text)
		require.NoError(t, err)
		fps = append(fps, fp)
	}
	require.NoError(t, store.Close())
	for i, id := range []string{"20261101T000000Z-aaaaaa", "20261102T000000Z-bbbbbb", "20261103T000000Z-cccccc"} {
		dir := cmdtest.WriteRun(t, parent, id, cmdtest.CaseNames(1), nil, 1)
		rec := fmt.Sprintf(`{"name":"c00","status":"pass","tool_calls":[{"name":"get","result_fingerprint":%q}]}`+"\n", fps[i])
		require.NoError(t, os.WriteFile(filepath.Join(dir, eval.RecordsFile), []byte(rec), 0o644))
	}
	require.NoError(t, os.WriteFile(cache, []byte(fmt.Sprintf(`{"k":{"tool_calls":[{"result_fingerprint":%q}]}}`, fps[3])), 0o644))

	var stdout bytes.Buffer
	require.NoError(t, cmdtest.Run(Cmd, []string{"prune", "-out", parent, "-keep", "2", "-cache", cache}, nil, &stdout, nil, nil))
	assert.Contains(t, stdout.String(), "recordings: 3 results kept, 1 removed")
	store, err = recordings.Open(recordings.DirBeside(cache))
	require.NoError(t, err)
	defer store.Close()
	for i, want := range []bool{false, true, true, true} {
		_, ok, err := store.Get(fps[i])
		require.NoError(t, err)
		assert.Equal(t, want, ok, "result %d", i)
	}
}

// A replay and a re-judged run say what they were made from, and text
// read from a run directory reaches the terminal without its control
// characters.
func TestHistorySaysWhatARunWasMadeFrom(t *testing.T) {
	parent := t.TempDir()
	ids := []string{"20261101T000000Z-aaaaaa", "20261102T000000Z-bbbbbb", "20261103T000000Z-cccccc"}
	for _, id := range ids {
		cmdtest.WriteRun(t, parent, id, cmdtest.CaseNames(2), nil, 1)
	}
	edit := func(id string, change func(*eval.Summary)) {
		path := filepath.Join(parent, runs.Dir, id, eval.SummaryFile)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		var s eval.Summary
		require.NoError(t, json.Unmarshal(b, &s))
		change(&s)
		b, err = json.Marshal(s)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, b, 0o644))
	}
	edit(ids[1], func(s *eval.Summary) { s.Replay = &eval.ReplayInfo{Source: ids[0]} })
	edit(ids[2], func(s *eval.Summary) {
		s.Rejudged = &eval.RejudgedInfo{Source: ids[1] + "\x1b[2J"}
		s.Model = "evil\x1b]0;title\x07model"
	})

	var stdout bytes.Buffer
	require.NoError(t, cmdtest.Run(Cmd, []string{"-out", parent}, nil, &stdout, nil, nil))
	out := stdout.String()
	assert.Regexp(t, `(?m)^20261102T000000Z-bbbbbb\s.*\sreplay of 20261101T000000Z-aaaaaa$`, out)
	assert.Regexp(t, `(?m)^20261103T000000Z-cccccc\s.*evil\S+model\s.*\sre-judged from 20261102T000000Z-bbbbbb\S+$`, out)
	assert.Regexp(t, `(?m)^20261101T000000Z-aaaaaa\s.*\$0\.0000\s*$`, out, "a run of its own says nothing")
	assert.NotContains(t, out, "\x1b")
	assert.NotContains(t, out, "\x07")
}

// A run of many arms names a few and counts them, so that its row stays
// short; a run made with its id given (EVAL_RUN_ID) is listed by when it
// started, not by its id.
func TestHistoryRowsOfManyArmsAndGivenIDs(t *testing.T) {
	parent := t.TempDir()
	cmdtest.WriteRun(t, parent, "20261101T000000Z-aaaaaa", cmdtest.CaseNames(2), nil, 1)
	given := cmdtest.WriteRun(t, parent, "20200101T000000Z-c1c1c1", cmdtest.CaseNames(2), nil, 1)
	cmdtest.WriteRun(t, parent, "20261102T000000Z-bbbbbb", cmdtest.CaseNames(2), nil, 1)
	edit := func(dir string, change func(*eval.Summary)) {
		path := filepath.Join(dir, eval.SummaryFile)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		var s eval.Summary
		require.NoError(t, json.Unmarshal(b, &s))
		change(&s)
		b, err = json.Marshal(s)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, b, 0o644))
	}
	edit(given, func(s *eval.Summary) {
		s.Started = time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC) // run last, its id given by hand
		for i := range 39 {
			s.Models = append(s.Models, eval.ModelResult{Model: fmt.Sprintf("arm-%02d", i), Arm: &eval.ArmInfo{Model: "m"}})
		}
		s.Arms = s.Models
	})
	tests := []struct {
		name  string
		names int
		want  string
	}{
		{"two models", 2, "a,b"},
		{"three models", 3, "a,b,c"},
		{"four models", 4, "a,b,c,… (4 models)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s eval.Summary
			for _, n := range []string{"a", "b", "c", "d"}[:tt.names] {
				s.Models = append(s.Models, eval.ModelResult{Model: n})
			}
			assert.Equal(t, tt.want, modelColumn(s))
		})
	}

	var stdout bytes.Buffer
	require.NoError(t, cmdtest.Run(Cmd, []string{"-out", parent}, nil, &stdout, nil, nil))
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	require.Len(t, lines, 4)
	assert.Regexp(t, `^20200101T000000Z-c1c1c1\s+2026-11-03 00:00\s+arm-00,arm-01,arm-02,… \(39 arms\)\s+2\s`, lines[1], "the last to start first")
	assert.Regexp(t, `^20261102T000000Z-bbbbbb\s`, lines[2])
	assert.Regexp(t, `^20261101T000000Z-aaaaaa\s`, lines[3])
	for _, l := range lines {
		assert.Less(t, len(l), 160, "a short row: %s", l)
	}
}

// The whole records of the cache's entries, kept in the recordings beside
// it, stay whatever runs are pruned: the cache serves them whole after.
func TestPruneKeepsTheCachesWholeRecords(t *testing.T) {
	parent := t.TempDir()
	path := filepath.Join(parent, "cache.json")
	c, err := cache.Open(path)
	require.NoError(t, err)
	rec := eval.Record{Name: "c00", Status: eval.Pass, Question: "q?", Response: "the answer",
		Conversation: []eval.Message{{Role: "assistant", Content: "the answer"}}}
	require.NoError(t, c.Put("k", rec))
	require.NoError(t, c.Close())
	store, err := recordings.Open(recordings.DirBeside(path))
	require.NoError(t, err)
	require.NoError(t, store.Register(parent))
	_, err = store.Put("a result no run names")
	require.NoError(t, err)
	require.NoError(t, store.Close())
	cmdtest.WriteRun(t, parent, "20261101T000000Z-aaaaaa", cmdtest.CaseNames(1), nil, 1)

	var stdout bytes.Buffer
	require.NoError(t, cmdtest.Run(Cmd, []string{"prune", "-out", parent, "-keep", "0", "-cache", path}, nil, &stdout, nil, nil))
	assert.Contains(t, stdout.String(), "recordings: 1 result kept, 1 removed")
	c, err = cache.Open(path)
	require.NoError(t, err)
	defer c.Close()
	got, ok := c.Get("k")
	require.True(t, ok)
	assert.Equal(t, "the answer", got.Response)
	assert.Len(t, got.Conversation, 1)
	assert.Empty(t, c.Warnings())
}
