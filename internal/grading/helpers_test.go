package grading

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/agent"
	"github.com/mcpeval/mcpeval/internal/llm"
	"github.com/mcpeval/mcpeval/internal/tokens"
)

// caseYAML is a case file of one case with the required fields, and extra
// YAML lines under it.
func caseYAML(name string, extra ...string) string {
	s := "- case:\n    name: " + name + "\n    input: \"Q?\"\n    expected: \"A.\"\n"
	for _, e := range extra {
		s += "    " + e + "\n"
	}
	return s
}

// script is a chat that replies with its turns in order, and records the
// requests.
type script struct {
	turns []llm.Response
	got   []llm.Request
}

func (s *script) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	s.got = append(s.got, req)
	if len(s.got) > len(s.turns) {
		return llm.Response{Message: eval.Message{Role: "assistant", Content: "done"}, HasUsage: true}, nil
	}
	return s.turns[len(s.got)-1], nil
}

func counter(t *testing.T) *tokens.Counter {
	c, err := tokens.New(tokens.Default)
	require.NoError(t, err)
	return c
}

func TestJudgeSkipsOversizedPrompt(t *testing.T) {
	chat := &script{}
	judge := Panel{Models: []string{"judge"}}
	v, err := judge.Judge(context.Background(), chat, agent.Config{LimitCounter: counter(t), TokenLimit: 50}, "q", "e", strings.Repeat("long answer ", 100))
	require.NoError(t, err)
	assert.Contains(t, v.Skipped, "evaluation skipped: judge prompt token count exceeded")
	assert.False(t, v.Pass)
	assert.Empty(t, chat.got, "the oversized prompt is not sent")

	chat = &script{turns: []llm.Response{{Message: eval.Message{Role: "assistant", ToolCalls: []eval.MessageToolCall{{ID: "1", Function: eval.FunctionCall{Name: verdictTool, Arguments: `{"verdict":"yes","reason":"ok"}`}}}}}}}
	v, err = judge.Judge(context.Background(), chat, agent.Config{Model: "the evaluated model"}, "q", "e", "a")
	require.NoError(t, err)
	assert.True(t, v.Pass)
	require.Len(t, chat.got, 1)
	assert.Equal(t, verdictTool, chat.got[0].ForceTool)
	assert.Equal(t, "judge", chat.got[0].Model)
}

// outcomeOf names a check's outcome: "pass", "fail" or "undecided".
func outcomeOf(r eval.CheckResult) string {
	switch {
	case r.Passed:
		return "pass"
	case r.Undecided:
		return "undecided"
	}
	return "fail"
}
