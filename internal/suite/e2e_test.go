package suite_test

// End-to-end tests: the real suite (go test ./evaltest -json) as a
// subprocess, against an OpenAI-compatible stub served by the test and the
// bundled sample server over stdio.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/llmstub"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/settings"
)

// testEvent is one event of go test -json.
type testEvent struct {
	Action, Test, Output string
	Key, Value           string
}

// run is the outcome of one suite run.
type run struct {
	events  []testEvent
	records map[string]eval.Record // by case name (the last one written)
	// allRecords are every record written, in order.
	allRecords []eval.Record
	output     string // every output line
	err        error
	out        string
}

// status returns the final action (pass, fail, skip) of a test.
func (r run) status(test string) string {
	st := ""
	for _, e := range r.events {
		if e.Test == test && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
			st = e.Action
		}
	}
	return st
}

// ran returns the names of the case subtests that ran (depth 2 or more).
func (r run) ran() []string {
	var names []string
	for _, e := range r.events {
		if e.Action == "run" && strings.Count(e.Test, "/") >= 1 {
			names = append(names, e.Test)
		}
	}
	return names
}

type env map[string]string

// runSuite runs go test ./evaltest -json with the given case file content,
// environment and extra arguments. dir holds out/ and the cache.
func runSuite(t *testing.T, dir, cases string, e env, args ...string) run {
	t.Helper()
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	casePath := filepath.Join(dir, "cases.yaml")
	if cases != "" {
		require.NoError(t, os.WriteFile(casePath, []byte(cases), 0o644))
	}
	out := filepath.Join(dir, "out")
	bins, err := evaltestBinary()
	require.NoError(t, err)
	cmd := exec.Command(bins.test2json, append([]string{"-p", evaltestPackage, "-t", bins.evaltest,
		"-test.v=test2json", "-test.paniconexit0", "-test.timeout=10m", "-test.count=1"}, testFlags(args)...)...)
	cmd.Dir = filepath.Join(root, "evaltest") // where go test runs it
	cmd.Env = filteredEnv()
	base := env{"EVAL_CASES": casePath, "EVAL_OUT": out, "EVAL_CACHE": filepath.Join(dir, "cache.json")}
	for k, v := range base {
		if _, set := e[k]; !set {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	for k, v := range e {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stdout
	r := run{err: cmd.Run(), records: map[string]eval.Record{}, out: out}
	var text strings.Builder
	for _, line := range strings.Split(stdout.String(), "\n") {
		var ev testEvent
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Action != "" {
			r.events = append(r.events, ev)
			text.WriteString(ev.Output)
		} else {
			text.WriteString(line + "\n")
		}
	}
	r.output = text.String()
	r.out = newestRun(out)
	if f, err := os.Open(filepath.Join(r.out, eval.RecordsFile)); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var rec eval.Record
			require.NoError(t, json.Unmarshal(sc.Bytes(), &rec))
			r.records[rec.Name] = rec
			r.allRecords = append(r.allRecords, rec)
		}
	}
	return r
}

// newestRun is the directory of the newest run under the output directory
// out, or "" when there is none.
func newestRun(out string) string {
	list, err := runs.List(out)
	if err != nil || len(list) == 0 {
		return ""
	}
	return list[0].Dir
}

// filteredEnv is the environment a suite subprocess starts from.
func filteredEnv() []string { return settings.IsolatedEnv() }

// builtDir holds what TestMain and the tests build, for the package's
// tests to share; TestMain removes it.
var builtDir string

const evaltestPackage = "github.com/mcpeval/mcpeval/evaltest"

// evaltestBinary builds, once for all of the package's tests, the suite's
// test binary (go test -c ./evaltest) and test2json, which together do what
// go test -json ./evaltest does without asking the go command each time
// whether anything needs building (seconds a run).
var evaltestBinary = sync.OnceValues(func() (struct{ evaltest, test2json string }, error) {
	bins := struct{ evaltest, test2json string }{filepath.Join(builtDir, executable("evaltest.test")), filepath.Join(builtDir, executable("test2json"))}
	root, err := files.ModuleRoot()
	if err != nil {
		return bins, err
	}
	for _, args := range [][]string{{"test", "-c", "-o", bins.evaltest, "./evaltest"}, {"build", "-o", bins.test2json, "cmd/test2json"}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return bins, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return bins, nil
})

// testServers holds the servers of testdata, each built once for all of
// the package's tests (testServer).
var testServers sync.Map // name -> func() (string, error)

// testServer returns the path of the server testdata/name (toolserver,
// hostileserver), built once for all of the package's tests.
func testServer(name string) (string, error) {
	build, _ := testServers.LoadOrStore(name, sync.OnceValues(func() (string, error) {
		root, err := files.ModuleRoot()
		if err != nil {
			return "", err
		}
		bin := filepath.Join(builtDir, executable(name))
		cmd := exec.Command("go", "build", "-o", bin, "./internal/suite/testdata/"+name)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build ./internal/suite/testdata/%s: %v\n%s", name, err, out)
		}
		return bin, nil
	}))
	return build.(func() (string, error))()
}

// executable is the file name of a program called name, as Windows
// runs it (name.exe) and elsewhere as it is: go build -o writes the
// name it is given.
func executable(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// mcpevalBinary builds the mcpeval command once for all of the package's
// tests, alone in its directory (the scripts have it on their PATH).
var mcpevalBinary = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(builtDir, "mcpeval", executable("mcpeval"))
	root, err := files.ModuleRoot()
	if err != nil {
		return bin, err
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return bin, err
	}
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/mcpeval")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return bin, fmt.Errorf("go build ./cmd/mcpeval: %v\n%s", err, out)
	}
	return bin, nil
})

