package sampleserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/sampleserver"
)

// onePandas is a pool of one worker on the module's datasets.
func onePandas(t *testing.T, cfg sampleserver.PandasConfig) *sampleserver.Pandas {
	t.Helper()
	requirePandas(t)
	if cfg.Datasets == "" {
		cfg.Datasets = datasetsDir(t)
	}
	cfg.MaxConcurrent = 1
	p := sampleserver.NewPandas(cfg)
	t.Cleanup(p.Close)
	return p
}

func mustRun(t *testing.T, p *sampleserver.Pandas, code, dataset string) sampleserver.Execution {
	t.Helper()
	out, err := p.Run(testContext(t), code, dataset)
	require.NoError(t, err)
	return out
}

// salaryTotal is the sum of the employees' salaries, read with Go.
func salaryTotal(t *testing.T) int {
	header, rows := readCSV(t, "employees")
	col, total := indexOf(header, "salary"), 0
	for _, r := range rows {
		n, err := strconv.Atoi(r[col])
		require.NoError(t, err)
		total += n
	}
	return total
}

// Each run starts from the worker's state, whatever the run before did to
// the data, to pandas, to builtins or to its namespace.
func TestRunPandasFreshStatePerRun(t *testing.T) {
	p := onePandas(t, sampleserver.PandasConfig{})
	t.Parallel()
	spoil := mustRun(t, p, `import builtins
df['salary'] = 0
pd.DataFrame.sum = lambda self, *a, **k: 42
pd.Series.sum = lambda self, *a, **k: 42
pd.set_option('display.max_rows', 2)
builtins.leak = 1
leftover = 1
result = int(df['salary'].sum())`, "employees")
	require.False(t, spoil.Failed, spoil.Text)
	require.Equal(t, "42", spoil.Text, "the run did spoil its own state")
	pids := p.WorkerPIDs()
	require.Len(t, pids, 1)

	check := mustRun(t, p, `import builtins
result = {"sum": int(df['salary'].sum()), "leak": hasattr(builtins, 'leak'), "leftover": 'leftover' in dir(),
          "max_rows": pd.get_option('display.max_rows')}`, "employees")
	require.False(t, check.Failed, check.Text)
	var got struct {
		Sum      int
		Leak     bool
		Leftover bool
		MaxRows  int `json:"max_rows"`
	}
	require.NoError(t, json.Unmarshal([]byte(check.Text), &got), check.Text)
	assert.Equal(t, salaryTotal(t), got.Sum, "the data and pandas are as loaded")
	assert.False(t, got.Leak)
	assert.False(t, got.Leftover)
	assert.Equal(t, 60, got.MaxRows, "pandas options are the defaults")
	assert.Equal(t, pids, p.WorkerPIDs(), "the same worker served both runs")
}

// The worker reports the code's own time, not the call's: CPU time for
// work, wall time for waiting.
func TestRunPandasReportsTheCodesOwnTime(t *testing.T) {
	p := onePandas(t, sampleserver.PandasConfig{})
	t.Parallel()
	busy := mustRun(t, p, "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3:\n    pass\nresult = 1", "employees")
	require.False(t, busy.Failed, busy.Text)
	require.NotNil(t, busy.Execution)
	assert.GreaterOrEqual(t, busy.Execution.CPUSeconds, 0.3)
	assert.GreaterOrEqual(t, busy.Execution.Seconds, 0.3)

	sleep := mustRun(t, p, "import time\ntime.sleep(0.3)\nresult = 1", "employees")
	require.False(t, sleep.Failed, sleep.Text)
	assert.GreaterOrEqual(t, sleep.Execution.Seconds, 0.3)
	assert.Less(t, sleep.Execution.CPUSeconds, 0.1, "sleeping uses no CPU")

	failed := mustRun(t, p, "x = 1\nresult = df['nope']", "employees")
	require.True(t, failed.Failed)
	require.NotNil(t, failed.Execution, "a failed run is timed and read too")
	require.NotNil(t, failed.Execution.Facts)
	assert.Equal(t, []string{"nope"}, failed.Execution.Facts.Columns)
}

