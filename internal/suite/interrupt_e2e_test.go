//go:build unix

package suite_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

// waitingStub is a model that answers a question beginning "slow" only
// when release is sent to (or closed, when the test ends), saying on
// arrived that it got it: it calls the fault server's lookup tool, then
// answers; as judge it approves.
func waitingStub(t *testing.T) (stub *llmstub.Server, arrived <-chan string, release chan<- struct{}) {
	in, out := make(chan string, 10), make(chan struct{})
	stub = llmstub.Start(func(req llmstub.Request) llmstub.Reply {
		if req.ForcedTool() == llmstub.JudgeTool {
			return llmstub.Verdict("yes", "ok")
		}
		if q := req.Question(); strings.HasPrefix(q, "slow") && len(req.Messages) == 2 {
			in <- q
			select {
			case <-out:
			case <-time.After(time.Minute):
			}
			// Released after the interrupt: the case goes on with a tool
			// call, which its server must still be there to answer.
			return llmstub.Reply{ToolCalls: []llmstub.Call{{Name: "lookup", Arguments: `{"id":"x"}`}}}
		}
		return llmstub.Reply{Content: "x"}
	}, llmstub.Options{})
	t.Cleanup(stub.Close)
	t.Cleanup(func() { close(out) }) // runs first: the stub waits for its requests to end
	return stub, in, out
}

// Ctrl-C in a terminal interrupts the whole process group. The first
// stops starting cases and lets the running ones finish, kept (their
// stdio servers, in groups of their own, are not interrupted: the cases'
// tool calls after it are answered); the second
// cancels those, recorded as not run; either way the run ends with its
// summary and a closing line that says it was interrupted.
func TestInterruptKeepsWhatRan(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		interrupts int
		// want are the statuses of the six cases: two were running.
		wantPassed, wantNotRun int
		reason                 string
	}{
		{"once: the running cases finish", 1, 2, 4, "not started: run stopped: interrupted (Ctrl-C)"},
		{"twice: the running cases are cancelled", 2, 0, 6, "not finished: interrupted again (a second Ctrl-C): the case was cancelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stub, arrived, release := waitingStub(t)

			dir := t.TempDir()
			cases := caseYAML("slow 1", "slow 2", "slow 3", "slow 4", "slow 5", "slow 6")
			require.NoError(t, os.WriteFile(filepath.Join(dir, "cases.yaml"), []byte(cases), 0o644))
			out := filepath.Join(dir, "out")
			bins, err := evaltestBinary()
			require.NoError(t, err)
			root, err := files.ModuleRoot()
			require.NoError(t, err)
			cmd := exec.Command(bins.evaltest, "-test.v", "-test.count=1", "-test.timeout=2m")
			cmd.Dir = filepath.Join(root, "evaltest")
			cmd.Env = filteredEnv()
			for k, v := range stubEnv(stub) {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			cmd.Env = append(cmd.Env, "EVAL_CASES="+filepath.Join(dir, "cases.yaml"), "EVAL_OUT="+out,
				"EVAL_CACHE="+filepath.Join(dir, "cache.json"), "EVAL_CONCURRENCY=2", "EVAL_SERVER="+faultServer(t))
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a group of its own, as a terminal's job
			stderr, err := cmd.StderrPipe()
			require.NoError(t, err)
			var stdout strings.Builder
			cmd.Stdout = &stdout
			require.NoError(t, cmd.Start())
			lines := make(chan string, 100)
			var said strings.Builder
			go func() {
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			waitFor := func(prefix string) {
				t.Helper()
				timeout := time.After(30 * time.Second)
				for {
					select {
					case line, ok := <-lines:
						require.True(t, ok, "the suite ended before saying %q: %s", prefix, said.String())
						said.WriteString(line + "\n")
						if strings.HasPrefix(line, prefix) {
							return
						}
					case <-timeout:
						t.Fatalf("waiting for %q: %s", prefix, said.String())
					}
				}
			}
			interrupt := func() { require.NoError(t, syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)) }

			// Two cases wait on the model, the others for a slot.
			for range 2 {
				select {
				case <-arrived:
				case <-time.After(60 * time.Second):
					t.Fatal("no case reached the model")
				}
			}
			interrupt()
			waitFor("mcpeval: interrupted: no case starts any more; the running ones finish and are kept (2 cases); Ctrl-C again cancels them")
			if tc.interrupts == 2 {
				interrupt()
				waitFor("mcpeval: interrupted again: the running cases (2 cases) are cancelled and recorded as not run")
			} else {
				release <- struct{}{}
				release <- struct{}{}
			}
			start := time.Now()
			for line := range lines {
				said.WriteString(line + "\n")
			}
			err = cmd.Wait()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "an interrupted run fails: %s", said.String())
			assert.Less(t, time.Since(start), 20*time.Second, "the run ends promptly")
			output := stdout.String() + said.String()
			assert.Regexp(t, `mcpeval: INTERRUPTED \(Ctrl-C\): \d+ case runs? finished, kept in \S+; `+strings.Repeat(`\d`, 1)+` not run`, output)
			assert.Contains(t, output, ", 0 errors,", "no case is counted as an error")

			run := newestRun(out)
			require.NotEmpty(t, run, "the run is kept: %s", output)
			var sum eval.Summary
			b, err := os.ReadFile(filepath.Join(run, eval.SummaryFile))
			require.NoError(t, err, "the run has its summary")
			require.NoError(t, json.Unmarshal(b, &sum))
			assert.Equal(t, "interrupted (Ctrl-C)", sum.Stopped)
			assert.Equal(t, tc.wantPassed, sum.Passed)
			assert.Equal(t, tc.wantNotRun, sum.NotRun)
			assert.Zero(t, sum.Errors)

			f, err := os.Open(filepath.Join(run, eval.RecordsFile))
			require.NoError(t, err)
			defer f.Close()
			statuses := map[eval.Status]int{}
			reasons := map[string]bool{}
			dec := json.NewDecoder(f)
			for {
				var rec eval.Record
				if err := dec.Decode(&rec); err == io.EOF {
					break
				} else {
					require.NoError(t, err)
				}
				statuses[rec.Status]++
				reasons[rec.Reason] = true
			}
			assert.Equal(t, tc.wantPassed, statuses[eval.Pass], "passed: %v", statuses)
			assert.Equal(t, tc.wantNotRun, statuses[eval.NotRun], "not run: %v", statuses)
			assert.Len(t, statuses, 1+min(tc.wantPassed, 1), "no other status: %v", statuses)
			assert.True(t, reasons[tc.reason], "a record says %q: %v", tc.reason, reasons)
		})
	}
}

