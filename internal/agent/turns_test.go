package agent

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/llm"
)

// callAs is calls with the call's own id, unique in a conversation.
func callAs(id, name, args string) llm.Response {
	r := calls([2]string{name, args})
	r.Message.ToolCalls[0].ID = id
	return r
}

func TestContinueCarriesTheConversationOver(t *testing.T) {
	tools := toolServer(t)
	chat := &script{turns: []llm.Response{
		callAs("a1", "echo", `{"text":"first"}`), answer("first reply"),
		callAs("b1", "echo", `{"text":"second"}`), answer("second reply"),
	}}
	// Each turn has MaxIterations of its own: two here, two requests a turn.
	cfg := Config{Model: "m", MaxIterations: 2}
	tr, err := Run(context.Background(), chat, tools, cfg, "first question")
	require.NoError(t, err)
	assert.Equal(t, "first reply", tr.Answer)
	require.NoError(t, tr.Continue(context.Background(), chat, tools, cfg, "second question"))
	assert.Equal(t, "second reply", tr.Answer)
	assert.Empty(t, tr.Incomplete)

	roles := make([]string, len(tr.Conversation))
	for i, m := range tr.Conversation {
		roles[i] = m.Role + ":" + m.Content
	}
	assert.Equal(t, []string{
		"system:" + DefaultSystemPrompt, "user:first question", "assistant:", "tool:echo: first", "assistant:first reply",
		"user:second question", "assistant:", "tool:echo: second", "assistant:second reply",
	}, roles)
	require.Len(t, chat.got, 4)
	assert.Len(t, chat.got[2].Messages, 6, "the second turn's first request carries the first turn whole")
	require.Len(t, tr.ToolCalls, 2)
	assert.Equal(t, []string{"echo: first", "echo: second"}, []string{tr.ToolCalls[0].Result, tr.ToolCalls[1].Result})
	assert.Equal(t, 4, tr.Usage.Requests, "the usage is the conversation's")
}

func TestContinueSaysHowItsOwnTurnEnded(t *testing.T) {
	tools := toolServer(t)
	chat := &script{turns: []llm.Response{
		answer("first reply"),
		callAs("b1", "echo", `{"text":"x"}`), callAs("b2", "echo", `{"text":"y"}`),
	}}
	cfg := Config{Model: "m", MaxIterations: 2}
	tr, err := Run(context.Background(), chat, tools, cfg, "first question")
	require.NoError(t, err)
	require.NoError(t, tr.Continue(context.Background(), chat, tools, cfg, "second question"))
	assert.Empty(t, tr.Answer, "the first turn's reply is not the second's")
	assert.Equal(t, "no final answer after 2 iterations", tr.Incomplete)
}

func TestReferenceTurns(t *testing.T) {
	tools := toolServer(t)
	echo := func(text string) []eval.RefCall {
		return []eval.RefCall{{Tool: "echo", Args: map[string]any{"text": text}}}
	}
	tr := ReferenceTurn(context.Background(), tools, Config{}, nil, "first", echo("one"), "")
	assert.Equal(t, "echo: one", tr.Answer, "no reply expected: the turn's results")
	tr = ReferenceTurn(context.Background(), tools, Config{}, tr, "second", nil, "")
	assert.Equal(t, NoReplyExpected, tr.Answer, "no reply expected and no results")
	tr = ReferenceTurn(context.Background(), tools, Config{}, tr, "third", append(echo("two"), eval.RefCall{Tool: "boom"}), "the answer")
	assert.Equal(t, "the answer", tr.Answer)
	assert.Equal(t, "reference call 2 (boom) failed: boom: no such gene", tr.Incomplete, "the numbers are the turn's own calls'")
	assert.Equal(t, []string{"echo: one", "echo: two"}, tr.Results, "the results of every turn")
	ids := []string{}
	for _, c := range tr.ToolCalls {
		ids = append(ids, c.ID)
	}
	assert.Equal(t, []string{"ref_1", "ref_2", "ref_3"}, ids, "call ids stay unique over the turns")
	users := 0
	for _, m := range tr.Conversation {
		if m.Role == "user" {
			users++
		}
	}
	assert.Equal(t, 3, users)
}