// The reading of the code reaches the client in the result's _meta.
func TestRunPandasSendsTheReadingInMeta(t *testing.T) {
	requirePandas(t)
	t.Parallel()
	c := connectPandas(t, sampleserver.PandasConfig{Datasets: datasetsDir(t)})
	res, text := call(t, c, "run_pandas", args{"dataset": "employees",
		"code": "result = df[df['salary'] > 150000].sort_values('salary', ascending=False)['name'].tolist()"})
	require.False(t, res.IsError, text)
	require.NotNil(t, res.Meta)
	raw, err := json.Marshal(res.Meta.AdditionalFields[eval.CodeExecutionMeta])
	require.NoError(t, err)
	var exec eval.CodeExecution
	require.NoError(t, json.Unmarshal(raw, &exec))
	require.NotNil(t, exec.Facts, string(raw))
	f := exec.Facts
	assert.True(t, f.Parsed)
	assert.Equal(t, []eval.CodeFilter{{Columns: []string{"salary"}, Op: ">", Values: []string{"150000"}}}, f.Filters)
	require.Len(t, f.Sorts, 1)
	assert.Equal(t, []string{"salary"}, f.Sorts[0].Keys)
	require.NotNil(t, f.Sorts[0].Ascending)
	assert.False(t, *f.Sorts[0].Ascending)
	assert.Greater(t, exec.CPUSeconds, 0.0, string(raw))
}

// A run that overruns its time limit is killed by its worker, which serves
// the next run; a worker that stops answering is killed and replaced, and
// so is one that dies.
func TestRunPandasOverrunsAndDeadWorkers(t *testing.T) {
	t.Run("time limit", func(t *testing.T) {
		p := onePandas(t, sampleserver.PandasConfig{Timeout: time.Second})
		t.Parallel()
		out := mustRun(t, p, "while True:\n    pass", "employees")
		require.True(t, out.Failed)
		assert.Equal(t, "TimeoutError: the code did not finish within the 1s limit and was stopped", out.Text)
		pids := p.WorkerPIDs()
		next := mustRun(t, p, "result = len(df)", "employees")
		assert.Equal(t, "60", next.Text)
		assert.Equal(t, pids, p.WorkerPIDs(), "the worker stopped the run itself and lives on")
	})
	t.Run("worker killed by the code", func(t *testing.T) {
		p := onePandas(t, sampleserver.PandasConfig{})
		t.Parallel()
		mustRun(t, p, "result = 1", "employees")
		pids := p.WorkerPIDs()
		out := mustRun(t, p, "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nimport time\ntime.sleep(30)", "employees")
		require.True(t, out.Failed)
		assert.Contains(t, out.Text, "RuntimeError: run_pandas: the Python worker ended during the run")
		next := mustRun(t, p, "result = len(df)", "employees")
		assert.Equal(t, "60", next.Text, "a new worker serves the next run")
		assert.NotEqual(t, pids, p.WorkerPIDs())
	})
	t.Run("worker stopped by the code", func(t *testing.T) {
		p := onePandas(t, sampleserver.PandasConfig{Timeout: time.Second})
		t.Parallel()
		mustRun(t, p, "result = 1", "employees")
		pids := p.WorkerPIDs()
		out := mustRun(t, p, "import os, signal\nos.kill(os.getppid(), signal.SIGSTOP)\nimport time\ntime.sleep(60)", "employees")
		require.True(t, out.Failed)
		assert.Contains(t, out.Text, "did not answer within 11s; it was replaced")
		next := mustRun(t, p, "result = len(df)", "employees")
		assert.Equal(t, "60", next.Text)
		assert.NotEqual(t, pids, p.WorkerPIDs())
		for _, pid := range pids {
			assert.Eventually(t, func() bool { return processGone(pid) }, 30*time.Second,
				50*time.Millisecond, "the stopped worker %d is gone", pid)
		}
	})
}

