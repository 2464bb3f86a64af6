package reportcmd

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/cmdtest"
	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/baseline"
	"github.com/mcpeval/mcpeval/internal/files"
)

// The re-runs on the baseline's tool results weigh a flip's cause, and say
// how sure they are when they disagree.
func TestWeigh(t *testing.T) {
	for _, tc := range []struct {
		name           string
		cause          string
		runs, asBase   int
		wantCause      string
		wantSure       float64
		wantWhyMention string
	}{
		{"the model followed the data", eval.CauseModel, 3, 3, eval.CauseData, 1, "the data moved and the model followed"},
		{"the data, mostly", eval.CauseData, 3, 2, eval.CauseData, 2.0 / 3, ""},
		{"the model changed on the same data", eval.CauseData, 4, 1, eval.CauseModel, 0.75, "the model changed on the same data"},
		{"the surface's flip is the model's", eval.CauseSurface, 2, 0, eval.CauseModel, 1, "the model changed on the same data"},
		{"the model, confirmed", eval.CauseModel, 5, 0, eval.CauseModel, 1, ""},
		{"a tie keeps the cause", eval.CauseData, 2, 1, eval.CauseData, 0.5, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &baseline.Attribution{Cause: tc.cause, Why: "evidence"}
			weigh(a, &baseline.ReplayCheck{Run: "r", Runs: tc.runs, AsBaseline: tc.asBase})
			assert.Equal(t, tc.wantCause, a.Cause)
			require.NotNil(t, a.Replay)
			assert.InDelta(t, tc.wantSure, a.Replay.Sure, 1e-9)
			assert.Contains(t, a.Why, tc.wantWhyMention)
		})
	}
}

// A report written later without -attribute, of the same run against the
// same baseline, keeps what the re-runs on the baseline's tool results
// found; against another baseline it writes its own comparison.
func TestReportKeepsAttribution(t *testing.T) {
	names := cmdtest.CaseNames(4)
	parent := t.TempDir()
	cmdtest.WriteRun(t, parent, "20261101T000000Z-aaaaaa", names, nil, 1)
	cmdtest.WriteRun(t, parent, "20261101T120000Z-cccccc", names, nil, 1)
	cur := cmdtest.WriteRun(t, parent, "20261102T000000Z-bbbbbb", names, map[string]bool{names[0]: true}, 1)
	path := filepath.Join(cur, "compare.json")
	read := func() baseline.ComparisonJSON {
		var c baseline.ComparisonJSON
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &c))
		return c
	}
	report1 := func(baseline string) string {
		var stdout bytes.Buffer
		require.NoError(t, cmdtest.Run(Cmd, []string{"-out", parent, "-run", cur, "-baseline", baseline}, nil, &stdout, &bytes.Buffer{}, nil))
		return stdout.String()
	}

	report1("20261101T000000Z-aaaaaa")
	c := read()
	require.Len(t, c.Flips, 1)
	require.Equal(t, eval.CauseModel, c.Flips[0].Cause)
	require.Nil(t, c.Flips[0].Replay)
	// What -attribute would have written: the re-runs on the baseline's
	// tool results did as the baseline, so the data moved the model.
	c.Flips[0].Replay = &baseline.ReplayCheck{Run: "20261102T010000Z-dddddd", Runs: 3, AsBaseline: 3, Sure: 1}
	c.Flips[0].Cause, c.Flips[0].Why = eval.CauseData, c.Flips[0].Why+"; the data moved"
	require.NoError(t, files.WriteJSON(path, c))

	out := report1("20261101T000000Z-aaaaaa")
	assert.Contains(t, out, "attribution: kept the re-runs of 1 flipped case on the baseline's tool results (run 20261102T010000Z-dddddd) that an earlier -attribute made for this comparison")
	assert.Regexp(t, `(?m)^  regression \S+: data: .*; on the baseline's tool results \(run 20261102T010000Z-dddddd\) 3 of 3 runs did as the baseline \(100% sure\)$`, out)
	kept := read()
	require.Len(t, kept.Flips, 1)
	assert.Equal(t, eval.CauseData, kept.Flips[0].Cause)
	require.NotNil(t, kept.Flips[0].Replay)
	assert.Equal(t, 3, kept.Flips[0].Replay.AsBaseline)
	html, err := os.ReadFile(filepath.Join(cur, "compare.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), "3 of 3 runs did as the baseline")

	// Another baseline is another comparison: nothing of the earlier one
	// is kept.
	out = report1("20261101T120000Z-cccccc")
	assert.NotContains(t, out, "kept the re-runs")
	other := read()
	require.Len(t, other.Flips, 1)
	assert.Nil(t, other.Flips[0].Replay)
	assert.Equal(t, eval.CauseModel, other.Flips[0].Cause)
}

// A compare.json that is not a regular file, or whose re-runs are not
// well formed, is not read: the comparison is written anew.
func TestKeepReplaysRefusesOddFiles(t *testing.T) {
	c := &baseline.Comparison{Base: eval.Summary{RunID: "b"}, Current: eval.Summary{RunID: "c"},
		Cases: []baseline.CaseDiff{{Name: "x", Change: baseline.Regression, Attribution: &baseline.Attribution{Cause: eval.CauseModel, Why: "w"}}}}
	p := base.Process{Stdout: io.Discard, Stderr: io.Discard}
	for _, tc := range []struct {
		name  string
		write func(path string)
	}{
		{"a directory", func(path string) { require.NoError(t, os.Mkdir(path, 0o755)) }},
		{"a link to /dev/zero", func(path string) { require.NoError(t, os.Symlink("/dev/zero", path)) }},
		{"a replay of more runs as the baseline than runs", func(path string) {
			require.NoError(t, files.WriteJSON(path, baseline.ComparisonJSON{Baseline: "b", Run: "c", Flips: []baseline.FlipJSON{{Name: "x", Change: baseline.Regression,
				Attribution: &baseline.Attribution{Cause: eval.CauseModel, Replay: &baseline.ReplayCheck{Run: "20261102T010000Z-dddddd", Runs: 1, AsBaseline: 5}}}}}))
		}},
		{"a replay whose run is no run id", func(path string) {
			require.NoError(t, files.WriteJSON(path, baseline.ComparisonJSON{Baseline: "b", Run: "c", Flips: []baseline.FlipJSON{{Name: "x", Change: baseline.Regression,
				Attribution: &baseline.Attribution{Cause: eval.CauseModel, Replay: &baseline.ReplayCheck{Run: "\x1b[2J", Runs: 1, AsBaseline: 1}}}}}))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.write(filepath.Join(dir, "compare.json"))
			assert.Equal(t, 0, keepReplays(c, dir, p))
			assert.Nil(t, c.Cases[0].Attribution.Replay)
		})
	}
}
