package llmstub

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// A conversation is replayed turn by turn, each turn told by the user
// messages of the request: its reference calls, then its expected reply
// when the results of the conversation so far hold it.
func TestReplayPlaysEachTurn(t *testing.T) {
	c := eval.Case{
		Input: "CADD of c.187C>T?", Expected: "c.1087C>A scores 0.662 higher: 8.765 against 8.103.",
		Reference: []eval.RefCall{{Tool: "dbnsfp", Args: map[string]any{"pos": "1"}}},
		Turns: []eval.Turn{
			{User: "Sorry, I meant c.1087C>A.", ReplyExpect: eval.ReplyExpect{Expected: "Its CADD phred score is 8.765.",
				Checks: eval.Checks{Contains: eval.Terms{{Any: []string{"phred"}}}}}, Reference: []eval.RefCall{{Tool: "dbnsfp", Args: map[string]any{"pos": "2"}}}},
			{User: "Which scores higher?"},
		},
	}
	replay := Replay([]eval.Case{c})
	msgs := []eval.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: c.Input}}
	next := func(want string) Reply {
		t.Helper()
		r := replay(Request{Messages: msgs})
		if len(r.ToolCalls) > 0 {
			msgs = append(msgs, eval.Message{Role: "assistant", ToolCalls: []eval.MessageToolCall{{Function: eval.FunctionCall{Name: r.ToolCalls[0].Name, Arguments: r.ToolCalls[0].Arguments}}}})
		} else {
			msgs = append(msgs, eval.Message{Role: "assistant", Content: r.Content})
			assert.Equal(t, want, r.Content)
		}
		return r
	}
	r := next("")
	require.Len(t, r.ToolCalls, 1)
	assert.JSONEq(t, `{"pos":"1"}`, r.ToolCalls[0].Arguments)
	msgs = append(msgs, eval.Message{Role: "tool", Content: `{"CADD": {"phred": 8.103}}`})
	next(`{"CADD": {"phred": 8.103}}`) // no reply expected at the first turn: the turn's results

	msgs = append(msgs, eval.Message{Role: "user", Content: c.Turns[0].User})
	r = next("")
	require.Len(t, r.ToolCalls, 1)
	assert.JSONEq(t, `{"pos":"2"}`, r.ToolCalls[0].Arguments, "the second turn's own reference")
	msgs = append(msgs, eval.Message{Role: "tool", Content: `{"CADD": {"phred": 8.765}}`})
	next("Its CADD phred score is 8.765.")

	msgs = append(msgs, eval.Message{Role: "user", Content: c.Turns[1].User})
	next(c.Expected) // 0.662 is the difference of what the two turns found

	// Data that no longer holds a turn's expected reply: the turn's results.
	msgs[len(msgs)-4].Content = `{"CADD": {"phred": 9.5}}`
	assert.Equal(t, `{"CADD": {"phred": 9.5}}`, replay(Request{Messages: msgs[:len(msgs)-3]}).Content)

	// Past the last turn the stub knows nothing.
	msgs = append(msgs, eval.Message{Role: "user", Content: "And now?"})
	assert.Equal(t, "I do not know.", replay(Request{Messages: msgs}).Content)
}

func TestWrongAtTurn(t *testing.T) {
	wrong := WrongAtTurn(func(Request) Reply { return Reply{Content: "right"} }, 2)
	one := []eval.Message{{Role: "user", Content: "q"}}
	two := append(one, eval.Message{Role: "assistant", Content: "right"}, eval.Message{Role: "user", Content: "and?"})
	assert.Equal(t, "right", wrong(Request{Messages: one}).Content)
	assert.Equal(t, WrongAnswer, wrong(Request{Messages: two}).Content)
	assert.Equal(t, 2, Request{Messages: two}.Turn())
}

// The reply to the input is the case's first reply when it has one, with
// scripted turns and with a simulated user; the agent that never asks
// does not give it.
func TestReplayGivesTheFirstReply(t *testing.T) {
	first := &eval.ReplyExpect{Expected: "Which genome build are the coordinates on?", Asks: eval.Spellings{"build"}}
	scripted := eval.Case{Input: "Which gene is at chr17:7675088?", Expected: "TP53.", FirstReply: first,
		Turns: []eval.Turn{{User: "GRCh38."}}}
	simulated := eval.Case{Input: "Which gene is at chr9:1000?", Expected: "TP53.", FirstReply: first,
		Reference: []eval.RefCall{{Tool: "gene", Args: map[string]any{"build": "hg38"}}},
		User:      &eval.User{Instructions: "A geneticist.", Knows: []eval.UserFact{{Fact: "GRCh38.", Any: eval.Spellings{"GRCh38", "hg38"}, When: eval.Spellings{"build"}}}}}
	ask := func(r Responder, c eval.Case) Reply {
		return r(Request{Messages: []eval.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: c.Input}}})
	}
	cases := []eval.Case{scripted, simulated}
	assert.Equal(t, first.Expected, ask(Replay(cases), scripted).Content)
	assert.Equal(t, first.Expected, ask(Replay(cases), simulated).Content)
	r := ask(ReplayWithoutAsking(cases), simulated)
	require.Len(t, r.ToolCalls, 1, "it calls at once")
	assert.JSONEq(t, `{}`, r.ToolCalls[0].Arguments, "without the build it was not told")
}
