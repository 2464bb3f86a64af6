package suite_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

// cachingProvider serves the stub's replies as a provider with a prompt
// cache would: a request's cached prompt tokens are the bytes it shares
// with the start of an earlier request, a token per 4 bytes, in blocks of
// 128 tokens from 1,024 on (OpenAI's rule). Its prompt tokens are its
// body's bytes over 4.
type cachingProvider struct {
	stub   http.Handler
	mu     sync.Mutex
	bodies [][]byte
}

func (p *cachingProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	common := 0
	for _, earlier := range p.bodies {
		n := 0
		for n < len(body) && n < len(earlier) && body[n] == earlier[n] {
			n++
		}
		common = max(common, n)
	}
	if r.Method == http.MethodPost && !bytes.Contains(body, []byte(`"max_tokens":1,`)) { // not the provider check
		p.bodies = append(p.bodies, body)
	}
	p.mu.Unlock()

	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := httptest.NewRecorder()
	p.stub.ServeHTTP(rec, r)
	var resp map[string]any
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &resp) != nil {
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
		return
	}
	cached := 0
	if tokens := common / 4; tokens >= 1024 {
		cached = tokens / 128 * 128
	}
	prompt := len(body) / 4
	resp["usage"] = map[string]any{"prompt_tokens": prompt, "completion_tokens": 20, "total_tokens": prompt + 20,
		"prompt_tokens_details": map[string]any{"cached_tokens": cached}}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

// requests returns the chat request bodies received, in order.
func (p *cachingProvider) requests() [][]byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([][]byte(nil), p.bodies...)
}

const promptCacheCases = `
- case:
    name: "First"
    category: "Gene and Variant Utilities"
    input: "What is the Entrez id of NUTM2G?"
    expected: "441457"
    checks: {contains: ["441457"]}
    reference:
      - {tool: get_gene_by_symbol, args: {gene_symbol: NUTM2G}}
- case:
    name: "Second, the same question"
    category: "Gene and Variant Utilities"
    input: "What is the Entrez id of NUTM2G?"
    expected: "441457"
    checks: {contains: ["441457"]}
    reference:
      - {tool: get_gene_by_symbol, args: {gene_symbol: NUTM2G}}
`

// Cost on real providers is mostly the prompt, and most of the prompt is
// the same tool definitions and system prompt on every request: the
// requests of a run start with the same bytes, so that a provider's prompt
// cache serves them; the cached tokens it reports are recorded and priced
// at the cached price, and the run says which share the cache served.
func TestPromptCacheHitsAreRecordedAndPriced(t *testing.T) {
	t.Parallel()
	stub := llmstub.New(llmstub.Replay(mustParse(t, promptCacheCases)), llmstub.Options{})
	provider := &cachingProvider{stub: stub}
	server := httptest.NewServer(provider)
	defer server.Close()

	dir := t.TempDir()
	pricesFile := filepath.Join(dir, "prices.yaml")
	require.NoError(t, os.WriteFile(pricesFile,
		[]byte(`- {model: stub-model, input: 2.00, output: 8.00, cached_input: 0.50, checked: "2026-11-25"}`+"\n"), 0o644))
	r := runSuite(t, dir, promptCacheCases, env{
		"OPENAI_BASE_URL": server.URL + "/v1", "EVAL_MODEL": "stub-model", "OPENAI_API_KEY": "sk-test-secret-key-123456",
		"EVAL_JUDGE_MODEL": "none", "EVAL_CONCURRENCY": "1", "EVAL_PRICES": pricesFile,
		// The second case is the first again: without -force the cache
		// would answer it once the first passed.
		"EVAL_FORCE": "1",
	})
	require.NoError(t, r.err, r.output)

	bodies := provider.requests()
	require.Equal(t, 4, len(bodies), "two requests per case: a tool call, then the answer")
	assert.True(t, bytes.Equal(bodies[0], bodies[2]), "the first requests of two identical cases are byte-identical")
	userAt := bytes.Index(bodies[1], []byte(`{"role":"user"`))
	require.Positive(t, userAt)
	assert.True(t, bytes.Equal(bodies[0][:userAt], bodies[1][:userAt]),
		"model, sampling, tool definitions and system prompt come first, the same on every turn")
	assert.Greater(t, userAt, 4*1024, "a prefix long enough for a provider to cache")

	// The cases run one at a time, in either order: the later one finds
	// the earlier one's prompts in the cache.
	firstRec, secondRec := r.records["First"], r.records["Second, the same question"]
	require.Equal(t, eval.Pass, firstRec.Status, firstRec.Reason)
	require.Equal(t, eval.Pass, secondRec.Status, secondRec.Reason)
	if secondRec.StartedAt.Before(firstRec.StartedAt) {
		firstRec, secondRec = secondRec, firstRec
	}
	u := secondRec.Usage
	require.Positive(t, u.CachedTokens, "the second case's prompts came from the cache")
	assert.GreaterOrEqual(t, u.CachedTokens, len(bodies[2])/4/128*128, "the whole first request came from the cache")
	assert.InDelta(t, (float64(u.PromptTokens-u.CachedTokens)*2.00+float64(u.CachedTokens)*0.50+float64(u.CompletionTokens)*8.00)/1e6,
		u.CostUSD, 1e-12, "cached tokens priced at the cached price")

	var sum eval.Summary
	readJSON(t, filepath.Join(r.out, eval.SummaryFile), &sum)
	require.Len(t, sum.Models, 1)
	m := sum.Models[0]
	assert.Equal(t, firstRec.Usage.CachedTokens+u.CachedTokens, m.CachedTokens)
	assert.InDelta(t, float64(m.CachedTokens)/float64(m.PromptTokens), m.CacheHitRate, 1e-12)
	assert.Contains(t, r.output, "of prompt tokens from the provider's prompt cache")
}
