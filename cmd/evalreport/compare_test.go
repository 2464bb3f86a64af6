package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/stats"
)

// writeRun writes a finished run of the given cases under parent: its
// records and its summary. fails names the cases that fail; each case
// runs repeats times and, when flaky, passes only its first run.
func writeRun(t *testing.T, parent, id string, cases []string, fails map[string]bool, repeats int) string {
	t.Helper()
	return writeRunOf(t, parent, id, cases, repeats, func(name string, r int) bool { return !fails[name] || repeats > 1 && r == 0 })
}

// writeRunOf writes a finished run of the given cases, each run repeats
// times; passes says whether a case's run r passed.
func writeRunOf(t *testing.T, parent, id string, cases []string, repeats int, passes func(name string, r int) bool) string {
	t.Helper()
	dir, err := runs.Create(parent, id)
	require.NoError(t, err)
	var lines []string
	var recs []eval.Record
	for _, name := range cases {
		for r := range repeats {
			status := eval.Pass
			if !passes(name, r) {
				status = eval.Fail
			}
			rec := eval.Record{Name: name, Category: "Cat " + name[:1], Test: "TestX/" + name, Repeat: r, Status: status, Model: "m",
				ToolCalls: []eval.ToolCall{{Name: "get_gene_by_symbol"}}}
			b, err := json.Marshal(rec)
			require.NoError(t, err)
			lines = append(lines, string(b))
			recs = append(recs, rec)
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, eval.RecordsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	sum := eval.Summary{RunID: id, Model: "m", Started: time.Now()}
	sum.Overall, sum.Categories, sum.Cases = stats.Tally(recs)
	sum.CaseSet = stats.CaseSet(sum.Cases)
	b, err := json.Marshal(sum)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, eval.SummaryFile), b, 0o644))
	return dir
}

func caseNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("c%02d", i)
	}
	return out
}

func TestBaselineComparison(t *testing.T) {
	names := caseNames(40)
	flip := func(n int) map[string]bool {
		m := map[string]bool{}
		for _, name := range names[:n] {
			m[name] = true
		}
		return m
	}
	tests := []struct {
		name        string
		flipped     int
		significant bool
	}{
		{"30 of 40 cases regress", 30, true},
		{"1 of 40 cases regresses", 1, false},
		{"nothing changes", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			base := writeRun(t, parent, "20261101T000000Z-aaaaaa", names, nil, 1)
			cur := writeRun(t, parent, "20261102T000000Z-bbbbbb", names, flip(tt.flipped), 1)
			var stdout bytes.Buffer
			err := run([]string{"-out", parent, "-run", cur, "-baseline", "latest"}, nil, &stdout, &bytes.Buffer{}, env(nil))
			var regression *regressionError
			if tt.significant {
				require.True(t, errors.As(err, &regression), "%v", err)
				assert.Contains(t, err.Error(), fmt.Sprintf("%d cases regressed", tt.flipped))
			} else {
				require.NoError(t, err)
			}
			out := stdout.String()
			assert.Contains(t, out, "comparison with "+base+": "+fmt.Sprintf("%d regressions, 0 fixes", tt.flipped))
			for _, name := range names[:tt.flipped] {
				assert.Regexp(t, `(?m)^regression\s+`+name+`\s+pass\s+fail`, out, "every regression is listed")
			}
			assert.NotRegexp(t, `(?m)^regression\s+`+names[39], out)
			page, err := os.ReadFile(filepath.Join(cur, "compare.html"))
			require.NoError(t, err)
			if tt.significant {
				assert.Contains(t, string(page), "Significant regression at level 0.05")
			} else {
				assert.Contains(t, string(page), "No significant regression at level 0.05")
			}
			assert.Contains(t, string(page), `<dd id="regressions">`+fmt.Sprint(tt.flipped)+`</dd>`)
		})
	}
}

// With repeats, a case whose pass rate drops sharply is a significant
// regression by its own Fisher test, even alone.
func TestBaselineComparisonWithRepeats(t *testing.T) {
	parent := t.TempDir()
	names := caseNames(10)
	writeRun(t, parent, "20261101T000000Z-aaaaaa", names, nil, 8)
	cur := writeRun(t, parent, "20261102T000000Z-bbbbbb", names, map[string]bool{"c03": true}, 8)
	var stdout bytes.Buffer
	err := run([]string{"-out", parent, "-run", cur, "-baseline", "20261101T000000Z-aaaaaa"}, nil, &stdout, &bytes.Buffer{}, env(nil))
	var regression *regressionError
	require.True(t, errors.As(err, &regression), "%v\n%s", err, stdout.String())
	assert.Regexp(t, `(?m)^regression \(significant\)\s+c03\s+8/8\s+1/8\s+0\.0006993\s+0\.0006993\s*$`, stdout.String(), "one case tested: no correction")
	assert.Contains(t, err.Error(), `1 cases flagged (false discovery rate 0.025): "c03" [m] 8/8 → 1/8 (adjusted p = 0.0006993)`)
}

