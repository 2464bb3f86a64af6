package shard_test

// End-to-end: the compiled suite run as three concurrent shard processes
// against a stub model, merged, and compared with the same run in one
// process.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/cache"
	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/llmstub"
	"github.com/mcpeval/mcpeval/internal/rundata"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/settings"
	"github.com/mcpeval/mcpeval/internal/shard"
)

// extraCases are a failing case and a category without a test function of
// its own, beside the bundled utilities cases.
const extraCases = `
- case:
    name: "Drifted expectation"
    category: "Gene and Variant Utilities"
    input: "What is the Entrez id of NUTM2G? The answer changed."
    expected: "999999"
    checks: {contains: ["999999"]}
    reference:
      - {tool: get_gene_by_symbol, args: {gene_symbol: NUTM2G}}
- case:
    name: "OMIM of NUTM2G"
    category: "Sharded Extras"
    input: "What is the OMIM status of NUTM2G?"
    expected: "no OMIM entry"
    reference:
      - {tool: get_omim_by_gene_symbol, args: {gene_symbol: NUTM2G}}
`

// addedCase is added to the case file to see that no other case moves.
const addedCase = `
- case:
    name: "Entrez id of NUTM2G, added later"
    category: "Sharded Extras"
    input: "Which Entrez id has NUTM2G (a case added later)?"
    expected: "441457"
    reference:
      - {tool: get_gene_by_symbol, args: {gene_symbol: NUTM2G}}
`

// suiteRun is one process of the suite.
type suiteRun struct {
	bin, cases, stubURL string
}

// run runs the suite with the extra environment, -count=2 and two models,
// writing its go test stream into its run directory under out, and
// returns that directory.
func (s suiteRun) run(t *testing.T, out string, env ...string) string {
	t.Helper()
	id := runs.NewID(time.Now())
	dir := filepath.Join(out, runs.Dir, id)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	stream, err := os.Create(filepath.Join(dir, shard.StreamFile))
	require.NoError(t, err)
	defer stream.Close()
	cmd := exec.Command("go", "tool", "test2json", "-t", "-p", "github.com/mcpeval/mcpeval/evaltest",
		s.bin, "-test.v=test2json", "-test.count=2", "-test.timeout=0")
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	cmd.Dir = filepath.Join(root, "evaltest")
	cmd.Env = append(settings.IsolatedEnv(), "EVAL_CASES="+s.cases, "EVAL_OUT="+out, "EVAL_RUN_ID="+id,
		"EVAL_CACHE="+filepath.Join(out, "cache.json"), "OPENAI_BASE_URL="+s.stubURL, "OPENAI_API_KEY=sk-shard-test-key-0001",
		"EVAL_MODELS=stub-a,stub-b", "EVAL_CONCURRENCY=8")
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stream, &stderr
	err = cmd.Run()
	// The drifted case fails its tests: go test exits 1.
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		t.Fatalf("suite run %v: %v\n%s", env, err, stderr.String())
	}
	require.FileExists(t, filepath.Join(dir, eval.SummaryFile), stderr.String())
	return dir
}

// outcomes are a report's case runs: status by test name and repeat. The
// report has no problem to show above them.
func outcomes(t *testing.T, dir string) map[string]eval.Status {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, shard.StreamFile))
	require.NoError(t, err)
	defer f.Close()
	data, err := rundata.Load(dir, []rundata.Stream{{Name: "test.json", R: f}})
	require.NoError(t, err)
	assert.Empty(t, data.Problems, "the report of %s", dir)
	out := map[string]eval.Status{}
	for _, c := range data.Cases {
		out[fmt.Sprintf("%s #%d", c.Test, c.Repeat)] = c.Status
	}
	return out
}

func TestShardsMergeIntoTheRunOfOneProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the suite")
	}
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	work := t.TempDir()
	bin := filepath.Join(work, "evaltest.test")
	build := exec.Command("go", "test", "-c", "-o", bin, "./evaltest")
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	caseDir := filepath.Join(work, "cases")
	require.NoError(t, os.MkdirAll(caseDir, 0o755))
	utilities, err := os.ReadFile(filepath.Join(root, "cases", "utilities.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(caseDir, "utilities.yaml"), utilities, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(caseDir, "extras.yaml"), []byte(extraCases), 0o644))
	all, err := evalcase.LoadPath(caseDir)
	require.NoError(t, err)
	added, err := evalcase.Parse("added.yaml", []byte(addedCase))
	require.NoError(t, err)
	stub := llmstub.Start(llmstub.Replay(append(all, added...)), llmstub.Options{})
	defer stub.Close()
	suite := suiteRun{bin: bin, cases: caseDir, stubURL: stub.BaseURL()}

	// The same run in one process, and as three concurrent shards.
	whole := suite.run(t, filepath.Join(work, "whole"))
	shardDirs := make([]string, 3)
	var wg sync.WaitGroup
	for k := range 3 {
		wg.Go(func() {
			shardDirs[k] = suite.run(t, filepath.Join(work, fmt.Sprint("shard", k+1)), fmt.Sprintf("EVAL_SHARD=%d/3", k+1))
		})
	}
	wg.Wait()

	res, err := shard.Merge(shardDirs, filepath.Join(work, "merged"))
	require.NoError(t, err)
	assert.False(t, res.Incomplete(), res.Describe())
	want, got := outcomes(t, whole), outcomes(t, res.Dir)
	assert.Len(t, want, len(all)*2*2, "every case, with two models, twice")
	assert.Equal(t, want, got, "the merged run has the cases and statuses of the run in one process")
	assert.Equal(t, eval.Fail, got["TestGeneAndVariantUtilities/Drifted_expectation/stub-b #1"])
	assert.Equal(t, eval.Pass, got["TestOtherCategories/Sharded_Extras/OMIM_of_NUTM2G/stub-a #0"])

	var sums []eval.Summary
	for _, dir := range append(shardDirs, whole) {
		sums = append(sums, readSummary(t, dir))
	}
	for k, s := range sums[:3] {
		require.NotNil(t, s.Shard)
		assert.Equal(t, k+1, s.Shard.Index)
		assert.Len(t, s.Shard.Runs, len(want), "each shard knows every case run of the run")
		assert.Equal(t, 0, s.NotRun, "a shard does not count the other shards' cases as not run")
		assert.Less(t, s.Total, len(want), "shard %d ran a part", k+1)
	}
	assert.Equal(t, sums[3].Total, sums[0].Total+sums[1].Total+sums[2].Total, "together the shards ran every case run once")
	m := res.Summary
	assert.Equal(t, []int{sums[3].Total, sums[3].Passed, sums[3].Failed, sums[3].NotRun}, []int{m.Total, m.Passed, m.Failed, m.NotRun})
	assert.Equal(t, sums[3].Overall, m.Overall, "pass rates, pass@k and pass^k as in one process")
	assert.Equal(t, sums[3].CaseSet, m.CaseSet)

	// A shard's stream has no test of another shard's case runs, not even
	// a skipped one: only its own and the cases' tests above them.
	for k, dir := range shardDirs {
		mine := map[string]bool{}
		for _, r := range sums[k].Shard.Runs {
			if r.Shard == k+1 {
				mine[r.Test] = true
				mine[filepath.Dir(r.Test)] = true // the case, above its models
			}
		}
		for test := range caseTests(t, dir) {
			assert.True(t, mine[test], "shard %d ran %s, another shard's", k+1, test)
		}
	}

	// One shard missing: its case runs are recorded as not run.
	partial, err := shard.Merge([]string{shardDirs[0], shardDirs[2]}, filepath.Join(work, "partial"))
	require.NoError(t, err)
	assert.True(t, partial.Incomplete())
	assert.Len(t, partial.Summary.Merged.Missing, sums[1].Total)
	assert.Equal(t, sums[1].Total, countStatus(outcomes(t, partial.Dir), eval.NotRun), "the report shows them as not run")

	// A case added to the case file moves no other case between shards.
	require.NoError(t, os.WriteFile(filepath.Join(caseDir, "extras.yaml"), []byte(extraCases+addedCase), 0o644))
	after := readSummary(t, suite.run(t, filepath.Join(work, "after"), "EVAL_SHARD=1/3"))
	before := map[string]int{}
	for _, r := range sums[0].Shard.Runs {
		before[fmt.Sprintf("%s %s %d", r.Name, r.Model, r.Repeat)] = r.Shard
	}
	moved, new := 0, 0
	for _, r := range after.Shard.Runs {
		j, ok := before[fmt.Sprintf("%s %s %d", r.Name, r.Model, r.Repeat)]
		switch {
		case !ok:
			new++
		case j != r.Shard:
			moved++
		}
	}
	assert.Equal(t, 4, new, "the added case, with two models, twice")
	assert.Zero(t, moved, "no other case run changed shards")

	// Balanced by history: every shard starts from the same carried cache
	// (the shards' caches merged) and runs everything again (-force), so
	// every case run has a duration; the plans agree and the merge is
	// complete.
	carried := filepath.Join(work, "carried.json")
	var caches []string
	for k := range 3 {
		caches = append(caches, filepath.Join(work, fmt.Sprint("shard", k+1), "cache.json"))
	}
	_, err = cache.Merge(carried, caches)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(caseDir, "extras.yaml"), []byte(extraCases), 0o644))
	balanced := make([]string, 3)
	for k := range 3 {
		own := filepath.Join(work, fmt.Sprint("balanced-cache", k+1, ".json"))
		data, err := os.ReadFile(carried)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(own, data, 0o644))
		wg.Go(func() {
			balanced[k] = suite.run(t, filepath.Join(work, fmt.Sprint("balanced", k+1)), fmt.Sprintf("EVAL_SHARD=%d/3", k+1),
				"EVAL_SHARD_BALANCE=history", "EVAL_FORCE=1", "EVAL_CACHE="+own)
		})
	}
	wg.Wait()
	res, err = shard.Merge(balanced, filepath.Join(work, "balanced-merged"))
	require.NoError(t, err)
	assert.False(t, res.Incomplete())
	assert.Equal(t, want, outcomes(t, res.Dir))
	plan := readSummary(t, balanced[0]).Shard
	assert.Equal(t, "history", plan.Balance)
	assert.NotEqual(t, sums[0].Shard.Plan, plan.Plan, "the durations, not the hash, placed the case runs")
}

// caseTests returns the case tests (two levels or more) a run directory's
// stream ran.
func caseTests(t *testing.T, dir string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, shard.StreamFile))
	require.NoError(t, err)
	out := map[string]bool{}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var e struct{ Action, Test string }
		if json.Unmarshal(line, &e) == nil && e.Action == "run" && bytes.Count([]byte(e.Test), []byte("/")) >= 1 {
			if parts := bytes.Split([]byte(e.Test), []byte("/")); string(parts[0]) == "TestOtherCategories" && len(parts) == 2 {
				continue // the category level
			}
			out[e.Test] = true
		}
	}
	return out
}

func readSummary(t *testing.T, dir string) eval.Summary {
	t.Helper()
	var s eval.Summary
	data, err := os.ReadFile(filepath.Join(dir, eval.SummaryFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &s))
	return s
}

func countStatus(m map[string]eval.Status, st eval.Status) int {
	n := 0
	for _, s := range m {
		if s == st {
			n++
		}
	}
	return n
}
