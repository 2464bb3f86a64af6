package suite_test

// The fault suite: the real suite against a misbehaving stub provider and a
// misbehaving MCP server (testdata/faultserver).

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/llmstub"
	"github.com/mcpeval/mcpeval/internal/sampleserver"
)

// faultServerPath is testdata/faultserver, built by TestMain.
var faultServerPath string

// TestMain runs the package's tests, or, run as one of the scripts'
// commands (testscript.Main puts it on their PATH as evaltest), the
// command.
func TestMain(m *testing.M) {
	testscript.Main(packageTests{m}, map[string]func(){"evaltest": func() { os.Exit(evaltestCommand()) }})
}

// packageTests runs the package's tests with what they share built first.
type packageTests struct{ m *testing.M }

func (p packageTests) Run() int {
	m := p.m
	if urlFile := os.Getenv(providerProcessEnv); urlFile != "" {
		serveProvider(urlFile) // a provider process a test kills
	}
	dir, err := os.MkdirTemp("", "faultserver")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	builtDir = dir
	faultServerPath = filepath.Join(dir, executable("faultserver"))
	cmd := exec.Command("go", "build", "-o", faultServerPath, "./testdata/faultserver")
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build faultserver: %v\n%s", err, out)
		return 1
	}
	return m.Run()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	runnable := len(corpus)
	if sampleserver.CheckPandas() != nil {
		runnable = len(slices.DeleteFunc(slices.Clone(corpus), func(c eval.Case) bool { return c.Kind == eval.KindCode }))
	}
	require.Len(t, r.records, runnable, "without pandas the code cases are skipped: %s", r.output)
	for name, rec := range r.records {
		assert.NotEqual(t, eval.Error, rec.Status, "%s: %s", name, rec.Reason)
		if rec.Kind == "tool" {
			assert.Equal(t, eval.Pass, rec.Status, "%s: %s", name, rec.Reason)
		}
	}
	var sum eval.Summary
	readJSON(t, filepath.Join(r.out, eval.SummaryFile), &sum)
	assert.Equal(t, stub.Faults(), sum.Usage.Retries, "every injected fault was retried and counted")
	assert.Greater(t, sum.Usage.Retries, len(corpus)/2)
	t.Logf("%d cases: %d passed, %d failed, %d errors; %d requests, %d injected faults, %d retries",
		sum.Total, sum.Passed, sum.Failed, sum.Errors, stub.Requests(), stub.Faults(), sum.Usage.Retries)
	assert.Contains(t, r.output, fmt.Sprintf("%d retries", sum.Usage.Retries))
}

func TestServerCrashMidRunIsRestarted(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	stub := llmstub.Start(func(req llmstub.Request) llmstub.Reply {
		if req.ForcedTool() != "" {
			return llmstub.Verdict("yes", "ok")
		}
		if strings.HasPrefix(req.Question(), "stuck") {
			return llmstub.Reply{Content: "late", Delay: 10 * time.Minute}
		}
		return llmstub.Reply{Content: "quick"}
	}, llmstub.Options{})
	defer stub.Close()
	e := stubEnv(stub)
	e["EVAL_SERVER"] = faultServer(t)
	start := time.Now()
	// The quick cases have 15 s (the last 5 s before the deadline are
	// the stuck cases' to end): plenty on a busy machine.
	r := runSuite(t, t.TempDir(), caseYAML("quick-1", "quick-2", "stuck-1", "stuck-2"), e, "-timeout", "20s")
	require.Error(t, r.err)
	assert.Less(t, time.Since(start), 5*time.Minute, "the stuck cases were not waited out")
	assert.NotContains(t, r.output, "panic: test timed out", "cases end before go test's deadline")
	assert.Equal(t, eval.Pass, r.records["quick-1"].Status)
	assert.Equal(t, eval.Pass, r.records["quick-2"].Status)
	for _, name := range []string{"stuck-1", "stuck-2"} {
		rec := r.records[name]
		assert.Equal(t, eval.Error, rec.Status)
		assert.Contains(t, rec.Reason, "go test -timeout is about to expire", "it says what to raise")
	}
}