// Two runs of a model on 40 cases that pass half the time, 5 repeats
// each: a single case's drop is no regression of the run. The Fisher test
// of some case is below 0.05 in these pairs (the old gate failed on it),
// and the gate holds.
func TestBaselineComparisonOfFlakyRunsOfOneModel(t *testing.T) {
	names := caseNames(40)
	r := rand.New(rand.NewPCG(26, 1))
	flaky := func(string, int) bool { return r.IntN(2) == 0 }
	uncorrected := 0
	for pair := range 8 {
		parent := t.TempDir()
		writeRunOf(t, parent, "20261101T000000Z-aaaaaa", names, 5, flaky)
		cur := writeRunOf(t, parent, "20261102T000000Z-bbbbbb", names, 5, flaky)
		var stdout bytes.Buffer
		err := run([]string{"-out", parent, "-run", cur, "-baseline", "latest"}, nil, &stdout, &bytes.Buffer{}, env(nil))
		require.NoError(t, err, "pair %d:\n%s", pair, stdout.String())
		out := stdout.String()
		assert.Contains(t, out, "regression gate at level 0.05: the run is not worse")
		assert.Regexp(t, `regression gate at level 0.05: 0 cases flagged of \d+ tested`, out)
		for _, m := range regexp.MustCompile(`(?m)^\S+\s+c\d\d\s+(\d)/5\s+(\d)/5`).FindAllStringSubmatch(out, -1) {
			a, _ := strconv.Atoi(m[1])
			c, _ := strconv.Atoi(m[2])
			if stats.Fisher(a, 5-a, c, 5-c) < 0.05 && c < a {
				uncorrected++
			}
		}
	}
	assert.Positive(t, uncorrected, "the pairs hold drops an uncorrected per-case test calls significant")
}

func TestBaselineOfAnotherCaseSetIsRefused(t *testing.T) {
	parent := t.TempDir()
	writeRun(t, parent, "20261101T000000Z-aaaaaa", []string{"a1", "a2"}, nil, 1)
	cur := writeRun(t, parent, "20261102T000000Z-bbbbbb", []string{"b1", "b2"}, nil, 1)
	err := run([]string{"-out", parent, "-run", cur, "-baseline", "latest"}, nil, &bytes.Buffer{}, &bytes.Buffer{}, env(nil))
	require.ErrorContains(t, err, "the runs share no case")
	assert.NoFileExists(t, filepath.Join(cur, "compare.html"))
}

func TestHistoryAndCleanRuns(t *testing.T) {
	parent := t.TempDir()
	names := caseNames(4)
	for i, id := range []string{"20261101T000000Z-aaaaaa", "20261102T000000Z-bbbbbb", "20261103T000000Z-cccccc"} {
		writeRun(t, parent, id, names, map[string]bool{"c00": i > 0, "c01": i > 1}, 1)
	}
	_, err := runs.Create(parent, "20261104T000000Z-dddddd") // a run that never finished
	require.NoError(t, err)

	var stdout bytes.Buffer
	require.NoError(t, run([]string{"-out", parent, "-history"}, nil, &stdout, &bytes.Buffer{}, env(nil)))
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	require.Len(t, lines, 5)
	assert.Regexp(t, `^20261104T000000Z-dddddd\s+\(did not finish\)`, lines[1], "newest first")
	assert.Regexp(t, `^20261103T000000Z-cccccc\s+.*\sm\s+4\s+50\.0%`, lines[2])
	assert.Regexp(t, `^20261101T000000Z-aaaaaa\s+.*\s100\.0%`, lines[4])

	// The report of a run charts the pass rates of its case set, oldest first.
	stdout.Reset()
	require.NoError(t, run([]string{"-out", parent, "-run", "20261103T000000Z-cccccc"}, nil, &stdout, &bytes.Buffer{}, env(nil)))
	page, err := os.ReadFile(strings.TrimSpace(stdout.String()))
	require.NoError(t, err)
	assert.Contains(t, string(page), `"history":[{"run_id":"20261101T000000Z-aaaaaa"`)
	assert.Regexp(t, `"pass_rate":0.5,"cases":4}\],"repeats"`, string(page))

	stdout.Reset()
	require.NoError(t, run([]string{"-out", parent, "-clean-runs", "2"}, nil, &stdout, &bytes.Buffer{}, env(nil)))
	assert.Equal(t, 2, strings.Count(stdout.String(), "removed "))
	left, err := runs.List(parent)
	require.NoError(t, err)
	assert.Len(t, left, 2)
}
