package suite_test

import (
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

const twoCategories = `
- case:
    name: "Gene lookup"
    category: "Gene and Variant Utilities"
    input: "q1"
    expected: "x"
- case:
    name: "alias Gene lookup"
    category: "Gene and Variant Utilities"
    input: "q2"
    expected: "x"
- case:
    name: "Phenotype"
    category: "Gene-Phenotype Databases"
    input: "q3"
    expected: "x"
- case:
    name: "Expression"
    category: "Expression Databases"
    input: "q4"
    expected: "x"
- case:
    name: "Unlisted"
    category: "Brand New Category"
    input: "q5"
    expected: "x"
`

func yesStub() *llmstub.Server {
	return llmstub.Start(func(req llmstub.Request) llmstub.Reply {
		if req.ForcedTool() != "" {
			return llmstub.Verdict("yes", "ok")
		}
		return llmstub.Reply{Content: "x"}
	}, llmstub.Options{})
}

func TestRunSelection(t *testing.T) {
	stub := yesStub()
	defer stub.Close()
	tests := []struct {
		name string
		run  string
		want []string
	}{
		{"categories containing Gene", "Gene", []string{
			"TestGeneAndVariantUtilities/Gene_lookup", "TestGeneAndVariantUtilities/alias_Gene_lookup", "TestGenePhenotypeDatabases/Phenotype"}},
		{"one category (IDE run button)", "^TestExpressionDatabases$", []string{"TestExpressionDatabases/Expression"}},
		{"one case, VS Code style", "^TestGeneAndVariantUtilities$/^Gene_lookup$", []string{"TestGeneAndVariantUtilities/Gene_lookup"}},
		{"one case, GoLand style", `^\QTestGeneAndVariantUtilities\E$/^\QGene_lookup\E$`, []string{"TestGeneAndVariantUtilities/Gene_lookup"}},
		{"a category without a function of its own", "TestOtherCategories", []string{"TestOtherCategories/Brand_New_Category", "TestOtherCategories/Brand_New_Category/Unlisted"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runSuite(t, t.TempDir(), twoCategories, stubEnv(stub), "-run", tt.run)
			require.NoError(t, r.err, r.output)
			assert.ElementsMatch(t, tt.want, r.ran())
		})
	}
}

func TestEveryCaseRunsSomewhere(t *testing.T) {
	stub := yesStub()
	defer stub.Close()
	r := runSuite(t, t.TempDir(), twoCategories, stubEnv(stub))
	require.NoError(t, r.err, r.output)
	assert.Len(t, r.records, 5, "no loaded case is left out")
	assert.Contains(t, r.output, `category "Brand New Category" has no test function of its own`)
}

func TestUpstreamCaseFileRunsUnchanged(t *testing.T) {
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	shared := filepath.Join(root, "..", "shared", "marrvel", "test_cases.yaml")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("%s is absent (the shared folder is not checked out beside the project)", shared)
	}
	stub := yesStub()
	defer stub.Close()
	e := stubEnv(stub)
	e["EVAL_CASES"] = shared
	r := runSuite(t, t.TempDir(), "", e, "-run", "TestOtherCategories")
	require.NoError(t, r.err, r.output)
	var cases []string
	for _, name := range r.ran() {
		if strings.HasPrefix(name, "TestOtherCategories/test_cases/") {
			cases = append(cases, name)
		}
	}
	assert.Len(t, cases, 22)
	assert.Contains(t, cases, "TestOtherCategories/test_cases/Gene_for_NM_001045477_4:c_187C>T")
	assert.Len(t, r.records, 22)
}

func TestAuthFailureStopsTheRunOnce(t *testing.T) {
	stub := llmstub.Start(func(llmstub.Request) llmstub.Reply {
		return llmstub.Reply{Status: http.StatusUnauthorized}
	}, llmstub.Options{})
	defer stub.Close()
	e := stubEnv(stub)
	e["EVAL_CONCURRENCY"] = "1"
	r := runSuite(t, t.TempDir(), twoCategories, e)
	require.Error(t, r.err)
	assert.Len(t, stub.Received(), 1, "401 is not retried and no further case is sent")
	assert.Contains(t, r.output, "run stopped: the provider rejected the API key")
	assert.Contains(t, r.output, "OPENAI_API_KEY")
	assert.NotContains(t, r.output, "sk-test-secret-key-123456")
	fails := 0
	for _, e := range r.events {
		if e.Action == "fail" && strings.Count(e.Test, "/") == 1 {
			fails++
		}
	}
	assert.Equal(t, 1, fails, "one case fails, the others are skipped")
}

