package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/llm"
	"github.com/mcpeval/mcpeval/internal/mcpconn"
	"github.com/mcpeval/mcpeval/internal/tokens"
)

// toolServer serves four tools over real streamable HTTP: echo, boom (an
// IsError result), huge (about 200,000 tokens) and refuse (a handler error,
// which reaches the client as an error instead of a result).
func toolServer(t *testing.T) *mcpconn.Set {
	t.Helper()
	s := server.NewMCPServer("test", "1", server.WithInputSchemaValidation())
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text", mcp.Required())), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("echo: " + r.GetString("text", "")), nil
	})
	s.AddTool(mcp.NewTool("boom"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("boom: no such gene"), nil
	})
	s.AddTool(mcp.NewTool("huge"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(strings.Repeat("variant ", 200_000)), nil
	})
	s.AddTool(mcp.NewTool("refuse"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("refused: the backend is down")
	})
	hs := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(hs.Close)
	set, err := mcpconn.ConnectAll(context.Background(), []string{hs.URL + "/mcp"}, mcpconn.Options{})
	require.NoError(t, err)
	t.Cleanup(set.Close)
	return set
}

// script is a Chatter that replies with its turns in order and records the
// requests it got.
type script struct {
	turns []llm.Response
	got   []llm.Request
	err   error
}

func (s *script) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	s.got = append(s.got, req)
	if s.err != nil {
		return llm.Response{}, s.err
	}
	if len(s.got) > len(s.turns) {
		return llm.Response{Message: eval.Message{Role: "assistant", Content: "done"}, HasUsage: true}, nil
	}
	return s.turns[len(s.got)-1], nil
}

func calls(cs ...[2]string) llm.Response {
	m := eval.Message{Role: "assistant"}
	for i, c := range cs {
		m.ToolCalls = append(m.ToolCalls, eval.MessageToolCall{ID: fmt.Sprintf("c%d", i), Type: "function", Function: eval.FunctionCall{Name: c[0], Arguments: c[1]}})
	}
	return llm.Response{Message: m, HasUsage: true, Usage: eval.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}}
}

func answer(s string) llm.Response {
	return llm.Response{Message: eval.Message{Role: "assistant", Content: s}, HasUsage: true, Usage: eval.Usage{PromptTokens: 20, CompletionTokens: 3, TotalTokens: 23}}
}

func counter(t *testing.T) *tokens.Counter {
	c, err := tokens.New(tokens.Default)
	require.NoError(t, err)
	return c
}

func TestRunToolErrorsGoBackToTheModel(t *testing.T) {
	tools := toolServer(t)
	chat := &script{turns: []llm.Response{
		calls([2]string{"echo", `{"text":"hi"}`}, [2]string{"boom", `{}`}, [2]string{"nope", `{}`}, [2]string{"echo", `{"text":`}, [2]string{"echo", `{}`},
			[2]string{"refuse", `{}`}),
		answer("final answer"),
	}}
	tr, err := Run(context.Background(), chat, tools, Config{Model: "m", LimitCounter: counter(t), TokenLimit: 100_000}, "question?")
	require.NoError(t, err)
	assert.Equal(t, "final answer", tr.Answer)
	require.Len(t, tr.ToolCalls, 6)

	assert.Equal(t, "echo: hi", tr.ToolCalls[0].Result)
	assert.Equal(t, 3, tr.ToolCalls[0].ResultTokens, "the result's tokens are counted once, as it arrives")
	assert.False(t, tr.ToolCalls[0].IsError)
	assert.Equal(t, "boom: no such gene", tr.ToolCalls[1].Result, "an IsError result reaches the model as is")
	assert.True(t, tr.ToolCalls[1].IsError)
	assert.Contains(t, tr.ToolCalls[2].Result, `unknown tool \"nope\"`)
	assert.Contains(t, tr.ToolCalls[3].Result, "invalid JSON arguments")
	assert.True(t, tr.ToolCalls[4].IsError, "schema validation: a missing required argument")
	assert.Contains(t, tr.ToolCalls[5].Result, "refused: the backend is down")
	assert.Equal(t, []bool{false, false, false, false, false, true}, refused(tr.ToolCalls),
		"only the call the server answered with an error instead of a result is refused")
	assert.Equal(t, []bool{false, false, true, true, false, false}, notRunCalls(tr.ToolCalls))

	// The second request carries every tool result, matched by call id.
	second := chat.got[1].Messages
	require.Len(t, second, 2+1+6)
	for i, m := range second[3:] {
		assert.Equal(t, "tool", m.Role)
		assert.Equal(t, fmt.Sprintf("c%d", i), m.ToolCallID)
	}
	assert.Equal(t, 38, tr.Usage.TotalTokens)
	assert.Equal(t, 2, tr.Usage.Requests)
	assert.Len(t, chat.got[0].Tools, 4)
	assert.Equal(t, DefaultSystemPrompt, chat.got[0].Messages[0].Content)
}

