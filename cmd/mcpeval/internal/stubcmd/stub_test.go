package stubcmd

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/cmdtest"
	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/llmstub"
	"github.com/mcpeval/mcpeval/internal/usersim"
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
		{[]string{"-user", "chatty"}, `want leaky or fails, not "chatty"`},
		{[]string{"-wrong-turn", "-1"}, "-wrong-turn -1: give a turn from 1, or 0 for none"},
		{[]string{"-never-asks", "-offered"}, "-never-asks and -offered: choose one agent"},
	}
	for _, tt := range tests {
		err := cmdtest.Run(Cmd, tt.args, nil, nil, nil, nil)
		require.ErrorContains(t, err, tt.want, "%v", tt.args)
		assert.Equal(t, 2, base.ExitStatus(err), "%v", tt.args)
	}
}

// -never-asks, -user and -wrong-turn choose the stub's agent and
// simulated user for conversations.
func TestConversationFlags(t *testing.T) {
	c := eval.Case{Input: "Which gene is at chr17:7675088?", Expected: "TP53.",
		Reference: []eval.RefCall{{Tool: "get_gene_by_position", Args: map[string]any{"build": "hg38"}}},
		User: &eval.User{Instructions: "A geneticist.",
			Knows: []eval.UserFact{{Fact: "The build is GRCh38.", Any: eval.Spellings{"GRCh38", "hg38"}, When: eval.Spellings{"build"}}}}}
	cases := []eval.Case{c}
	agent := llmstub.Request{Messages: []eval.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: c.Input}}}
	user := llmstub.Request{Messages: usersim.Messages(*c.User, []eval.TurnResult{{Turn: 1, User: c.Input, Reply: "Which genome build?"}})}
	agentAtTwo := llmstub.Request{Messages: append(slices.Clone(agent.Messages),
		eval.Message{Role: "assistant", Content: "Which build?"}, eval.Message{Role: "user", Content: "GRCh38."})}

	var log strings.Builder
	asks := behaviour{}.responder(cases, &log)
	assert.Equal(t, "Which build do you mean?", asks(agent).Content, "by default the agent asks")
	assert.Equal(t, "The build is GRCh38.", asks(user).Content, "and the user answers by the rules")

	never := behaviour{neverAsks: true}.responder(cases, &log)
	r := never(agent)
	require.Len(t, r.ToolCalls, 1, "it looks up at once")
	assert.JSONEq(t, `{}`, r.ToolCalls[0].Arguments, "without the build it was not told")

	leaky := behaviour{user: userLeaky}.responder(cases, &log)
	assert.Contains(t, leaky(llmstub.Request{Messages: usersim.Messages(*c.User, []eval.TurnResult{{Turn: 1, User: c.Input, Reply: "It is TP53."}})}).Content,
		"The build is GRCh38.", "told unasked")

	fails := behaviour{user: userFails}.responder(cases, &log)
	assert.Equal(t, http.StatusInternalServerError, fails(user).Status)
	assert.Equal(t, "Which build do you mean?", fails(agent).Content, "the agent is served")

	wrong := behaviour{wrongTurn: 2}.responder(cases, &log)
	assert.Equal(t, "Which build do you mean?", wrong(agent).Content)
	assert.Equal(t, llmstub.WrongAnswer, wrong(agentAtTwo).Content)

	assert.Contains(t, log.String(), "an agent that never asks a simulated user anything")
	assert.Contains(t, log.String(), "the simulated users tell every fact they know, asked or not")
	assert.Contains(t, log.String(), "the model playing the simulated users answers HTTP 500")
	assert.Contains(t, log.String(), "answering wrong at turn 2 of every conversation")
}