// testFlags gives go test's flags (-v, -run X, -count=N, -timeout D) as the
// test binary takes them; the suite's own flags (-force) stay as they are.
func testFlags(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case !strings.HasPrefix(a, "-"):
			out[i] = a // a flag's value
		case name == "v":
			out[i] = "-test.v=test2json"
		case slices.Contains([]string{"run", "skip", "count", "timeout", "parallel", "shuffle", "failfast", "bench", "benchtime", "benchmem", "cpu", "short", "list", "fullpath"}, name):
			out[i] = "-test." + name
			if hasValue {
				out[i] += "=" + value
			}
		default:
			out[i] = a
		}
	}
	return out
}

func stubEnv(s *llmstub.Server) env {
	return env{"OPENAI_BASE_URL": s.BaseURL(), "EVAL_MODEL": "stub-model", "OPENAI_API_KEY": "sk-test-secret-key-123456"}
}

func mustParse(t *testing.T, yaml string) []eval.Case {
	t.Helper()
	cases, err := evalcase.Parse("cases.yaml", []byte(yaml))
	require.NoError(t, err)
	return cases
}

const geneCases = `
- case:
    name: "NUTM2G symbol"
    category: "Gene and Variant Utilities"
    input: "What is the Entrez id of NUTM2G?"
    expected: "441457"
    checks: {contains: ["441457"]}
    reference:
      - {tool: get_gene_by_symbol, args: {gene_symbol: NUTM2G}}
- case:
    name: "Recover from a wrong symbol"
    category: "Gene and Variant Utilities"
    input: "What is the Entrez id of the gene NUTM2G (first try NUTM2GX)?"
    expected: "441457"
    checks: {contains: ["441457"]}
    reference:
      - {tool: get_gene_by_symbol, args: {gene_symbol: NUTM2GX}, expect_error: true}
      - {tool: get_gene_by_symbol, args: {gene_symbol: NUTM2G}}
`

