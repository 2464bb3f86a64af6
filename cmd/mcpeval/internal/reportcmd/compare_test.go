package reportcmd

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/cmdtest"
	"github.com/mcpeval/mcpeval/internal/prose"
	"github.com/mcpeval/mcpeval/internal/stats"
)

// runReport runs mcpeval report with args in process.
func runReport(args []string, stdin io.Reader, stdout, stderr io.Writer, env map[string]string) error {
	return cmdtest.Run(Cmd, args, stdin, stdout, stderr, env)
}

func TestBaselineComparison(t *testing.T) {
	names := cmdtest.CaseNames(40)
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
			baseRun := cmdtest.WriteRun(t, parent, "20261101T000000Z-aaaaaa", names, nil, 1)
			cur := cmdtest.WriteRun(t, parent, "20261102T000000Z-bbbbbb", names, flip(tt.flipped), 1)
			var stdout bytes.Buffer
			err := runReport([]string{"-out", parent, "-run", cur, "-baseline", "latest"}, nil, &stdout, &bytes.Buffer{}, nil)
			if tt.significant {
				require.Error(t, err)
				assert.Equal(t, 1, base.ExitStatus(err), "a regression is a failure: %v", err)
				assert.Contains(t, err.Error(), fmt.Sprintf("%d cases regressed", tt.flipped))
			} else {
				require.NoError(t, err)
			}
			out := stdout.String()
			assert.Contains(t, out, "comparison with "+baseRun+": "+prose.Plural(tt.flipped, "regressions")+", 0 fixes")
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
			for _, name := range names[:tt.flipped] {
				// Each regression links to its case in the run's report and
				// shows its old and new answer and reason side by side.
				assert.Contains(t, string(page), `<a href="report.html#`+name+`@m">`+name+`</a> [m]`)
				assert.Contains(t, string(page), `<p class="answer">the right answer to `+name+`</p><p class="reason">fine</p>`)
				assert.Contains(t, string(page), `<p class="answer">a wrong answer to `+name+`</p><p class="reason">the judge said no</p>`)
			}
		})
	}
}

// With repeats, a case whose pass rate drops sharply is a significant
// regression by its own Fisher test, even alone.
func TestBaselineComparisonWithRepeats(t *testing.T) {
	parent := t.TempDir()
	names := cmdtest.CaseNames(10)
	cmdtest.WriteRun(t, parent, "20261101T000000Z-aaaaaa", names, nil, 8)
	cur := cmdtest.WriteRun(t, parent, "20261102T000000Z-bbbbbb", names, map[string]bool{"c03": true}, 8)
	var stdout bytes.Buffer
	err := runReport([]string{"-out", parent, "-run", cur, "-baseline", "20261101T000000Z-aaaaaa"}, nil, &stdout, &bytes.Buffer{}, nil)
	require.Error(t, err, stdout.String())
	assert.Equal(t, 1, base.ExitStatus(err), "a regression is a failure: %v", err)
	assert.Regexp(t, `(?m)^regression \(significant\)\s+c03\s+8/8\s+1/8\s+0\.0006993\s+0\.0006993\s+model\s*$`, stdout.String(), "one case tested: no correction")
	assert.Contains(t, err.Error(), `1 case flagged (false discovery rate 0.025): "c03" [m] 8/8 → 1/8 (adjusted p = 0.0006993, cause model)`)
}

