package suite_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/grading"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

const failingCase = `
- case:
    name: "Always wrong"
    category: "Gene and Variant Utilities"
    input: "What is the Entrez id of NUTM2G, wrongly?"
    expected: "441457"
    checks: {contains: ["unobtainium"]}
    reference:
      - {tool: get_gene_by_symbol, args: {gene_symbol: NUTM2G}}
`

// requestsFor counts the stub's agent requests whose question is q.
func requestsFor(s *llmstub.Server, from int, q string) int {
	n := 0
	for _, r := range s.Received()[from:] {
		if r.Question() == q || strings.Contains(r.Question(), q) {
			n++
		}
	}
	return n
}

func TestCacheSemanticsEndToEnd(t *testing.T) {
	t.Parallel()
	cases := geneCases + failingCase
	stub := llmstub.Start(llmstub.Replay(mustParse(t, cases)), llmstub.Options{})
	defer stub.Close()
	dir := t.TempDir()
	e := stubEnv(stub)
	const q1 = "What is the Entrez id of NUTM2G?"
	const qFail = "What is the Entrez id of NUTM2G, wrongly?"

	// First run: everything runs; the passes are stored.
	r := runSuite(t, dir, cases, e)
	require.Error(t, r.err, "one case fails: %s", r.output)
	assert.Equal(t, eval.Pass, r.records["NUTM2G symbol"].Status)
	fresh := r.records["NUTM2G symbol"]
	assert.Equal(t, eval.Fail, r.records["Always wrong"].Status)
	assert.Positive(t, requestsFor(stub, 0, q1))
	cacheFile, err := os.ReadFile(filepath.Join(dir, "cache.json"))
	require.NoError(t, err)
	assert.Contains(t, string(cacheFile), `"NUTM2G symbol"`, "the cache is readable JSON naming its cases")
	assert.NotContains(t, string(cacheFile), `"Always wrong"`, "failures are not stored")
	assert.NotContains(t, string(cacheFile), "sk-test-secret-key", "no secret in the cache")

	// Second run, nothing changed: passes come from the cache, the failure runs again.
	before := len(stub.Received())
	r = runSuite(t, dir, cases, e)
	assert.Zero(t, requestsFor(stub, before, q1), "no model request for a cached pass")
	assert.Positive(t, requestsFor(stub, before, qFail), "a failed case runs again")
	rec := r.records["NUTM2G symbol"]
	assert.True(t, rec.Cached)
	assert.Equal(t, eval.Pass, rec.Status)
	assert.NotEmpty(t, rec.ToolCalls, "a cached record keeps its tool calls")
	assert.NotEmpty(t, rec.Conversation)
	fresh.Cached = true
	assert.Equal(t, fresh, rec, "the cached record is the stored one, texts included")
	assert.Equal(t, "pass", r.status("TestGeneAndVariantUtilities/NUTM2G_symbol"))

	// -force: runs again, still stores.
	before = len(stub.Received())
	r = runSuite(t, dir, cases, e, "-force")
	assert.Positive(t, requestsFor(stub, before, q1))
	assert.False(t, r.records["NUTM2G symbol"].Cached)
	before = len(stub.Received())
	runSuite(t, dir, cases, e)
	assert.Zero(t, requestsFor(stub, before, q1), "what -force ran was stored")

	// Another model never reuses this model's pass.
	other := stubEnv(stub)
	other["EVAL_MODEL"] = "another-model"
	before = len(stub.Received())
	r = runSuite(t, dir, cases, other)
	assert.Positive(t, requestsFor(stub, before, q1))
	assert.False(t, r.records["NUTM2G symbol"].Cached)

	// A changed expectation is a new entry.
	changed := strings.Replace(cases, `checks: {contains: ["441457"]}`, `checks: {contains: ["441457", "NUTM2G"]}`, 1)
	before = len(stub.Received())
	r = runSuite(t, dir, changed, e)
	assert.Positive(t, requestsFor(stub, before, q1))
	assert.False(t, r.records["NUTM2G symbol"].Cached)

	// -clear empties the cache first (the passes above would be reused
	// otherwise), then runs everything.
	before = len(stub.Received())
	r = runSuite(t, dir, cases, e, "-clear")
	assert.Positive(t, requestsFor(stub, before, q1))
	before = len(stub.Received())
	r = runSuite(t, dir, cases, e, "-clear", "-force")
	assert.Positive(t, requestsFor(stub, before, q1), "-clear -force: a fresh run")
	assert.False(t, r.records["NUTM2G symbol"].Cached)
}