func TestSuitePassRecoveryAndRecords(t *testing.T) {
	t.Parallel()
	stub := llmstub.Start(llmstub.Replay(mustParse(t, geneCases)), llmstub.Options{})
	defer stub.Close()
	r := runSuite(t, t.TempDir(), geneCases, stubEnv(stub), "-v")
	require.NoError(t, r.err, r.output)

	rec := r.records["NUTM2G symbol"]
	assert.Equal(t, eval.Pass, rec.Status)
	assert.Equal(t, "yes", rec.Verdict)
	require.Len(t, rec.ToolCalls, 1)
	assert.Equal(t, "get_gene_by_symbol", rec.ToolCalls[0].Name)
	assert.JSONEq(t, `{"gene_symbol":"NUTM2G"}`, rec.ToolCalls[0].Arguments)
	assert.Contains(t, rec.ToolCalls[0].Result, "441457")
	assert.Equal(t, 3, rec.Usage.Requests, "two agent turns and one judge request")
	assert.Positive(t, rec.Usage.TotalTokens)
	assert.Equal(t, "TestGeneAndVariantUtilities/NUTM2G_symbol", rec.Test)
	roles := []string{}
	for _, m := range rec.Conversation {
		roles = append(roles, m.Role)
	}
	assert.Equal(t, []string{"system", "user", "assistant", "tool", "assistant"}, roles)

	rec = r.records["Recover from a wrong symbol"]
	assert.Equal(t, eval.Pass, rec.Status, rec.Reason)
	require.Len(t, rec.ToolCalls, 2)
	assert.True(t, rec.ToolCalls[0].IsError, "the wrong symbol is a tool error the model sees")
	assert.False(t, rec.ToolCalls[1].IsError)

	// Metrics for every case, in the record and in the metrics files.
	require.NotNil(t, r.records["NUTM2G symbol"].Metrics)
	assert.Equal(t, eval.KindTool, r.records["NUTM2G symbol"].Metrics.Kind)
	var entries []eval.MetricsEntry
	readJSON(t, filepath.Join(r.out, eval.MetricsFile), &entries)
	require.Len(t, entries, 2)
	for _, e := range entries {
		assert.Equal(t, eval.KindTool, e.Kind)
		assert.Equal(t, r.records[e.Case].Metrics.Overall, e.Metrics.Overall, "metrics.json holds the record's metrics")
		assert.Contains(t, e.Metrics.Overall.NotApplicable, "quality", "quality does not apply to tool cases")
		assert.Greater(t, e.Metrics.Overall.Score, 0.5, e.Case)
	}
	// As the metrics guide reads them: its blocks at the top level.
	var guide []struct {
		PromptUnderstanding map[string]any `json:"prompt_understanding"`
		RequirementCoverage map[string]any `json:"requirement_coverage"`
		ErrorRecovery       map[string]any `json:"error_recovery"`
	}
	readJSON(t, filepath.Join(r.out, eval.MetricsFile), &guide)
	for i, e := range guide {
		assert.Equal(t, entries[i].PromptUnderstanding.Score, e.PromptUnderstanding["understanding_score"])
		assert.Equal(t, entries[i].RequirementCoverage.Score, e.RequirementCoverage["coverage_score"])
		assert.Contains(t, e.ErrorRecovery, "recovery_score")
	}
	var summary struct {
		Summary struct {
			ErrorsEncountered    int     `json:"errors_encountered"`
			SuccessfulRecoveries int     `json:"successful_recoveries"`
			RecoverySuccessRate  float64 `json:"recovery_success_rate"`
		} `json:"summary"`
	}
	readJSON(t, filepath.Join(r.out, eval.MetricsSummaryFile), &summary)
	assert.Equal(t, 1, summary.Summary.ErrorsEncountered, "the wrong symbol")
	assert.Equal(t, 1, summary.Summary.SuccessfulRecoveries)
	assert.Equal(t, 1.0, summary.Summary.RecoverySuccessRate)

	for _, req := range stub.Received() {
		require.NotNil(t, req.Temperature, "temperature is always sent")
		assert.Less(t, *req.Temperature, 1e-30, "temperature 0 is sent as (practically) 0")
	}
	assert.Contains(t, r.output, "pass: 1 tool call,", "-v prints one line per finished case")
	assert.NotContains(t, r.output, "sk-test-secret-key-123456")
}

