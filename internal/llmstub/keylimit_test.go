package llmstub

import (
	"bytes"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// postAs sends a chat request with the API key and returns the status and
// Retry-After.
func postAs(t *testing.T, s *Server, key string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.BaseURL()+"/chat/completions",
		bytes.NewReader([]byte(`{"model":"m","messages":[{"role":"user","content":"q?"}]}`)))
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

func TestEachKeyHasItsOwnRateLimit(t *testing.T) {
	// One request per 100 s, bursts of 2: a test cannot outlast a slot.
	s := Start(Replay([]eval.Case{{Input: "q?"}}), Options{KeyRate: 0.01, KeyBurst: 2})
	defer s.Close()

	for i, want := range []int{200, 200, 429, 429} {
		status, retryAfter := postAs(t, s, "key-a")
		assert.Equal(t, want, status, "request %d of key A", i)
		if status == http.StatusTooManyRequests {
			wait, err := strconv.ParseFloat(retryAfter, 64)
			require.NoError(t, err, "Retry-After %q is in seconds", retryAfter)
			assert.Greater(t, wait, 50.0, "the next slot is most of 100 s away")
			assert.LessOrEqual(t, wait, 100.0)
		}
	}
	status, _ := postAs(t, s, "key-b")
	assert.Equal(t, http.StatusOK, status, "key B is not held back by key A")
	status, _ = postAs(t, s, "")
	assert.Equal(t, http.StatusOK, status, "no key is a key of its own")

	assert.Equal(t, map[string]KeyCount{
		"Bearer key-a": {Served: 2, Throttled: 2},
		"Bearer key-b": {Served: 1},
		"":             {Served: 1},
	}, s.Keys())
	assert.Equal(t, 6, s.Requests())
}

func TestNoKeyRateLimitsNothing(t *testing.T) {
	s := Start(Replay([]eval.Case{{Input: "q?"}}), Options{})
	defer s.Close()
	for range 5 {
		status, _ := postAs(t, s, "key-a")
		require.Equal(t, http.StatusOK, status)
	}
	assert.Equal(t, map[string]KeyCount{"Bearer key-a": {Served: 5}}, s.Keys())
}