func TestCorruptCacheIsMovedAside(t *testing.T) {
	t.Parallel()
	stub := llmstub.Start(llmstub.Replay(mustParse(t, geneCases)), llmstub.Options{})
	defer stub.Close()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cache.json"), []byte("{not json"), 0o644))
	r := runSuite(t, dir, geneCases, stubEnv(stub))
	require.NoError(t, r.err, r.output)
	assert.Contains(t, r.output, "warning:")
	backups, _ := filepath.Glob(filepath.Join(dir, "cache.json.corrupt-*"))
	require.Len(t, backups, 1, r.output)
	assert.Contains(t, r.output, filepath.Base(backups[0]), "the warning names the backup")
	kept, _ := os.ReadFile(backups[0])
	assert.Equal(t, "{not json", string(kept), "the corrupt content is kept, not emptied")
	assert.Len(t, r.records, 2)
}

const tokenLimitCase = `
- case:
    name: "Whole BRCA1 listing"
    category: "Gene and Variant Utilities"
    input: "List every ClinVar variant of BRCA1."
    expected: "All of them."
    reference:
      - {tool: get_clinvar_by_gene_symbol, args: {gene_symbol: BRCA1, build: hg19}}
`

// Token-limit results are stored and reused, as token-limit failures, so the
// oversized call is not paid for again; -force runs them again.
func TestTokenLimitResultsAreReused(t *testing.T) {
	t.Parallel()
	stub := llmstub.Start(llmstub.Replay(mustParse(t, tokenLimitCase)), llmstub.Options{})
	defer stub.Close()
	dir := t.TempDir()
	e := stubEnv(stub)
	r := runSuite(t, dir, tokenLimitCase, e)
	require.Error(t, r.err)
	assert.Equal(t, eval.TokenLimit, r.records["Whole BRCA1 listing"].Status)
	assert.False(t, r.records["Whole BRCA1 listing"].Cached)

	before := stub.Requests()
	r = runSuite(t, dir, tokenLimitCase, e)
	require.Error(t, r.err, "a reused token-limit result still fails")
	rec := r.records["Whole BRCA1 listing"]
	assert.Equal(t, eval.TokenLimit, rec.Status)
	assert.True(t, rec.Cached)
	assert.Regexp(t, `^token count exceeded: `, rec.Reason)
	assert.Equal(t, before, stub.Requests(), "no model request")

	r = runSuite(t, dir, tokenLimitCase, e, "-force")
	assert.False(t, r.records["Whole BRCA1 listing"].Cached)
	assert.Greater(t, stub.Requests(), before)
}

// A cached pass graded by earlier rules (an older grading version in its
// record) is graded again from its stored answer, never re-run: one the
// current checks reject stops being a pass and leaves the cache; one they
// accept stays cached, now under the current version.
func TestCachedPassesOfAnEarlierGradingAreGradedAgain(t *testing.T) {
	t.Parallel()
	stub := llmstub.Start(llmstub.Replay(mustParse(t, geneCases)), llmstub.Options{})
	defer stub.Close()
	dir := t.TempDir()
	e := withEnv(stubEnv(stub), env{"EVAL_JUDGE_MODEL": "none"})
	r := runSuite(t, dir, geneCases, e)
	require.NoError(t, r.err, r.output)

	// As an earlier version would have left them: both passes graded by
	// version 1, one of them a wrong answer its rules let through.
	path := filepath.Join(dir, "cache.json")
	var file map[string]any
	readJSON(t, path, &file)
	entries := file["entries"].(map[string]any)
	require.Len(t, entries, 2)
	for _, v := range entries {
		rec := v.(map[string]any)["record"].(map[string]any)
		rec["grading"] = 1
		if rec["name"] == "NUTM2G symbol" {
			rec["response"] = "Not 441457: the Entrez id of NUTM2G is 441458."
		}
	}
	data, err := json.Marshal(file)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	if err := os.Remove(path + ".journal"); !errors.Is(err, fs.ErrNotExist) {
		require.NoError(t, err) // merged into the file at the end of the run, or not
	}

	before := len(stub.Received())
	r = runSuite(t, dir, geneCases, e)
	require.Error(t, r.err, "the wrong answer fails now")
	assert.Equal(t, before, len(stub.Received()), "the model is asked nothing: the stored answers are graded")
	wrong := r.records["NUTM2G symbol"]
	assert.Equal(t, eval.Fail, wrong.Status, wrong.Reason)
	assert.True(t, wrong.Cached)
	assert.Contains(t, wrong.Reason, "graded again from the cached answer (its grading was of version 1, now")
	assert.Equal(t, grading.Version, wrong.Grading)
	assert.True(t, wrong.Regraded)
	right := r.records["Recover from a wrong symbol"]
	assert.Equal(t, eval.Pass, right.Status, right.Reason)
	assert.True(t, right.Cached)
	assert.Equal(t, grading.Version, right.Grading)

	// The next run: the failure is run again; the pass is served as it is.
	r = runSuite(t, dir, geneCases, e)
	require.NoError(t, r.err, r.output)
	assert.Positive(t, requestsFor(stub, before, "What is the Entrez id of NUTM2G?"), "the rejected pass left the cache")
	assert.False(t, r.records["NUTM2G symbol"].Cached)
	assert.True(t, r.records["Recover from a wrong symbol"].Cached)
	assert.NotContains(t, r.records["Recover from a wrong symbol"].Reason, "graded again")
}
