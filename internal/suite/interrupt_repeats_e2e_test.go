//go:build unix

package suite_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
)

// A run with -count=3 interrupted (Ctrl-C) once repeat 0 finished: the
// case runs of repeats 1 and 2 are not run, and every count says so alike
// (the closing line, results.jsonl, summary.json, the report and JUnit);
// none of them is a run of its case, so each case passed its one run.
func TestInterruptWithRepeatsCountsCaseRunsNotRun(t *testing.T) {
	t.Parallel()
	stub, arrived, release := waitingStub(t)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cases.yaml"), []byte(caseYAML("slow 1", "slow 2")), 0o644))
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	mcpeval, err := mcpevalBinary()
	require.NoError(t, err)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(mcpeval, "ci", "--", "-count=3")
	cmd.Dir = root
	cmd.Env = filteredEnv()
	for k, v := range stubEnv(stub) {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "EVAL_CASES="+filepath.Join(dir, "cases.yaml"), "EVAL_OUT="+out,
		"EVAL_CACHE="+filepath.Join(dir, "cache.json"), "EVAL_CONCURRENCY=2", "EVAL_SERVER="+faultServer(t))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	output := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = output, output
	require.NoError(t, cmd.Start())
	// go test runs the repeats one after the other: the two cases of
	// repeat 0 wait on the model.
	for range 2 {
		select {
		case <-arrived:
		case <-time.After(90 * time.Second):
			t.Fatalf("no case reached the model: %s", output)
		}
	}
	require.NoError(t, syscall.Kill(-cmd.Process.Pid, syscall.SIGINT))
	require.Eventually(t, func() bool {
		stream, _ := filepath.Glob(filepath.Join(out, "runs", "*", "test.json"))
		for _, f := range stream {
			if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), "mcpeval: interrupted: no case starts any more") {
				return true
			}
		}
		return false
	}, 30*time.Second, 50*time.Millisecond, "the suite took the interrupt")
	release <- struct{}{}
	release <- struct{}{}
	err = cmd.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s", output)
	said := output.String()

	// The closing lines.
	assert.Regexp(t, `mcpeval: INTERRUPTED \(Ctrl-C\): 2 case runs finished, kept in \S+; 4 not run`, said)
	assert.Contains(t, said, ": 2 case runs: 2 passed, 0 failed, 0 errors, 0 token-limit, 0 cached, 4 not run;")
	assert.Contains(t, said, "mcpeval: 3 repeats (4 case runs not run, left out of the rates): pass rate 1.000, 0 flaky cases")

	run := newestRun(out)
	require.NotEmpty(t, run, said)
	// The records.
	statuses := map[eval.Status]int{}
	for _, line := range strings.Split(strings.TrimSpace(readString(t, filepath.Join(run, eval.RecordsFile))), "\n") {
		var r eval.Record
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		statuses[r.Status]++
	}
	assert.Equal(t, map[eval.Status]int{eval.Pass: 2, eval.NotRun: 4}, statuses)

	// The summary.
	var sum eval.Summary
	require.NoError(t, json.Unmarshal([]byte(readString(t, filepath.Join(run, eval.SummaryFile))), &sum))
	assert.Equal(t, []int{2, 2, 4, 3}, []int{sum.Total, sum.Passed, sum.NotRun, sum.Repeats}, "total, passed, not run, repeats")
	require.Len(t, sum.Cases, 2)
	for _, c := range sum.Cases {
		assert.Equal(t, []any{1, 1, 2, 1.0, false}, []any{c.Runs, c.Passes, c.NotRun, c.PassRate, c.Flaky}, c.Name)
	}
	require.Len(t, sum.Models, 1)
	assert.Equal(t, []int{2, 4}, []int{sum.Models[0].Runs, sum.Models[0].NotRun})

	// The report: 6 case runs, 4 of them not run; each row passed its one
	// run, with 2 not run beside.
	page := readString(t, filepath.Join(run, eval.ReportFile))
	assert.Contains(t, page, `"totals":{"total":6,"passed":2,"failed":0,"errors":0,"token_limit":0,"cut":0,"undecided":0,"skipped":0,"not_run":4,`)
	rows := regexp.MustCompile(`"marks":\["pass","not_run","not_run"\],"passes":1,"ran":1,"not_run":2,"rate":1,`).FindAllString(page, -1)
	assert.Len(t, rows, 2, "each case's row")
	for _, name := range []string{"slow 1", "slow 2"} {
		assert.Regexp(t, `"name":"`+name+`"[^}]*"status":"pass"`, page, "its own status, of the run that ran")
	}
	assert.NotContains(t, page, `"flaky":true`)

	// JUnit: the runs not run are neither failures nor runs of the case.
	junit := readString(t, filepath.Join(run, "junit.xml"))
	assert.Contains(t, junit, `failures="0"`)
	assert.NotContains(t, junit, "<failure")
	assert.Equal(t, 2, strings.Count(junit, "1 run (2 not run): pass rate 1.00; statuses pass not_run not_run"), junit)
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}
