package stubcmd

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/cmdtest"
	"github.com/mcpeval/mcpeval/internal/files"
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
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	path := filepath.Join(root, "testdata", "providers", "deepseek-reasoning-content.yaml")
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

// What the stub cannot serve is refused before it listens.
func TestStubRefuses(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-wrong", "bad"}, `want model=regexp, not "bad"`},
		{[]string{"-cost", "good=-1"}, "want model=usd with a cost of 0 or more"},
		{[]string{"-fixture", "no-such-fixture.yaml"}, "no-such-fixture.yaml"},
		{[]string{"-cases", "no-such-cases", "-addr", "127.0.0.1:0"}, "no-such-cases"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		err := cmdtest.Run(Cmd, tt.args, nil, nil, nil, nil)
		require.ErrorContains(t, err, tt.want, "%v", tt.args)
		assert.Equal(t, 2, base.ExitStatus(err), "%v", tt.args)
	}
}
