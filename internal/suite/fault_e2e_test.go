package suite_test

// The fault suite: the real suite against a misbehaving stub provider and a
// misbehaving MCP server (testdata/faultserver).

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

// faultServerPath is testdata/faultserver, built by TestMain.
var faultServerPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "faultserver")
	if err != nil {
		panic(err)
	}
	faultServerPath = filepath.Join(dir, "faultserver")
	cmd := exec.Command("go", "build", "-o", faultServerPath, "./testdata/faultserver")
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build faultserver: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func faultServer(*testing.T) string { return faultServerPath }

// toolThenAnswer is a responder that, for each question, makes the given
// tool calls in its first turn and then answers.
func toolThenAnswer(plan map[string]llmstub.Reply, answer func(q string) string) llmstub.Responder {
	return func(req llmstub.Request) llmstub.Reply {
		if req.ForcedTool() == llmstub.JudgeTool {
			return llmstub.Verdict("yes", "acceptable")
		}
		q := req.Question()
		if first, ok := plan[q]; ok && len(req.Messages) == 2 {
			return first
		}
		return llmstub.Reply{Content: answer(q)}
	}
}

func caseYAML(names ...string) string {
	var b strings.Builder
	for _, n := range names {
		b.WriteString("- case:\n    name: \"" + n + "\"\n    category: \"Faults\"\n    input: \"" + n + "\"\n    expected: \"anything\"\n")
	}
	return b.String()
}

func TestHostileModelAndToolOutput(t *testing.T) {
	server := faultServer(t)
	many := make([]llmstub.Call, 300)
	for i := range many {
		many[i] = llmstub.Call{Name: "lookup", Arguments: `{"id":"x"}`}
	}
	plan := map[string]llmstub.Reply{
		"bad-json":     {ToolCalls: []llmstub.Call{{Name: "lookup", Arguments: `{"id": `}}},
		"unknown-tool": {ToolCalls: []llmstub.Call{{Name: "rm_rf", Arguments: `{}`}}},
		"many-calls":   {ToolCalls: many},
		"binary-tool":  {ToolCalls: []llmstub.Call{{Name: "binary", Arguments: `{}`}}},
		"huge-tool":    {ToolCalls: []llmstub.Call{{Name: "huge", Arguments: `{}`}}},
	}
	stub := llmstub.Start(toolThenAnswer(plan, func(q string) string {
		switch q {
		case "empty-answer":
			return "   "
		case "enormous-answer":
			return strings.Repeat("a very long answer ", 200_000)
		}
		return "done"
	}), llmstub.Options{})
	defer stub.Close()
	e := stubEnv(stub)
	e["EVAL_SERVER"] = server
	r := runSuite(t, t.TempDir(), caseYAML("bad-json", "unknown-tool", "many-calls", "binary-tool", "huge-tool", "empty-answer", "enormous-answer"), e)
	require.Len(t, r.records, 7, r.output)

	rec := r.records["bad-json"]
	assert.Equal(t, eval.Pass, rec.Status, "the model saw the error and answered")
	assert.Contains(t, rec.ToolCalls[0].Result, "invalid JSON arguments")

	assert.Contains(t, r.records["unknown-tool"].ToolCalls[0].Result, `unknown tool \"rm_rf\"`)

	rec = r.records["many-calls"]
	assert.Equal(t, eval.Pass, rec.Status)
	assert.Len(t, rec.ToolCalls, 300, "every call is answered")

	rec = r.records["binary-tool"]
	assert.True(t, utf8.ValidString(rec.ToolCalls[0].Result))
	assert.Contains(t, rec.ToolCalls[0].Result, "binary")

	assert.Equal(t, eval.TokenLimit, r.records["huge-tool"].Status)
	assert.Equal(t, eval.Fail, r.records["empty-answer"].Status)
	assert.Equal(t, "the model gave an empty answer", r.records["empty-answer"].Reason)
	rec = r.records["enormous-answer"]
	assert.Equal(t, eval.TokenLimit, rec.Status)
	assert.Contains(t, rec.Reason, "evaluation skipped: judge prompt token count exceeded")
}

func TestServerFailingAtStartReportsItsStderr(t *testing.T) {
	server := faultServer(t)
	stub := llmstub.Start(llmstub.Replay(nil), llmstub.Options{})
	defer stub.Close()
	e := stubEnv(stub)
	// The server's own environment comes from a servers file.
	dir := t.TempDir()
	config, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"fault": map[string]any{"command": server, "env": map[string]string{"FAULTSERVER_FAIL_START": "1"}},
	}})
	require.NoError(t, err)
	e["EVAL_SERVERS_FILE"] = filepath.Join(dir, ".mcp.json")
	require.NoError(t, os.WriteFile(e["EVAL_SERVERS_FILE"], config, 0o644))
	r := runSuite(t, dir, caseYAML("a", "b"), e)
	require.Error(t, r.err)
	assert.Contains(t, r.output, "cannot open database: permission denied", "the server's stderr is shown")
	assert.Empty(t, r.ran())
}