// go test must never replay an evaluation from its own test cache: the
// model, server or cache may have changed without go test knowing.
func TestGoTestCacheNeverReplaysARun(t *testing.T) {
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	stub := yesStub()
	defer stub.Close()
	dir := t.TempDir()
	casePath := filepath.Join(dir, "cases.yaml")
	require.NoError(t, os.WriteFile(casePath, []byte(twoCategories), 0o644))
	runGoTest := func() string {
		cmd := exec.Command("go", "test", "./evaltest")
		cmd.Dir = root
		cmd.Env = append(filteredEnv(), "EVAL_CASES="+casePath, "EVAL_OUT="+filepath.Join(dir, "out"),
			"EVAL_CACHE="+filepath.Join(dir, "cache.json"), "OPENAI_BASE_URL="+stub.BaseURL(), "EVAL_MODEL=m")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		return string(out)
	}
	runGoTest()
	before := stub.Requests()
	second := runGoTest()
	assert.NotContains(t, second, "(cached)")
	assert.Equal(t, before, stub.Requests(), "the second run reused the suite's own cache: 5 passes, no request")
}

// A provider that is down, or does not serve the model, stops the run
// before any case, at once, with one message naming the setting to fix.
func TestProviderCheckedBeforeTheFirstCase(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	served := llmstub.Start(llmstub.Replay(nil), llmstub.Options{Models: []string{"stub-model", "stub-judge"}})
	defer served.Close()

	tests := []struct {
		name    string
		env     env
		want    string // the start of the reason the run stopped
		setting string // what the message says to check
	}{
		{name: "connection refused", env: env{"OPENAI_BASE_URL": "http://" + addr + "/v1"},
			want:    "the provider at http://" + addr + "/v1 cannot be reached: dial tcp " + addr + ": connect: connection refused",
			setting: "Check OPENAI_BASE_URL (or -base-url): no case was run"},
		{name: "name not resolved", env: env{"OPENAI_BASE_URL": "http://no-such-provider.invalid/v1"},
			want:    "the provider at http://no-such-provider.invalid/v1 cannot be reached: dial tcp: lookup no-such-provider.invalid",
			setting: "Check OPENAI_BASE_URL (or -base-url): no case was run"},
		{name: "unknown model", env: env{"EVAL_MODEL": "no-such-model", "EVAL_JUDGE_MODEL": "stub-judge"},
			want:    `the provider does not serve the model "no-such-model" (provider returned HTTP 404: `,
			setting: "Check EVAL_MODEL (or -model): no case was run"},
		{name: "unknown judge model", env: env{"EVAL_JUDGE_MODEL": "no-such-judge"},
			want:    `the provider does not serve the model "no-such-judge" (provider returned HTTP 404: `,
			setting: "Check EVAL_JUDGE_MODEL (or -judge-model): no case was run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := stubEnv(served)
			maps.Copy(e, tt.env)
			// Retries as slow as by default (a minute per case against a
			// provider that is down): only a check before the cases keeps
			// the run short.
			r := runSuite(t, t.TempDir(), twoCategories, e)
			require.Error(t, r.err)
			assert.Equal(t, 1, strings.Count(r.output, "mcpeval: error: run stopped: "+tt.want), r.output)
			assert.Equal(t, 1, strings.Count(r.output, tt.setting))
			assert.NotContains(t, r.output, "sk-test-secret-key-123456")
			assert.Empty(t, r.records, "no case was run")
			var sum eval.Summary
			readJSON(t, filepath.Join(r.out, eval.SummaryFile), &sum)
			assert.Zero(t, sum.Retries)
			assert.Less(t, sum.Seconds, 30.0, "the run stops at once")
			t.Logf("stopped after %.2fs", sum.Seconds)
		})
	}
}