func TestRunStopsAtTokenLimit(t *testing.T) {
	tools := toolServer(t)
	chat := &script{turns: []llm.Response{calls([2]string{"huge", `{}`})}}
	tr, err := Run(context.Background(), chat, tools, Config{LimitCounter: counter(t), TokenLimit: 100_000}, "q")
	require.NoError(t, err)
	assert.Regexp(t, `^token count exceeded: 200,00\d > 100,000 \(result of tool huge\)$`, tr.TokenLimit)
	assert.Len(t, chat.got, 1, "no further request after the limit")
	require.Len(t, tr.ToolCalls, 1)
	assert.Less(t, len(tr.ToolCalls[0].Result), 3000, "the oversized result is not kept whole")
	assert.Greater(t, tr.ToolCalls[0].ResultTokens, 100_000, "the count of the whole result, before the cut")
}

func refused(calls []eval.ToolCall) []bool {
	out := make([]bool, len(calls))
	for i, c := range calls {
		out[i] = c.Refused
	}
	return out
}

func notRunCalls(calls []eval.ToolCall) []bool {
	out := make([]bool, len(calls))
	for i, c := range calls {
		out[i] = c.NotRun
	}
	return out
}

func TestRunIterationLimitAndTurnLimit(t *testing.T) {
	tools := toolServer(t)
	many := make([][2]string, 100)
	for i := range many {
		many[i] = [2]string{"echo", `{"text":"x"}`}
	}
	loop := calls(many...)
	chat := &script{turns: []llm.Response{loop, loop, loop}}
	tr, err := Run(context.Background(), chat, tools, Config{MaxIterations: 2}, "q")
	require.NoError(t, err)
	assert.Equal(t, "no final answer after 2 iterations", tr.Incomplete)
	assert.Len(t, chat.got, 2)
	require.Len(t, tr.ToolCalls, 200, "every call is answered")
	executed := 0
	for _, c := range tr.ToolCalls {
		if !c.IsError {
			executed++
		}
	}
	assert.Equal(t, 2*maxCallsPerReply, executed)
}

func TestRunProviderErrorAndEstimatedUsage(t *testing.T) {
	tools := toolServer(t)
	_, err := Run(context.Background(), &script{err: errors.New("HTTP 400: bad model")}, tools, Config{}, "q")
	require.ErrorContains(t, err, "bad model")

	noUsage := llm.Response{Message: eval.Message{Role: "assistant", Content: "The gene is NUTM2G."}}
	tr, err := Run(context.Background(), &script{turns: []llm.Response{noUsage}}, tools, Config{Counter: counter(t)}, "What gene?")
	require.NoError(t, err)
	assert.True(t, tr.Usage.Estimated)
	assert.Positive(t, tr.Usage.PromptTokens)
	assert.Positive(t, tr.Usage.CompletionTokens)
}

