package mergecmd

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/cmdtest"
	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/shard"
)

// writeShards writes the run directories of a run of three cases split in
// two shards, the second case failing, and returns them.
func writeShards(t *testing.T) []string {
	t.Helper()
	// Balanced by history: the assignment is this test's own.
	plan := eval.Shard{Count: 2, Balance: "history", Config: eval.ShardConfig{Models: []string{"m"}, Repeats: 1, Settings: "s"}}
	for i, shard := range []int{1, 2, 1} {
		plan.Runs = append(plan.Runs, eval.ShardRun{CaseRun: eval.CaseRun{Name: fmt.Sprint("case ", i), Model: "m"}, Category: "Genes", File: "genes.yaml", Line: 1 + i,
			Test: fmt.Sprint("TestGenes/case_", i), Shard: shard})
	}
	plan.Config.Cases, plan.Plan = shard.Fingerprints(plan.Runs, plan.Count, plan.Balance)
	parent := t.TempDir()
	start := time.Now().UTC().Add(-time.Minute)
	var dirs []string
	for k := 1; k <= 2; k++ {
		dir, err := runs.Create(parent, runs.NewID(start))
		require.NoError(t, err)
		var lines, events bytes.Buffer
		events.WriteString(`{"Action":"run","Package":"p","Test":"TestGenes"}` + "\n")
		for i, r := range plan.Runs {
			if r.Shard != k {
				continue
			}
			status, action := eval.Pass, "pass"
			if i == 1 {
				status, action = eval.Fail, "fail"
			}
			rec := eval.Record{Name: r.Name, Category: r.Category, Test: r.Test, File: r.File, Line: r.Line, Model: "m",
				Status: status, Reason: "judged", StartedAt: start.Add(time.Second), Seconds: 1, ToolCalls: []eval.ToolCall{}}
			require.NoError(t, json.NewEncoder(&lines).Encode(rec))
			fmt.Fprintf(&events, "{\"Action\":\"run\",\"Package\":\"p\",\"Test\":%q}\n{\"Action\":%q,\"Package\":\"p\",\"Test\":%q,\"Elapsed\":1}\n", r.Test, action, r.Test)
		}
		events.WriteString(`{"Action":"fail","Package":"p","Test":"TestGenes","Elapsed":2}` + "\n")
		require.NoError(t, os.WriteFile(filepath.Join(dir, eval.RecordsFile), lines.Bytes(), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "test.json"), events.Bytes(), 0o644))
		p := plan
		p.Index = k
		data, err := json.Marshal(eval.Summary{RunID: filepath.Base(dir), Model: "m", Started: start, Finished: start.Add(time.Duration(2+k) * time.Second), Shard: &p})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, eval.SummaryFile), data, 0o644))
		dirs = append(dirs, dir)
	}
	return dirs
}

// junitCounts reads a JUnit file's testcases and what they say.
func junitCounts(t *testing.T, path string) (tests, failures, skipped int, text string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Skipped int `xml:"skipped,attr"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(data, &doc))
	for _, s := range doc.Suites {
		skipped += s.Skipped
	}
	return doc.Tests, doc.Failures, skipped, string(data)
}

func TestMergeRuns(t *testing.T) {
	dirs := writeShards(t)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	// Flags may follow the run directories.
	err := cmdtest.Run(Cmd, append([]string{"runs"}, append(dirs, "-out", out)...), nil, &stdout, &stderr, nil)
	require.NoError(t, err, stderr.String())
	assert.Contains(t, stdout.String(), "merged shards 1/2 (2 records: "+dirs[0]+"), 2/2 (1 records: "+dirs[1]+")")
	assert.Contains(t, stdout.String(), "3 case runs: 2 passed, 1 failed")
	merged, err := runs.Resolve(out, runs.Latest)
	require.NoError(t, err)
	assert.Contains(t, stdout.String(), filepath.Join(merged, eval.ReportFile))
	tests, failures, skipped, _ := junitCounts(t, filepath.Join(merged, "junit.xml"))
	assert.Equal(t, []int{3, 1, 0}, []int{tests, failures, skipped}, "the merged run's JUnit file is in its directory")
	html, err := os.ReadFile(filepath.Join(merged, eval.ReportFile))
	require.NoError(t, err)
	assert.Contains(t, string(html), "case 2")
	assert.NotContains(t, string(html), "Incomplete merge")

	// Compared with that merged run as the baseline: no regression.
	stdout.Reset()
	err = cmdtest.Run(Cmd, []string{"runs", "-out", out, dirs[0], dirs[1], "-baseline", merged}, nil, &stdout, &stderr, nil)
	require.NoError(t, err)
	assert.Contains(t, stdout.String(), "comparison with "+merged+": 0 regressions")
}

func TestMergeWithAShardMissingFails(t *testing.T) {
	dirs := writeShards(t)
	out := t.TempDir()
	junit := filepath.Join(t.TempDir(), "junit.xml")
	var stdout, stderr bytes.Buffer
	err := cmdtest.Run(Cmd, []string{"runs", "-out", out, "-junit", junit, dirs[0]}, nil, &stdout, &stderr, nil)
	assert.Equal(t, 1, base.ExitStatus(err), "a failure of the run: %v", err)
	assert.EqualError(t, err, "the merged run is incomplete: no shard given ran 1 case run (recorded as not run)")
	assert.Contains(t, stdout.String(), "shards not given: 2/2")
	assert.Contains(t, stdout.String(), "NOT RUN: 1 case runs no shard reported:\n  shard 2/2: TestGenes/case_1 (genes.yaml:2)")
	tests, failures, skipped, text := junitCounts(t, junit)
	assert.Equal(t, []int{3, 0, 1}, []int{tests, failures, skipped})
	assert.Contains(t, text, "not run: shard 2/2 was not merged")
	merged, err := runs.Resolve(out, runs.Latest)
	require.NoError(t, err)
	html, err := os.ReadFile(filepath.Join(merged, eval.ReportFile))
	require.NoError(t, err)
	assert.Contains(t, string(html), "Incomplete merge: shards 1/2 of 2 were merged; no shard given ran 1 case run")
}

func TestMergeRunsRefuses(t *testing.T) {
	dirs := writeShards(t)
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"runs"}, "name the shards' run directories"},
		{[]string{"runs", "-run", "latest", dirs[0]}, "flag provided but not defined: -run"},
		{[]string{"runs", dirs[0], dirs[0]}, "shard 1/2 appears twice"},
		{[]string{"runs", "-alpha", "2", dirs[0]}, "between 0 and 1"},
		{[]string{}, "name one of its commands: runs, caches"},
		{[]string{"shards"}, `unknown command "shards"`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		err := cmdtest.Run(Cmd, append(tt.args, "-out", t.TempDir()), nil, &stdout, &stderr, nil)
		require.Error(t, err, strings.Join(tt.args, " "))
		assert.Contains(t, err.Error(), tt.wantErr)
		assert.Equal(t, 2, base.ExitStatus(err), "a refusal is a usage or setup error")
	}
}