// A dataset file that changes is read again; a new one is found.
func TestRunPandasReloadsChangedDatasets(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tiny.csv")
	require.NoError(t, os.WriteFile(path, []byte("a\n1\n2\n"), 0o644))
	p := onePandas(t, sampleserver.PandasConfig{Datasets: dir})
	t.Parallel()
	assert.Equal(t, "3", mustRun(t, p, "result = int(df['a'].sum())", "tiny").Text)
	require.NoError(t, os.WriteFile(path, []byte("a\n10\n20\n30\n"), 0o644))
	assert.Equal(t, "60", mustRun(t, p, "result = int(df['a'].sum())", "tiny").Text)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "more.csv"), []byte("b\n7\n"), 0o644))
	assert.Equal(t, "7", mustRun(t, p, "result = int(df['b'].sum())", "more").Text)
}

// Close ends the workers.
func TestPandasCloseStopsTheWorkers(t *testing.T) {
	requirePandas(t)
	t.Parallel()
	p := sampleserver.NewPandas(sampleserver.PandasConfig{Datasets: datasetsDir(t), MaxConcurrent: 2, Timeout: overlapTimeout})
	ctx := context.Background()
	done := make(chan sampleserver.Execution, 2)
	code := overlapping(t, 2)
	for range 2 {
		go func() {
			out, _ := p.Run(ctx, code, "employees")
			done <- out
		}()
	}
	for range 2 {
		out := <-done
		require.Equal(t, "2", out.Text, "both ran at once")
	}
	pids := p.WorkerPIDs()
	require.Len(t, pids, 2, "two runs at once, two workers")
	p.Close()
	for _, pid := range pids {
		assert.Eventually(t, func() bool { return processGone(pid) }, 30*time.Second,
			50*time.Millisecond, "worker %d is gone", pid)
	}
	out, err := p.Run(ctx, "result = 1", "employees")
	require.NoError(t, err)
	assert.True(t, out.Failed)
	assert.Contains(t, out.Text, "closed")
}

// The reading of code needs python3 but no pandas.
func TestAnalyzeCode(t *testing.T) {
	python, err := sampleserver.Python()
	if err != nil {
		t.Skip(err.Error())
	}
	t.Parallel()
	facts, err := sampleserver.AnalyzeCode(testContext(t), python, []string{
		"m = df.merge(df2, left_on='employee_id', right_on='id')\nresult = m.groupby(['region', 'name'])['units'].sum().nlargest(3)",
		"result = df[",
		strings.Repeat("(", 500) + "1" + strings.Repeat(")", 500),
	})
	require.NoError(t, err)
	require.Len(t, facts, 3)
	f := facts[0]
	assert.Equal(t, []eval.CodeJoin{{Method: "merge", Keys: []string{"employee_id", "id"}}}, f.Joins)
	assert.Equal(t, []eval.CodeGroupBy{{Method: "groupby", Keys: []string{"region", "name"}}}, f.GroupBys)
	require.Len(t, f.Sorts, 1)
	assert.Equal(t, eval.CodeSort{Method: "nlargest", Keys: []string{"units"}, Ascending: f.Sorts[0].Ascending, N: 3}, f.Sorts[0])
	assert.True(t, slices.Contains(f.Operations, "sum"))
	assert.False(t, facts[1].Parsed)
	assert.Contains(t, facts[1].SyntaxError, "SyntaxError")
	assert.False(t, facts[2].Parsed, "too deeply nested to parse is an answer, not a crash")
}