// Without usage in the response, the estimate counts everything sent: the
// messages, the fields the provider attached to them, and the tool
// definitions, which are most of a real request.
func TestEstimateCountsEverythingSent(t *testing.T) {
	c := counter(t)
	reply := llm.Response{Message: eval.Message{Role: "assistant", Content: "done"}}
	messages := []eval.Message{{Role: "system", Content: "Use the tools."}, {Role: "user", Content: "What gene?"}}
	bare := tokenUsage(reply, llm.Request{Messages: messages}, c)
	schema := json.RawMessage(`{"type":"object","properties":{"gene_symbol":{"type":"string","description":"Official HGNC gene symbol, e.g. NUTM2G or TP53"}}}`)
	tools := []eval.Tool{
		{Name: "get_gene_by_symbol", Description: "Find gene information including Entrez ID, UniProt ID and location.", Parameters: schema},
		{Name: "get_gnomad_by_gene_symbol", Description: "Get gnomAD gene constraint metrics for a gene by symbol.", Parameters: schema},
	}
	withTools := tokenUsage(reply, llm.Request{Messages: messages, Tools: tools}, c)
	toolTokens := 0
	for _, tool := range tools {
		toolTokens += c.Count(tool.Name) + c.Count(tool.Description) + c.Count(string(tool.Parameters))
	}
	assert.True(t, withTools.Estimated)
	assert.GreaterOrEqual(t, withTools.PromptTokens-bare.PromptTokens, toolTokens, "the tool definitions are counted")

	reasoning := append([]eval.Message(nil), messages...)
	reasoning = append(reasoning, eval.Message{Role: "assistant", Content: "x",
		Extra: map[string]json.RawMessage{"reasoning_content": json.RawMessage(`"` + strings.Repeat("think ", 200) + `"`)}})
	withReasoning := tokenUsage(reply, llm.Request{Messages: reasoning}, c)
	assert.Greater(t, withReasoning.PromptTokens, bare.PromptTokens+150, "reasoning sent back is counted")
}

func TestReference(t *testing.T) {
	tools := toolServer(t)
	c := eval.Case{Input: "q", Expected: "NUTM2G.", Reference: []eval.RefCall{
		{Tool: "boom", ExpectError: true},
		{Tool: "echo", Args: map[string]any{"text": "NUTM2G"}},
	}}
	tr := Reference(context.Background(), tools, Config{}, c)
	assert.Empty(t, tr.Incomplete)
	assert.Equal(t, "NUTM2G.", tr.Answer, "the answer is the case's expected answer")
	assert.Equal(t, []string{"echo: NUTM2G"}, tr.Results, "error results are not among the results")
	c.Expected, c.Claims = "", []eval.Claim{{Text: "It is NUTM2G."}, {Text: "It is a gene."}}
	tr = Reference(context.Background(), tools, Config{}, c)
	assert.Equal(t, "It is NUTM2G.\nIt is a gene.", tr.Answer, "a case graded by claims answers with its claims")
	require.Len(t, tr.ToolCalls, 2)
	assert.True(t, tr.ToolCalls[0].IsError)

	c.Reference[0].ExpectError = false
	tr = Reference(context.Background(), tools, Config{}, c)
	assert.Contains(t, tr.Incomplete, "reference call 1 (boom) failed")

	tr = Reference(context.Background(), tools, Config{LimitCounter: counter(t), TokenLimit: 1000}, eval.Case{Reference: []eval.RefCall{{Tool: "huge"}}})
	assert.Contains(t, tr.TokenLimit, "> 1,000")
}

// A result that came from the recordings (a replay) carries its
// fingerprint and is not recorded again; a server's result is.
func TestMeasureRecordsOnlyWhatIsNotRecorded(t *testing.T) {
	var recorded []string
	cfg := Config{Recorder: func(result string) string {
		recorded = append(recorded, result)
		return "fp-" + result
	}}
	replayed := eval.ToolCall{Result: "from the store", Replay: eval.ReplayRecorded, ResultFingerprint: "fp-stored"}
	measure(cfg, &replayed)
	assert.Equal(t, "fp-stored", replayed.ResultFingerprint)
	live := eval.ToolCall{Result: "from the server"}
	measure(cfg, &live)
	assert.Equal(t, "fp-from the server", live.ResultFingerprint)
	assert.Equal(t, []string{"from the server"}, recorded)
}
