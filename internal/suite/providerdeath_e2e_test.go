package suite_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

// providerProcessEnv, set to a file's path, makes the test binary a
// provider process (see serveProvider).
const providerProcessEnv = "MCPEVAL_TEST_PROVIDER_URL_FILE"

// askedSuffix names, beside the provider's URL file, the file it writes
// once the cases that wait for their answers have been asked.
const askedSuffix = ".asked"

// serveProvider serves a stub provider until the process is killed, and
// writes its base URL to urlFile. Its first two cases are answered at
// once, every later one after ten minutes; every judge says yes. Once
// four cases have been asked it writes urlFile+askedSuffix.
func serveProvider(urlFile string) {
	var asked atomic.Int64
	stub := llmstub.Start(func(req llmstub.Request) llmstub.Reply {
		if req.ForcedTool() != "" {
			return llmstub.Verdict("yes", "ok")
		}
		if !strings.HasPrefix(req.Question(), "case-") {
			return llmstub.Reply{Content: "done"}
		}
		switch n := asked.Add(1); {
		case n <= 2:
			return llmstub.Reply{Content: "done"}
		case n == 4:
			if os.WriteFile(urlFile+askedSuffix, nil, 0o644) != nil {
				os.Exit(2)
			}
		}
		return llmstub.Reply{Content: "late", Delay: 10 * time.Minute}
	}, llmstub.Options{})
	tmp := urlFile + ".tmp"
	if os.WriteFile(tmp, []byte(stub.BaseURL()), 0o644) != nil || os.Rename(tmp, urlFile) != nil {
		os.Exit(2)
	}
	select {}
}

// A provider killed mid-run (SIGKILL: nothing listens any more) stops the
// run within seconds: the cases under way end as errors that say so, every
// case not started is recorded as not run with the reason, and what had
// finished is kept.
func TestProviderKilledMidRunStopsTheRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	urlFile := filepath.Join(dir, "provider-url")
	provider := exec.Command(os.Args[0], "-test.run=^$")
	provider.Env = append(os.Environ(), providerProcessEnv+"="+urlFile)
	require.NoError(t, provider.Start())
	t.Cleanup(func() { provider.Process.Kill(); provider.Wait() })
	var base string
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(urlFile)
		base = string(b)
		return err == nil
	}, 30*time.Second, 20*time.Millisecond)

	var names []string
	for i := range 10 {
		names = append(names, "case-"+string(rune('a'+i)))
	}
	e := env{"OPENAI_BASE_URL": base, "EVAL_MODEL": "stub-model", "EVAL_SERVER": faultServer(t), "EVAL_CONCURRENCY": "2"}
	done := make(chan run, 1)
	go func() { done <- runSuite(t, dir, caseYAML(names...), e) }()

	// Two cases pass; the next two wait for their answers.
	require.Eventually(t, func() bool {
		return countLines(filepath.Join(newestRun(filepath.Join(dir, "out")), eval.RecordsFile)) >= 2
	}, 3*time.Minute, 20*time.Millisecond)
	require.Eventually(t, func() bool { // the next two are asked
		_, err := os.Stat(urlFile + askedSuffix)
		return err == nil
	}, time.Minute, 10*time.Millisecond)
	require.NoError(t, provider.Process.Kill())
	killed := time.Now()
	var r run
	select {
	case r = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the run did not end within 2 minutes of the provider's death")
	}
	took := time.Since(killed)
	t.Logf("the run ended %s after the provider was killed", took.Round(time.Millisecond))
	assert.Less(t, took, 10*time.Second, "the run ends within 10 s of the provider's death")

	require.Error(t, r.err, "a stopped run fails")
	stop := "run stopped: the provider at " + base + " stopped answering mid-run ("
	assert.Contains(t, r.output, stop)
	assert.Contains(t, r.output, "connection refused")

	require.Len(t, r.records, len(names), "every case has a record")
	count := map[eval.Status]int{}
	for _, rec := range r.records {
		count[rec.Status]++
		switch rec.Status {
		case eval.Pass:
		case eval.Error:
			assert.Contains(t, rec.Reason, "the provider at "+base+" cannot be reached: ", rec.Name)
		case eval.NotRun:
			assert.True(t, strings.HasPrefix(rec.Reason, "not started: run stopped: the provider at "+base+" stopped answering mid-run"), rec.Reason)
		default:
			t.Errorf("%s: unexpected status %s (%s)", rec.Name, rec.Status, rec.Reason)
		}
	}
	assert.Equal(t, 2, count[eval.Pass], "what finished is kept")
	assert.Equal(t, 2, count[eval.Error], "the two under way end as errors")
	assert.Equal(t, 6, count[eval.NotRun])

	var sum eval.Summary
	readJSON(t, filepath.Join(r.out, eval.SummaryFile), &sum)
	assert.Equal(t, 6, sum.NotRun)
	assert.Contains(t, sum.Stopped, "stopped answering mid-run")
}
