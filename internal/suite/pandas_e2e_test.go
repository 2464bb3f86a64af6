package suite_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/llmstub"
	"github.com/mcpeval/mcpeval/internal/sampleserver"
)

// pandasCases are code cases (and one tool case) whose reference
// trajectories the stub model replays.
var pandasCases = func() string {
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, `
- case:
    name: "Headcount %d"
    category: "Data Analysis"
    kind: code
    input: "How many employees are there in the employees dataset (question %d)?"
    expected: "60"
    checks: {numbers: [{value: 60, tolerance: 0}]}
    reference:
      - {tool: run_pandas, args: {dataset: employees, code: "result = len(df)"}}
`, i, i)
	}
	return b.String() + geneCases
}()

// pythonWithoutPandas writes a python3 that cannot import pandas (the real
// interpreter without its site-packages) and logs every start to a file.
func pythonWithoutPandas(t *testing.T) (python, log string) {
	t.Helper()
	real, err := sampleserver.Python()
	if err != nil {
		t.Skip(err.Error())
	}
	dir := t.TempDir()
	python, log = filepath.Join(dir, "python3"), filepath.Join(dir, "starts.log")
	script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %q\nexec %q -S \"$@\"\n", log, real)
	require.NoError(t, os.WriteFile(python, []byte(script), 0o755))
	return python, log
}

// pandasChecks counts the pandas checks among the logged starts.
func pandasChecks(t *testing.T, log string) int {
	t.Helper()
	data, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return 0
	}
	require.NoError(t, err)
	return strings.Count(string(data), `find_spec("pandas")`)
}

// Without pandas, code cases are skipped with the install hint and the run
// passes; the check runs once per run, not once per code case.
func TestCodeCasesWithoutPandasAreSkippedOnce(t *testing.T) {
	t.Parallel()
	python, log := pythonWithoutPandas(t)
	r := runSuite(t, t.TempDir(), pandasCases, env{"EVAL_REFERENCE": "1", sampleserver.PythonEnv: python,
		"EVAL_CONCURRENCY": "4"})
	require.NoError(t, r.err, r.output)
	skipped := 0
	for i := range 6 {
		test := fmt.Sprintf("TestDataAnalysis/Headcount_%d", i)
		if r.status(test) == "skip" {
			skipped++
		}
	}
	assert.Equal(t, 6, skipped, r.output)
	assert.Contains(t, r.output, "code case: the bundled server cannot run pandas: python3 with pandas is not installed: apt-get install python3-pandas")
	assert.Equal(t, eval.Pass, r.records["NUTM2G symbol"].Status, "the tool cases run")
	assert.Equal(t, 1, pandasChecks(t, log), "one check per run")
}

// The check comes after the cache: a cached pass needs no pandas, and a
// fully cached run starts no Python at all.
func TestCachedCodeCasesNeedNoPandas(t *testing.T) {
	t.Parallel()
	requirePandas(t)
	withPandas, err := sampleserver.PythonWithPandas()
	require.NoError(t, err)
	stub := llmstub.Start(llmstub.Replay(mustParse(t, pandasCases)), llmstub.Options{})
	defer stub.Close()
	dir := t.TempDir()
	first := stubEnv(stub)
	first[sampleserver.PythonEnv] = withPandas
	r := runSuite(t, dir, pandasCases, first)
	require.NoError(t, r.err, r.output)
	require.Equal(t, eval.Pass, r.records["Headcount 0"].Status, r.records["Headcount 0"].Reason)

	python, log := pythonWithoutPandas(t)
	again := stubEnv(stub)
	again[sampleserver.PythonEnv] = python
	r = runSuite(t, dir, pandasCases, again)
	require.NoError(t, r.err, r.output)
	for i := range 6 {
		rec := r.records[fmt.Sprintf("Headcount %d", i)]
		assert.Equal(t, eval.Pass, rec.Status, rec.Name)
		assert.True(t, rec.Cached, rec.Name)
	}
	assert.NotContains(t, r.output, "cannot run pandas")
	assert.Zero(t, pandasChecks(t, log), "no check for cached cases")
	_, err = os.Stat(log)
	assert.True(t, os.IsNotExist(err), "no Python started at all")
}