// A model's answer and a judge's reason full of terminal control sequences
// reach the test output (terminal, CI log) escaped: nothing clears the
// screen, sets the window title, erases text or reverses what follows.
func TestControlCharactersInModelTextAreEscapedInTestOutput(t *testing.T) {
	t.Parallel()
	const hostile = "before\x1b[2J\x1b]0;pwned\x07\x00nul\bback\u202egnp.exe\u009b31m after"
	stub := llmstub.Start(func(req llmstub.Request) llmstub.Reply {
		if req.ForcedTool() == llmstub.JudgeTool {
			return llmstub.Verdict("no", "judge says "+hostile)
		}
		return llmstub.Reply{Content: "answer " + hostile}
	}, llmstub.Options{})
	defer stub.Close()
	e := stubEnv(stub)
	e["EVAL_SERVER"] = faultServer(t)
	r := runSuite(t, t.TempDir(), caseYAML("terminal"), e)
	rec := r.records["terminal"]
	require.Equal(t, eval.Fail, rec.Status, r.output)
	assert.Equal(t, "answer "+hostile, rec.Response, "the record keeps the answer as it was")

	for _, raw := range []string{"\x1b", "\x07", "\x00", "\b", "\u202e", "\u009b"} {
		assert.False(t, strings.Contains(r.output, raw), "%q reached the test output", raw)
	}
	escaped := `before\x1b[2J\x1b]0;pwned\x07\x00nul\x08back\u202egnp.exe\x9b31m after`
	assert.Contains(t, r.output, "answer: answer "+escaped)
	assert.Contains(t, r.output, "fail (judge: no): judge says "+escaped)
}

// Enormous answers and an enormous tool result are stored cut, with their
// full sizes, and a reply beyond what any model sends is not read at all:
// results.jsonl and the cache stay small.
func TestEnormousAnswersAndToolResultsAreStoredCut(t *testing.T) {
	t.Parallel()
	// The answers are five times what a record keeps of a text, more than
	// the MiB past which the tokens of a text are counted in parts, and
	// their three cases would store more than the sizes checked below if
	// they were kept whole: what is checked does not depend on their size
	// beyond that (answers of 4 MiB cost some 15 CPU seconds of grading).
	const answerBytes, hostileBytes = 5 * eval.MaxStoredText, 50 << 20
	answer := strings.Repeat("enormous answer ", answerBytes/16)
	hostile := strings.Repeat("hostile answer! ", hostileBytes/16)
	plan := map[string]llmstub.Reply{"huge-tool": {ToolCalls: []llmstub.Call{{Name: "huge", Arguments: `{}`}}}}
	stub := llmstub.Start(toolThenAnswer(plan, func(q string) string {
		switch q {
		case "huge-tool":
			return "short answer"
		case "hostile":
			return hostile
		}
		return answer
	}), llmstub.Options{})
	defer stub.Close()
	e := stubEnv(stub)
	e["EVAL_SERVER"] = faultServer(t)
	e["EVAL_MAX_TOKENS"] = "0" // no token limit: every text reaches the judge and the records
	dir := t.TempDir()
	r := runSuite(t, dir, caseYAML("answer-1", "answer-2", "answer-3", "hostile", "huge-tool"), e)
	require.Len(t, r.records, 5, r.output)

	for _, name := range []string{"answer-1", "answer-2", "answer-3"} {
		rec := r.records[name]
		assert.Equal(t, eval.Pass, rec.Status, "%s: %s", name, rec.Reason)
		assert.Equal(t, answerBytes, rec.ResponseBytes, "%s: the full size is recorded", name)
		assert.LessOrEqual(t, len(rec.Response), eval.MaxStoredText)
		assert.True(t, strings.HasSuffix(rec.Response, fmt.Sprintf("\n[cut: %d bytes in all, the first %d kept]",
			answerBytes, eval.MaxStoredText-64)), "%s: the cut is marked", name)
		final := rec.Conversation[len(rec.Conversation)-1]
		assert.Equal(t, answerBytes, final.ContentBytes)
		assert.Equal(t, rec.Response, final.Content)
	}
	rec := r.records["hostile"]
	assert.Equal(t, eval.Fail, rec.Status)
	assert.Contains(t, rec.Reason, "the model's reply was not read: the response of")
	assert.Contains(t, rec.Reason, "is larger than the 8 MiB a response may have")
	assert.Greater(t, rec.ResponseBytes, hostileBytes, "the size of the whole response is recorded")
	assert.Empty(t, rec.Response)

	rec = r.records["huge-tool"]
	require.Len(t, rec.ToolCalls, 1)
	assert.Greater(t, rec.ToolCalls[0].ResultBytes, eval.MaxStoredText)
	assert.LessOrEqual(t, len(rec.ToolCalls[0].Result), eval.MaxStoredText)
	assert.Contains(t, rec.ToolCalls[0].Result, fmt.Sprintf("[cut: %d bytes in all", rec.ToolCalls[0].ResultBytes))
	assert.Equal(t, rec.ToolCalls[0].ResultBytes, rec.Conversation[3].ContentBytes)

	// Five cases, each storing a few texts of at most MaxStoredText.
	records, err := os.Stat(filepath.Join(r.out, eval.RecordsFile))
	require.NoError(t, err)
	assert.Less(t, records.Size(), int64(5*4*eval.MaxStoredText))
	var cached int64
	for _, name := range []string{"cache.json", "cache.json.journal"} {
		if info, err := os.Stat(filepath.Join(dir, name)); err == nil {
			cached += info.Size()
		}
	}
	assert.Positive(t, cached, "the passes are cached")
	assert.Less(t, cached, int64(5*4*eval.MaxStoredText))
}

