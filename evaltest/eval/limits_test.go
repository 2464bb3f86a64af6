package eval

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLimitText(t *testing.T) {
	const max = 100
	tests := []struct {
		name   string
		text   string
		cut    bool
		prefix string
	}{
		{name: "empty", text: ""},
		{name: "short", text: "short answer"},
		{name: "exactly the limit", text: strings.Repeat("a", max)},
		{name: "one byte over", text: strings.Repeat("a", max+1), cut: true, prefix: strings.Repeat("a", max-markReserve)},
		{name: "far over", text: strings.Repeat("b", 50<<20), cut: true, prefix: strings.Repeat("b", max-markReserve)},
		// A character of three bytes straddles the cut: it is kept whole or not at all.
		{name: "multi-byte characters", text: strings.Repeat("é€", 40), cut: true, prefix: strings.Repeat("é€", 7)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.text
			full, cut := limitText(&s, max)
			assert.Equal(t, len(tt.text), full)
			require.Equal(t, tt.cut, cut)
			if !tt.cut {
				assert.Equal(t, tt.text, s)
				return
			}
			assert.LessOrEqual(t, len(s), max)
			assert.True(t, utf8.ValidString(s))
			mark := fmt.Sprintf("\n[cut: %d bytes in all, the first %d kept]", len(tt.text), len(tt.prefix))
			assert.Equal(t, tt.prefix+mark, s)
		})
	}
}

func TestRecordLimitCutsEveryProducedText(t *testing.T) {
	big := strings.Repeat("x", MaxStoredText+1)
	small := "kept as it is"
	r := Record{
		Name: "case", Question: small, Expected: small,
		Response: big, Reason: big, JudgeRaw: big,
		ToolCalls: []ToolCall{{ID: "c1", Name: "t", Arguments: big, Result: big}, {ID: "c2", Name: "t", Arguments: small, Result: small}},
		Conversation: []Message{
			{Role: "user", Content: small},
			{Role: "assistant", ToolCalls: []MessageToolCall{{ID: "c1", Function: FunctionCall{Name: "t", Arguments: big}}}},
			{Role: "tool", ToolCallID: "c1", Content: big},
			{Role: "assistant", Content: big},
		},
		Turns: []TurnResult{{Turn: 1, User: small, Reply: big, Reason: big}, {Turn: 2, User: small, Reply: small}, {Turn: 3, User: big, Reply: small, Simulated: true}},
	}
	require.True(t, r.Limit(MaxStoredText))
	for _, text := range []string{r.Response, r.Reason, r.JudgeRaw, r.ToolCalls[0].Arguments, r.ToolCalls[0].Result,
		r.Conversation[1].ToolCalls[0].Function.Arguments, r.Conversation[2].Content, r.Conversation[3].Content,
		r.Turns[0].Reply, r.Turns[0].Reason, r.Turns[2].User} {
		assert.LessOrEqual(t, len(text), MaxStoredText)
		assert.Contains(t, text, fmt.Sprintf("[cut: %d bytes in all, the first", len(big)))
	}
	for _, n := range []int{r.ResponseBytes, r.ToolCalls[0].ArgumentsBytes, r.ToolCalls[0].ResultBytes,
		r.Conversation[1].ToolCalls[0].Function.ArgumentsBytes, r.Conversation[2].ContentBytes, r.Conversation[3].ContentBytes} {
		assert.Equal(t, len(big), n, "the full size is recorded")
	}
	assert.Equal(t, small, r.ToolCalls[1].Result)
	assert.Zero(t, r.ToolCalls[1].ResultBytes, "a text stored whole records no size")
	assert.Equal(t, small, r.Conversation[0].Content)
	assert.Zero(t, r.Conversation[0].ContentBytes)
	assert.Equal(t, small, r.Turns[1].Reply)
	assert.Equal(t, small, r.Turns[1].User, "a message the case wrote is the user's own")
	assert.False(t, r.Limit(MaxStoredText), "a limited record is within the limit")
}