// The whole corpus against a provider that answers 20% of requests with 429
// (with Retry-After) and 5% with 500: every case still gets its verdict, and
// the summary counts the retries.
func TestThrottlingProviderStillGivesEveryVerdict(t *testing.T) {
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	corpus, err := evalcase.LoadPath(filepath.Join(root, "cases"))
	require.NoError(t, err)
	stub := llmstub.Start(llmstub.Replay(corpus), llmstub.Options{Rate429: 0.2, Rate500: 0.05, RetryAfter: "0.01", Seed: 3})
	defer stub.Close()
	e := stubEnv(stub)
	e["EVAL_CASES"] = filepath.Join(root, "cases")
	e["EVAL_MAX_RETRIES"] = "20"
	e["EVAL_RETRY_WAIT"] = "10ms"
	e["EVAL_RETRY_MAX_WAIT"] = "50ms"
	r := runSuite(t, t.TempDir(), "", e)
	require.Len(t, r.records, len(corpus), r.output)
	for name, rec := range r.records {
		assert.NotEqual(t, eval.Error, rec.Status, "%s: %s", name, rec.Reason)
		if rec.Kind == "tool" {
			assert.Equal(t, eval.Pass, rec.Status, "%s: %s", name, rec.Reason)
		}
	}
	var sum eval.Summary
	readJSON(t, filepath.Join(r.out, eval.SummaryFile), &sum)
	assert.Equal(t, stub.Faults(), sum.Retries, "every injected fault was retried and counted")
	assert.Greater(t, sum.Retries, len(corpus)/2)
	t.Logf("%d cases: %d passed, %d failed, %d errors; %d requests, %d injected faults, %d retries",
		sum.Total, sum.Passed, sum.Failed, sum.Errors, stub.Requests(), stub.Faults(), sum.Retries)
	assert.Contains(t, r.output, fmt.Sprintf("%d retries", sum.Retries))
}

func TestServerCrashMidRunIsRestarted(t *testing.T) {
	plan := map[string]llmstub.Reply{
		"slow-1": {ToolCalls: []llmstub.Call{{Name: "slow", Arguments: `{}`}}},
		"slow-2": {ToolCalls: []llmstub.Call{{Name: "slow", Arguments: `{}`}}},
		"crash":  {ToolCalls: []llmstub.Call{{Name: "crash", Arguments: `{}`}}, Delay: 300 * time.Millisecond},
	}
	names := []string{"slow-1", "slow-2", "crash"}
	for i := range 5 {
		q := fmt.Sprintf("lookup-%d", i)
		names = append(names, q)
		plan[q] = llmstub.Reply{ToolCalls: []llmstub.Call{{Name: "lookup", Arguments: fmt.Sprintf(`{"id":"%d"}`, i)}}}
	}
	stub := llmstub.Start(toolThenAnswer(plan, func(string) string { return "done" }), llmstub.Options{})
	defer stub.Close()
	e := stubEnv(stub)
	e["EVAL_SERVER"] = faultServer(t)
	e["EVAL_CONCURRENCY"] = "3"
	r := runSuite(t, t.TempDir(), caseYAML(names...), e)
	require.Error(t, r.err)
	require.Len(t, r.records, len(names), r.output)

	crash := r.records["crash"]
	assert.Equal(t, eval.Error, crash.Status)
	assert.Contains(t, crash.Reason, "MCP server fault")
	assert.Contains(t, crash.ServerStderr, "panic: index out of range", "the server's stderr is attached")
	for name, rec := range r.records {
		switch {
		case strings.HasPrefix(name, "lookup-"):
			assert.Equal(t, eval.Pass, rec.Status, "%s ran after the restart: %s", name, rec.Reason)
		case rec.Status != eval.Pass:
			assert.Equal(t, eval.Error, rec.Status, "%s was in flight during the crash", name)
		}
	}
	var sum eval.Summary
	readJSON(t, filepath.Join(r.out, eval.SummaryFile), &sum)
	assert.Equal(t, 1, sum.ServerRestarts)
	assert.Contains(t, r.output, "restarted 1 times")
}

func TestGoTestTimeoutKeepsFinishedResults(t *testing.T) {
	stub := llmstub.Start(func(req llmstub.Request) llmstub.Reply {
		if req.ForcedTool() != "" {
			return llmstub.Verdict("yes", "ok")
		}
		if strings.HasPrefix(req.Question(), "stuck") {
			return llmstub.Reply{Content: "late", Delay: 30 * time.Second}
		}
		return llmstub.Reply{Content: "quick"}
	}, llmstub.Options{})
	defer stub.Close()
	e := stubEnv(stub)
	e["EVAL_SERVER"] = faultServer(t)
	start := time.Now()
	r := runSuite(t, t.TempDir(), caseYAML("quick-1", "quick-2", "stuck-1", "stuck-2"), e, "-timeout", "9s")
	require.Error(t, r.err)
	assert.Less(t, time.Since(start), 25*time.Second)
	assert.NotContains(t, r.output, "panic: test timed out", "cases end before go test's deadline")
	assert.Equal(t, eval.Pass, r.records["quick-1"].Status)
	assert.Equal(t, eval.Pass, r.records["quick-2"].Status)
	for _, name := range []string{"stuck-1", "stuck-2"} {
		rec := r.records[name]
		assert.Equal(t, eval.Error, rec.Status)
		assert.Contains(t, rec.Reason, "go test -timeout is about to expire", "it says what to raise")
	}
}
