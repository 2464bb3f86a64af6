package suite_test

import (
	"bufio"
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
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

// A suite process killed (SIGKILL) mid-run keeps every pass it finished:
// the next run reuses them and runs only the rest.
func TestKilledRunKeepsFinishedPasses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root, bin := buildSuite(t, dir)

	var stuck atomic.Bool
	stuck.Store(true)
	stub := llmstub.Start(func(req llmstub.Request) llmstub.Reply {
		if req.ForcedTool() != "" {
			return llmstub.Verdict("yes", "ok")
		}
		if strings.HasPrefix(req.Question(), "slow") && stuck.Load() {
			return llmstub.Reply{Content: "late", Delay: time.Minute}
		}
		return llmstub.Reply{Content: "done"}
	}, llmstub.Options{})
	defer stub.Close()

	cases := caseYAML("fast-1", "fast-2", "fast-3", "slow-1")
	casePath := filepath.Join(dir, "cases.yaml")
	require.NoError(t, os.WriteFile(casePath, []byte(cases), 0o644))
	cmd := exec.Command(bin, "-test.count=1")
	cmd.Dir = filepath.Join(root, "evaltest")
	cmd.Env = append(filteredEnv(), "EVAL_CASES="+casePath, "EVAL_OUT="+filepath.Join(dir, "out"),
		"EVAL_CACHE="+filepath.Join(dir, "cache.json"), "OPENAI_BASE_URL="+stub.BaseURL(), "EVAL_MODEL=stub-model",
		"EVAL_SERVER="+faultServer(t))
	require.NoError(t, cmd.Start())

	// Wait until the three fast cases are recorded, then kill the run.
	require.Eventually(t, func() bool {
		return countLines(filepath.Join(newestRun(filepath.Join(dir, "out")), eval.RecordsFile)) >= 3
	}, 30*time.Second, 20*time.Millisecond)
	require.NoError(t, cmd.Process.Kill())
	cmd.Wait()

	stuck.Store(false)
	before := len(stub.Received())
	e := stubEnv(stub)
	e["EVAL_SERVER"] = faultServer(t)
	r := runSuite(t, dir, cases, e)
	require.NoError(t, r.err, r.output)
	for _, name := range []string{"fast-1", "fast-2", "fast-3"} {
		assert.True(t, r.records[name].Cached, "%s finished before the kill and is reused", name)
		assert.Zero(t, requestsFor(stub, before, name))
	}
	assert.False(t, r.records["slow-1"].Cached)
	assert.Equal(t, eval.Pass, r.records["slow-1"].Status)
}

func countLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		n++
	}
	return n
}

// buildSuite compiles the suite (go test -c ./evaltest) into dir and
// returns the module root and the binary, which runs from the root's
// evaltest directory.
func buildSuite(t *testing.T, dir string) (root, bin string) {
	t.Helper()
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	bin = filepath.Join(dir, executable("evaltest.test"))
	build := exec.Command("go", "test", "-c", "-o", bin, "./evaltest")
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))
	return root, bin
}