// Under mcpeval eval (gotestsum in process), an interrupt ends the run the
// same way, and the report is still written: it says the run was
// interrupted.
func TestInterruptUnderMcpevalEval(t *testing.T) {
	t.Parallel()
	stub, arrived, release := waitingStub(t)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cases.yaml"), []byte(caseYAML("slow 1", "slow 2", "slow 3", "slow 4")), 0o644))
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	mcpeval, err := mcpevalBinary()
	require.NoError(t, err)

	out := filepath.Join(dir, "out")
	cmd := exec.Command(mcpeval, "eval")
	cmd.Dir = root
	cmd.Env = filteredEnv()
	for k, v := range stubEnv(stub) {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "EVAL_CASES="+filepath.Join(dir, "cases.yaml"), "EVAL_OUT="+out,
		"EVAL_CACHE="+filepath.Join(dir, "cache.json"), "EVAL_CONCURRENCY=2", "EVAL_SERVER="+faultServer(t))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var output strings.Builder
	cmd.Stdout, cmd.Stderr = &output, &output
	require.NoError(t, cmd.Start())
	for range 2 {
		select {
		case <-arrived:
		case <-time.After(90 * time.Second):
			t.Fatal("no case reached the model")
		}
	}
	require.NoError(t, syscall.Kill(-cmd.Process.Pid, syscall.SIGINT))
	// The suite says it stopped starting cases; gotestsum writes what it
	// says into the run's go test stream as it goes.
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
	require.ErrorAs(t, err, &exit, "%s", output.String())
	assert.Equal(t, 1, exit.ExitCode(), "%s", output.String())

	run := newestRun(out)
	require.NotEmpty(t, run, output.String())
	page, err := os.ReadFile(filepath.Join(run, eval.ReportFile))
	require.NoError(t, err, "the report is written: %s", output.String())
	assert.Contains(t, string(page), "The run stopped: interrupted (Ctrl-C)")
	assert.Contains(t, output.String(), "mcpeval: INTERRUPTED (Ctrl-C): 2 case runs finished")
}

