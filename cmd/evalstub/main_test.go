package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/llmstub"
)

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// -fixture serves the recorded responses and refusals; -strict adds
// OpenAI's validation to a fixture that does not ask for it.
func TestFixtureFlags(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "providers", "deepseek-reasoning-content.yaml")
	stub, f, err := fixtureStub(path, llmstub.Options{})
	require.NoError(t, err)
	srv := httptest.NewServer(stub)
	defer srv.Close()
	url := srv.URL + "/v1/chat/completions"

	status, body := post(t, url, `{"model":"deepseek-reasoner","messages":[{"role":"user","content":"q"}]}`)
	assert.Equal(t, 200, status)
	assert.Equal(t, f.Steps[0].Response.Body, body)
	status, body = post(t, url, `{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"","tool_calls":[{"id":"c","type":"function","function":{"name":"get_gene_by_symbol","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"r"}]}`)
	assert.Equal(t, 400, status, "the follow-up dropped reasoning_content")
	assert.Equal(t, f.Steps[1].Refuse.Body, body)

	strict, _, err := fixtureStub(path, llmstub.Options{Strict: true})
	require.NoError(t, err)
	srv2 := httptest.NewServer(strict)
	defer srv2.Close()
	status, body = post(t, srv2.URL+"/v1/chat/completions", `{"temperature":3,"messages":[]}`)
	assert.Equal(t, 400, status)
	assert.Contains(t, body, "Invalid 'temperature': decimal above maximum value.")

	_, _, err = fixtureStub("no-such-fixture.yaml", llmstub.Options{})
	assert.ErrorContains(t, err, "no-such-fixture.yaml")
}