// The token limit counts in cl100k_base, as documented, whatever the model,
// and reports a huge result's whole count; usage the provider did not
// report is estimated in the encoding of the model asked.
func TestTokensAreCountedAsDocumented(t *testing.T) {
	t.Parallel()
	chinese := strings.Repeat("遗传学研究助理", 1000) // 12,000 tokens in cl100k_base, 6,012 in o200k_base
	t.Run("token limit", func(t *testing.T) {
		plan := map[string]llmstub.Reply{"huge-tool": {ToolCalls: []llmstub.Call{{Name: "huge", Arguments: `{}`}}}}
		stub := llmstub.Start(toolThenAnswer(plan, func(string) string { return chinese }), llmstub.Options{})
		defer stub.Close()
		e := stubEnv(stub)
		e["EVAL_SERVER"] = faultServer(t)
		e["EVAL_MODEL"] = "openai/gpt-4o" // o200k_base
		e["EVAL_MAX_TOKENS"] = "9000"
		r := runSuite(t, t.TempDir(), caseYAML("huge-tool", "chinese-answer"), e)
		rec := r.records["huge-tool"]
		assert.Equal(t, eval.TokenLimit, rec.Status)
		assert.Equal(t, "token count exceeded: 510,002 > 9,000 (result of tool huge)", rec.Reason, "the whole result's count")
		rec = r.records["chinese-answer"]
		assert.Equal(t, eval.TokenLimit, rec.Status, "over the limit in cl100k_base, not in o200k_base: %s", rec.Reason)
		assert.Regexp(t, `^evaluation skipped: judge prompt token count exceeded: 12,\d{3} > 9,000$`, rec.Reason)
	})
	t.Run("usage estimates", func(t *testing.T) {
		// The same unreported usage, judged by models of two encodings.
		estimated := func(judge string) int {
			stub := llmstub.Start(func(req llmstub.Request) llmstub.Reply {
				if req.ForcedTool() == llmstub.JudgeTool {
					reply := llmstub.Verdict("yes", chinese)
					reply.NoUsage = true
					return reply
				}
				return llmstub.Reply{Content: chinese, NoUsage: true}
			}, llmstub.Options{})
			defer stub.Close()
			e := stubEnv(stub)
			e["EVAL_SERVER"] = faultServer(t)
			e["EVAL_JUDGE_MODEL"] = judge
			r := runSuite(t, t.TempDir(), caseYAML("estimated"), e)
			rec := r.records["estimated"]
			require.Equal(t, eval.Pass, rec.Status, rec.Reason)
			require.True(t, rec.Usage.Estimated)
			return rec.Usage.TotalTokens
		}
		cl100k, o200k := estimated("judge-of-cl100k"), estimated("openai/gpt-4o")
		// The judge reads the answer and writes it back as its reason: some
		// 12,000 tokens fewer in o200k_base each way.
		assert.Greater(t, cl100k-o200k, 2*5000, "cl100k_base judge %d tokens, o200k_base judge %d", cl100k, o200k)
	})
}