// Code cases are skipped only when pandas is certainly missing: a check
// that crashes or cannot finish says nothing, and the cases run.
func TestCheckPandasSkipsOnlyForCertain(t *testing.T) {
	python, err := sampleserver.Python()
	if err != nil {
		t.Skip(err.Error())
	}
	dir := t.TempDir()
	script := func(name, body string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755))
		return path
	}
	tests := []struct {
		name    string
		python  string
		missing bool
	}{
		{"no such interpreter", filepath.Join(dir, "nowhere", "python3"), true},
		{"an interpreter without pandas", script("nopandas", "exec "+python+" -S \"$@\""), true},
		{"a check killed under load", script("killed", "kill -9 $$"), false},
		{"a check that fails otherwise", script("broken", "echo 'MemoryError' >&2; exit 1"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(sampleserver.PythonEnv, tt.python)
			_, err := sampleserver.PythonWithPandas()
			require.Error(t, err)
			assert.Equal(t, tt.missing, errors.Is(err, sampleserver.ErrNoPandas), err.Error())
			if tt.missing {
				assert.ErrorIs(t, sampleserver.CheckPandas(), sampleserver.ErrNoPandas)
				assert.Contains(t, sampleserver.CheckPandas().Error(), "apt-get install python3-pandas")
			} else {
				assert.NoError(t, sampleserver.CheckPandas(), "no skip for a reason that may be false")
			}
		})
	}
}

// Calls one at a time keep one warm worker, whatever the pool's size; the
// pool starts more only for calls that overlap, as many as overlap.
func TestPandasPoolGrowsOnlyWithOverlappingCalls(t *testing.T) {
	requirePandas(t)
	p := sampleserver.NewPandas(sampleserver.PandasConfig{Datasets: datasetsDir(t), MaxConcurrent: 4, Timeout: overlapTimeout})
	t.Cleanup(p.Close)
	t.Parallel()
	for range 3 {
		out := mustRun(t, p, "result = len(df)", "employees")
		require.False(t, out.Failed, out.Text)
	}
	require.Len(t, p.WorkerPIDs(), 1, "calls one at a time share one worker")
	first := p.WorkerPIDs()

	// Two calls that overlap: each holds its worker until both have
	// started, so the second cannot wait for the first's.
	code := overlapping(t, 2)
	errs := make(chan error, 2)
	outs := make(chan sampleserver.Execution, 2)
	for range 2 {
		go func() {
			out, err := p.Run(testContext(t), code, "employees")
			errs <- err
			outs <- out
		}()
	}
	for range 2 {
		require.NoError(t, <-errs)
		out := <-outs
		require.False(t, out.Failed, out.Text)
		assert.Equal(t, "2", out.Text, "both calls ran at once")
	}
	pids := p.WorkerPIDs()
	assert.Len(t, pids, 2, "two overlapping calls, two workers")
	assert.Subset(t, pids, first, "the warm worker served one of them")
}

// overlapTimeout bounds a run of overlapping code: the pool starts a
// second worker only after a wait as long as the first's start, and a
// start takes many seconds on a busy machine.
const overlapTimeout = 2 * time.Minute

// overlapping returns code that runs until n runs of it have started (or
// overlapTimeout nearly passed), and gives how many did: calls of it
// overlap, so none can wait for another's worker.
func overlapping(t *testing.T, n int) string {
	dir := strconv.Quote(t.TempDir())
	return `import os, time
open(os.path.join(` + dir + `, str(os.getpid())), 'w').close()
t = time.time()
while len(os.listdir(` + dir + `)) < ` + strconv.Itoa(n) + ` and time.time() - t < ` + strconv.Itoa(int(overlapTimeout.Seconds())-10) + `:
    time.sleep(0.01)
result = len(os.listdir(` + dir + `))`
}

// Calls that overlap for less time than a worker takes to start share the
// warm worker: the pool does not pay a start for them.
func TestPandasBriefOverlapsShareTheWarmWorker(t *testing.T) {
	requirePandas(t)
	p := sampleserver.NewPandas(sampleserver.PandasConfig{Datasets: datasetsDir(t), MaxConcurrent: 4})
	t.Cleanup(p.Close)
	t.Parallel()
	out := mustRun(t, p, "result = len(df)", "employees")
	require.False(t, out.Failed, out.Text)
	first := p.WorkerPIDs()
	require.Len(t, first, 1)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			out, err := p.Run(testContext(t), "result = len(df)", "employees")
			if err == nil && out.Failed {
				err = errors.New(out.Text)
			}
			errs <- err
		}()
	}
	for range 4 {
		require.NoError(t, <-errs)
	}
	assert.Equal(t, first, p.WorkerPIDs(), "four brief calls at once, one worker")
}