// Two runs of a model on 40 cases that pass half the time, 5 repeats
// each: a single case's drop is no regression of the run. The Fisher test
// of some case is below 0.05 in these pairs (the old gate failed on it),
// and the gate holds.
func TestBaselineComparisonOfFlakyRunsOfOneModel(t *testing.T) {
	names := cmdtest.CaseNames(40)
	r := rand.New(rand.NewPCG(26, 1))
	flaky := func(string, int) bool { return r.IntN(2) == 0 }
	uncorrected := 0
	for pair := range 8 {
		parent := t.TempDir()
		cmdtest.WriteRunOf(t, parent, "20261101T000000Z-aaaaaa", names, 5, flaky)
		cur := cmdtest.WriteRunOf(t, parent, "20261102T000000Z-bbbbbb", names, 5, flaky)
		var stdout bytes.Buffer
		err := runReport([]string{"-out", parent, "-run", cur, "-baseline", "latest"}, nil, &stdout, nil, nil)
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
	cmdtest.WriteRun(t, parent, "20261101T000000Z-aaaaaa", []string{"a1", "a2"}, nil, 1)
	cur := cmdtest.WriteRun(t, parent, "20261102T000000Z-bbbbbb", []string{"b1", "b2"}, nil, 1)
	err := runReport([]string{"-out", parent, "-run", cur, "-baseline", "latest"}, nil, &bytes.Buffer{}, &bytes.Buffer{}, nil)
	require.ErrorContains(t, err, "the runs share no case")
	assert.Equal(t, 2, base.ExitStatus(err), "not a finding of the run")
	assert.NoFileExists(t, filepath.Join(cur, "compare.html"))
}

// The report of a run charts the pass rates of the kept runs of its case
// set, oldest first.
func TestReportChartsTheHistoryOfItsCaseSet(t *testing.T) {
	parent := t.TempDir()
	names := cmdtest.CaseNames(4)
	for i, id := range []string{"20261101T000000Z-aaaaaa", "20261102T000000Z-bbbbbb", "20261103T000000Z-cccccc"} {
		cmdtest.WriteRun(t, parent, id, names, map[string]bool{"c00": i > 0, "c01": i > 1}, 1)
	}
	cmdtest.WriteRun(t, parent, "20261102T120000Z-dddddd", cmdtest.CaseNames(2), nil, 1) // another case set
	var stdout bytes.Buffer
	require.NoError(t, runReport([]string{"-out", parent, "-run", "20261103T000000Z-cccccc"}, nil, &stdout, nil, nil))
	page, err := os.ReadFile(strings.TrimSpace(stdout.String()))
	require.NoError(t, err)
	assert.Contains(t, string(page), `"history":[{"run_id":"20261101T000000Z-aaaaaa"`)
	assert.Regexp(t, `"pass_rate":0.5,"cases":4}\],"repeats"`, string(page))
	assert.NotContains(t, string(page), "20261102T120000Z-dddddd")
}

// -gate-causes limits the gate to the flips of some causes: 30 of 40
// cases whose model answered otherwise fail a gate that weighs the model,
// and pass one that weighs the data alone, which still reports them.
func TestGateCauses(t *testing.T) {
	names := cmdtest.CaseNames(40)
	fails := map[string]bool{}
	for _, n := range names[:30] {
		fails[n] = true
	}
	parent := t.TempDir()
	cmdtest.WriteRun(t, parent, "20261101T000000Z-aaaaaa", names, nil, 1)
	cur := cmdtest.WriteRun(t, parent, "20261102T000000Z-bbbbbb", names, fails, 1)
	for _, tc := range []struct {
		causes string
		fails  bool
	}{{"model,surface", true}, {"data", false}, {"", true}} {
		t.Run("causes "+tc.causes, func(t *testing.T) {
			var stdout bytes.Buffer
			err := runReport([]string{"-out", parent, "-run", cur, "-baseline", "latest", "-gate-causes", tc.causes}, nil, &stdout, &bytes.Buffer{}, nil)
			assert.Contains(t, stdout.String(), "30 flipped cases by cause: 30 model")
			data, rerr := os.ReadFile(filepath.Join(cur, "compare.json"))
			require.NoError(t, rerr)
			assert.Contains(t, string(data), `"model": 30`)
			if !tc.fails {
				require.NoError(t, err)
				assert.Contains(t, stdout.String(), "regression c00 (not gated): model: ")
				return
			}
			require.Error(t, err)
			assert.Equal(t, 1, base.ExitStatus(err))
		})
	}
	err := runReport([]string{"-out", parent, "-run", cur, "-baseline", "latest", "-gate-causes", "model,weather"}, nil, io.Discard, io.Discard, nil)
	require.Error(t, err)
	assert.Equal(t, 2, base.ExitStatus(err))
	assert.Contains(t, err.Error(), `unknown cause "weather"`)
}

// -baseline latest is the newest finished run that started before the
// run reported, by start time: a run whose id was given (EVAL_RUN_ID) has
// the run before it as its baseline whatever its id, and is the baseline
// of the run after it.
func TestBaselineLatestByStartTime(t *testing.T) {
	parent := t.TempDir()
	first := cmdtest.WriteRun(t, parent, "20261101T000000Z-aaaaaa", cmdtest.CaseNames(2), nil, 1)
	given := cmdtest.WriteRun(t, parent, "20200101T000000Z-c1c1c1", cmdtest.CaseNames(2), nil, 1)
	last := cmdtest.WriteRun(t, parent, "20261103T000000Z-bbbbbb", cmdtest.CaseNames(2), nil, 1)
	path := filepath.Join(given, "summary.json")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	b = regexp.MustCompile(`"started":"[^"]+"`).ReplaceAll(b, []byte(`"started":"2026-11-02T00:00:00Z"`))
	require.NoError(t, os.WriteFile(path, b, 0o644))

	for _, tt := range []struct{ run, want string }{{given, first}, {last, given}} {
		got, err := resolveBaseline(parent, tt.run, "latest")
		require.NoError(t, err, tt.run)
		assert.Equal(t, tt.want, got, "the baseline of %s", filepath.Base(tt.run))
	}
	_, err = resolveBaseline(parent, first, "latest")
	assert.ErrorContains(t, err, "no finished run before 20261101T000000Z-aaaaaa")
}