// Under mcpeval eval, an interrupt once every case has finished, while the
// report is written, keeps every result and finishes the report; the
// command ends as the run would have.
func TestInterruptWhileTheReportIsWritten(t *testing.T) {
	t.Parallel()
	stub := llmstub.Start(func(req llmstub.Request) llmstub.Reply {
		if req.ForcedTool() == llmstub.JudgeTool {
			return llmstub.Verdict("yes", "ok")
		}
		return llmstub.Reply{Content: "anything"}
	}, llmstub.Options{})
	defer stub.Close()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cases.yaml"), []byte(caseYAML("a", "b", "c")), 0o644))
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	mcpeval, err := mcpevalBinary()
	require.NoError(t, err)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(mcpeval, "eval")
	cmd.Dir = root
	cmd.Env = filteredEnv()
	for k, v := range stubEnv(stub) {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "EVAL_CASES="+filepath.Join(dir, "cases.yaml"), "EVAL_OUT="+out,
		"EVAL_CACHE="+filepath.Join(dir, "cache.json"), "EVAL_SERVER="+faultServer(t))
	output := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = output, output
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool { return strings.Contains(output.String(), "mcpeval: writing the report of run ") },
		2*time.Minute, 20*time.Millisecond, "the run reaches its report")
	// The interrupt lands while the report is written or just after: either
	// way it is taken, and the command ends as the run would have. (What it
	// says meanwhile is evalcmd's TestInterruptWhileTheReportIsWritten.)
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	require.NoError(t, cmd.Wait(), "the run passed, and its report is finished: %s", output)
	said := output.String()
	assert.NotContains(t, said, "INTERRUPTED")
	run := newestRun(out)
	require.NotEmpty(t, run, said)
	page, err := os.ReadFile(filepath.Join(run, eval.ReportFile))
	require.NoError(t, err, said)
	for _, name := range []string{"a", "b", "c"} {
		assert.Contains(t, string(page), `"name":"`+name+`"`, "every case is in the report")
	}
	assert.Contains(t, said, filepath.Join(run, eval.ReportFile), "the report's path, as without the interrupt")
}

// lockedBuffer is an output a test reads while a process writes it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// An interrupt while the servers start stops the start at once: no case
// runs and no run is kept.
func TestInterruptWhileServersStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cases.yaml"), []byte(caseYAML("a", "b")), 0o644))
	started := filepath.Join(dir, "started")
	stub := llmstub.Start(func(llmstub.Request) llmstub.Reply { return llmstub.Reply{Content: "x"} }, llmstub.Options{})
	defer stub.Close()
	bins, err := evaltestBinary()
	require.NoError(t, err)
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(bins.evaltest, "-test.count=1", "-test.timeout=2m")
	cmd.Dir = filepath.Join(root, "evaltest")
	cmd.Env = filteredEnv()
	for k, v := range stubEnv(stub) {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	// A server that starts and never answers.
	cmd.Env = append(cmd.Env, "EVAL_CASES="+filepath.Join(dir, "cases.yaml"), "EVAL_OUT="+out, "EVAL_CACHE="+filepath.Join(dir, "cache.json"),
		"EVAL_SERVER=sh -c 'touch "+started+"; exec sleep 60'")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var output strings.Builder
	cmd.Stdout, cmd.Stderr = &output, &output
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool { _, err := os.Stat(started); return err == nil }, 60*time.Second, 20*time.Millisecond, "the server starts")
	require.NoError(t, syscall.Kill(-cmd.Process.Pid, syscall.SIGINT))
	begin := time.Now()
	err = cmd.Wait()
	assert.Less(t, time.Since(begin), 10*time.Second, "the start stops at once")
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s", output.String())
	assert.Contains(t, output.String(), "mcpeval: INTERRUPTED (Ctrl-C) while the servers started: no case ran, so no run was kept (latest is unchanged)")
	assert.Empty(t, newestRun(out), "no run is kept")
}