func TestSuiteFailures(t *testing.T) {
	t.Parallel()
	cases := `
- case:
    name: "Judged wrong"
    category: "Gene and Variant Utilities"
    input: "judge-says-no"
    expected: "441457"
- case:
    name: "Judge mumbles"
    category: "Gene and Variant Utilities"
    input: "judge-is-ambiguous"
    expected: "441457"
- case:
    name: "Check fails"
    category: "Gene and Variant Utilities"
    input: "check-fails"
    expected: "441457"
    checks: {contains: ["441457"]}
    tools: {must_call: [get_gene_by_symbol]}
- case:
    name: "Too large"
    category: "Gene and Variant Utilities"
    input: "token-limit"
    expected: "many variants"
`
	stub := llmstub.Start(func(req llmstub.Request) llmstub.Reply {
		q := req.Question()
		if req.ForcedTool() == llmstub.JudgeTool {
			switch {
			case strings.Contains(q, "judge-says-no"):
				return llmstub.Verdict("no", "the answer names the wrong gene")
			case strings.Contains(q, "judge-is-ambiguous"):
				return llmstub.Reply{Content: "Well, yes and no, it depends."}
			}
			return llmstub.Verdict("yes", "fine")
		}
		if q == "token-limit" && len(req.Messages) == 2 {
			return llmstub.Reply{ToolCalls: []llmstub.Call{{Name: "get_clinvar_by_gene_symbol", Arguments: `{"gene_symbol":"BRCA1","build":"hg19"}`}}}
		}
		return llmstub.Reply{Content: "The answer is 123."}
	}, llmstub.Options{})
	defer stub.Close()
	r := runSuite(t, t.TempDir(), cases, stubEnv(stub))
	require.Error(t, r.err)

	no := r.records["Judged wrong"]
	assert.Equal(t, eval.Fail, no.Status)
	assert.Equal(t, "no", no.Verdict)
	assert.Equal(t, "the answer names the wrong gene", no.Reason)

	mumble := r.records["Judge mumbles"]
	assert.Equal(t, eval.Undecided, mumble.Status, "a reply without a clear verdict, twice, is no pass")
	assert.Empty(t, mumble.Verdict)
	assert.Equal(t, "first reply:\nWell, yes and no, it depends.\n\nsecond reply:\nWell, yes and no, it depends.", mumble.JudgeRaw)

	check := r.records["Check fails"]
	assert.Equal(t, eval.Fail, check.Status)
	assert.Contains(t, check.Reason, `contains "441457"`)
	assert.Contains(t, check.Reason, "must_call get_gene_by_symbol")

	big := r.records["Too large"]
	assert.Equal(t, eval.TokenLimit, big.Status)
	assert.Regexp(t, `^token count exceeded: (more than )?[0-9,]+ > 100,000`, big.Reason)

	assert.Equal(t, "fail", r.status("TestGeneAndVariantUtilities/Judged_wrong"))
	assert.Contains(t, r.output, "the answer names the wrong gene", "the failure paragraph carries the reason")
	assert.Contains(t, r.output, "tools: none")
}

func TestSuiteRunsCasesInParallel(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 12 {
		b.WriteString("- case:\n    name: \"case " + string(rune('a'+i)) + "\"\n    category: \"Gene and Variant Utilities\"\n    input: \"q" + string(rune('a'+i)) + "\"\n    expected: \"x\"\n")
	}
	stub := llmstub.Start(func(req llmstub.Request) llmstub.Reply {
		if req.ForcedTool() != "" {
			return llmstub.Verdict("yes", "ok")
		}
		return llmstub.Reply{Content: "x"}
	}, llmstub.Options{Latency: 150 * time.Millisecond})
	defer stub.Close()
	e := stubEnv(stub)
	e["EVAL_CONCURRENCY"] = "4"
	r := runSuite(t, t.TempDir(), b.String(), e)
	require.NoError(t, r.err, r.output)
	assert.Len(t, r.records, 12)
	assert.Equal(t, 4, stub.PeakInFlight(), "EVAL_CONCURRENCY cases run at once, not fewer (go test -parallel) and not more")
}

// A case becomes its subtest when its turn comes: no more case subtests
// exist at once than EVAL_CONCURRENCY cases run, however many wait, so a
// run's memory grows with its concurrency, not with its number of cases.
func TestSuiteStartsCasesInTurn(t *testing.T) {
	t.Parallel()
	const n, concurrency = 40, 4
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "- case:\n    name: \"case %d\"\n    category: \"Gene and Variant Utilities\"\n    input: \"q%d\"\n    expected: \"x\"\n", i, i)
	}
	stub := llmstub.Start(func(req llmstub.Request) llmstub.Reply {
		if req.ForcedTool() != "" {
			return llmstub.Verdict("yes", "ok")
		}
		return llmstub.Reply{Content: "x"}
	}, llmstub.Options{Latency: 20 * time.Millisecond})
	defer stub.Close()
	e := stubEnv(stub)
	e["EVAL_CONCURRENCY"] = fmt.Sprint(concurrency)
	r := runSuite(t, t.TempDir(), b.String(), e)
	require.NoError(t, r.err, r.output)
	require.Len(t, r.records, n)
	existing, most, ran := map[string]bool{}, 0, 0
	for _, ev := range r.events {
		if !strings.HasPrefix(ev.Test, "TestGeneAndVariantUtilities/") {
			continue
		}
		switch ev.Action {
		case "run":
			existing[ev.Test] = true
			ran++
		case "pass", "fail", "skip":
			delete(existing, ev.Test)
		}
		most = max(most, len(existing))
	}
	assert.Equal(t, n, ran, "every case is a subtest")
	assert.LessOrEqual(t, most, concurrency, "case subtests at once")
	assert.Equal(t, concurrency, stub.PeakInFlight(), "EVAL_CONCURRENCY cases run at once")
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, v), path)
}
