package llmstub

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/usersim"
)

// geneAt is a case whose answer needs the genome build, which its user
// gives only when asked.
var geneAt = eval.Case{
	Input: "Which gene is at chr17:7675088?", Expected: "On GRCh38 it lies in TP53 (Entrez Gene ID 7157).",
	Checks:    eval.Checks{Contains: eval.Terms{{Any: []string{"TP53"}}}},
	Reference: []eval.RefCall{{Tool: "get_gene_by_position", Args: map[string]any{"chromosome": "17", "position": 7675088, "build": "hg38"}}},
	User: &eval.User{Instructions: "A geneticist.", Knows: []eval.UserFact{
		{Fact: "The VCF is on GRCh38 (hg38).", Any: eval.Spellings{"GRCh38", "hg38"}, When: eval.Spellings{"build", "assembly"}}}},
}

// userPlayer plays both sides of a conversation with a simulated user
// through one stub: the agent's requests and the user's (as the suite
// sends them, usersim.Messages), the tool results given by results.
type userPlayer struct {
	t       *testing.T
	stub    Responder
	agent   []eval.Message
	turns   []eval.TurnResult
	results func(args string) string
}

// converse runs the conversation to its end and returns its turns.
func (p *userPlayer) converse() []eval.TurnResult {
	p.agent = []eval.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: geneAt.Input}}
	p.turns = []eval.TurnResult{{User: geneAt.Input}}
	for len(p.turns) < 6 {
		r := p.stub(Request{Messages: p.agent})
		if len(r.ToolCalls) > 0 {
			p.agent = append(p.agent, eval.Message{Role: "assistant", ToolCalls: []eval.MessageToolCall{{Function: eval.FunctionCall{Name: r.ToolCalls[0].Name, Arguments: r.ToolCalls[0].Arguments}}}},
				eval.Message{Role: "tool", Content: p.results(r.ToolCalls[0].Arguments)})
			continue
		}
		p.agent = append(p.agent, eval.Message{Role: "assistant", Content: r.Content})
		p.turns[len(p.turns)-1].Reply = r.Content
		u := p.stub(Request{Messages: usersim.Messages(*geneAt.User, p.turns)})
		msg, done := usersim.Read(u.Content)
		if done {
			return p.turns
		}
		p.turns = append(p.turns, eval.TurnResult{User: msg})
		p.agent = append(p.agent, eval.Message{Role: "user", Content: msg})
	}
	p.t.Fatal("the conversation did not end")
	return nil
}

// byBuild is the sample server's get_gene_by_position at chr17:7675088:
// TP53 on hg38, nothing on hg19 (the default).
func byBuild(args string) string {
	if args == `{"build":"hg38","chromosome":"17","position":7675088}` {
		return `{"data":{"genesByGenomicLocation":[{"symbol":"TP53","entrezId":7157}]},"build":"hg38"}`
	}
	return `{"data":{"genesByGenomicLocation":[]},"build":"hg19","message":"No gene found."}`
}

func TestReplayAsksTheSimulatedUser(t *testing.T) {
	tests := []struct {
		name  string
		stub  Responder
		turns []eval.TurnResult
	}{
		{
			name: "an agent that asks",
			stub: Replay([]eval.Case{geneAt}),
			turns: []eval.TurnResult{
				{User: geneAt.Input, Reply: "Which build do you mean?"},
				{User: "The VCF is on GRCh38 (hg38).", Reply: geneAt.Expected},
			},
		},
		{
			name: "an agent that never asks",
			stub: ReplayWithoutAsking([]eval.Case{geneAt}),
			turns: []eval.TurnResult{
				{User: geneAt.Input, Reply: WrongAnswer},
			},
		},
		{
			name: "an agent that never asks, told unasked",
			stub: LeakyUser(ReplayWithoutAsking([]eval.Case{geneAt}), []eval.Case{geneAt}),
			turns: []eval.TurnResult{
				{User: geneAt.Input, Reply: WrongAnswer},
				{User: "The VCF is on GRCh38 (hg38).", Reply: geneAt.Expected},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &userPlayer{t: t, stub: tt.stub, results: byBuild}
			assert.Equal(t, tt.turns, p.converse())
		})
	}
}

func TestPlayedUser(t *testing.T) {
	replay := Replay([]eval.Case{geneAt})
	msgs := usersim.Messages(*geneAt.User, []eval.TurnResult{{User: geneAt.Input, Reply: "Which assembly?"}})
	req := Request{Messages: msgs}
	require.True(t, req.PlaysUser())
	assert.Equal(t, "The VCF is on GRCh38 (hg38).", replay(req).Content)
	assert.Equal(t, 500, FailingUser(replay)(req).Status, "a user whose provider is down")
	assert.Equal(t, "Which build do you mean?", FailingUser(replay)(Request{Messages: []eval.Message{{Role: "user", Content: geneAt.Input}}}).Content, "the agent is answered")

	elicit := Request{Messages: usersim.ElicitMessages(*geneAt.User, []eval.TurnResult{{User: geneAt.Input}}, "Which build?", []string{"build"})}
	action, _ := usersim.ReadElicit(replay(elicit).Content)
	assert.Equal(t, eval.ElicitDecline, action, "the stub's user declines requests for input")

	judged := Request{ToolChoice: []byte(`{"type":"function","function":{"name":"submit_verdict"}}`),
		Messages: []eval.Message{{Role: "user", Content: `{"actual_answer": "` + WrongAnswer + `"}`}}}
	assert.Contains(t, ReplayWithoutAsking([]eval.Case{geneAt})(judged).ToolCalls[0].Arguments, `"verdict":"no"`, "the agent that never asks is told it is wrong")
	assert.Contains(t, replay(judged).ToolCalls[0].Arguments, `"verdict":"yes"`)

	unknown := usersim.Messages(*geneAt.User, []eval.TurnResult{{User: "another question", Reply: "Which build?"}})
	assert.Equal(t, usersim.Stop, replay(Request{Messages: unknown}).Content, "the user of an unknown case is done")
	assert.Equal(t, "right", WrongAtTurn(func(Request) Reply { return Reply{Content: "right"} }, 1)(req).Content, "the user is not the model made wrong")
}
