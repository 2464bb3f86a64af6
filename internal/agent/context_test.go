package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/llm"
)

// A provider's prompt count far below what the request holds is a prompt
// cut to the context window (Ollama cuts silently to num_ctx, or to half
// of it); counts that differ as tokenizers do are not.
func TestPromptCut(t *testing.T) {
	c := counter(t)
	long := strings.Repeat("The patient carries a heterozygous variant in NUTM2G. ", 600) // about 7,800 tokens
	sent := c.Count(long)
	require.Greater(t, sent, 7000)
	tests := []struct {
		name           string
		prompt, cached int
		noUsage        bool
		cut            bool
	}{
		{name: "taken whole", prompt: sent},
		{name: "another tokenizer counts a third more", prompt: sent * 4 / 3},
		{name: "another tokenizer counts a third less", prompt: sent * 2 / 3},
		{name: "just over half", prompt: sent*51/100 + 1},
		{name: "cut to num_ctx 2048", prompt: 2048, cut: true},
		{name: "cut to half of num_ctx 4096", prompt: 2050, cut: true},
		{name: "cached tokens counted apart from the prompt", prompt: 40, cached: sent - 40},
		{name: "cached tokens within the prompt", prompt: 2048, cached: 1024, cut: true},
		{name: "no usage reported", noUsage: true},
		{name: "no prompt count", prompt: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := llm.Response{HasUsage: !tt.noUsage, Usage: eval.Usage{PromptTokens: tt.prompt, CachedTokens: tt.cached}}
			got := promptCut(resp, (&shown{counter: c}).of([]eval.Message{{Role: "user", Content: long}}), c.Encoding)
			if !tt.cut {
				assert.Empty(t, got)
				return
			}
			assert.Contains(t, got, "the provider cut the prompt to fit the model's context window: it counted ")
			assert.Contains(t, got, "where the request's messages alone hold about ")
			assert.Contains(t, got, "Ollama: num_ctx")
		})
	}

	// A short request is never called cut: too little to tell.
	short := llm.Request{Messages: []eval.Message{{Role: "user", Content: "What is the Entrez id of NUTM2G?"}}}
	assert.Empty(t, promptCut(llm.Response{HasUsage: true, Usage: eval.Usage{PromptTokens: 1}}, (&shown{counter: c}).of(short.Messages), c.Encoding))
}

// The loop stops at a cut prompt: what the model said of a conversation
// it never saw whole is not its answer.
func TestRunStopsAtACutPrompt(t *testing.T) {
	long := strings.Repeat("The patient carries a heterozygous variant in NUTM2G. ", 600)
	reply := answer("NUTM2G")
	reply.Usage.PromptTokens = 2048
	tr, err := Run(context.Background(), &script{turns: []llm.Response{reply}}, toolServer(t), Config{Counter: counter(t)}, long)
	require.NoError(t, err)
	assert.Empty(t, tr.Answer)
	assert.Contains(t, tr.TokenLimit, "it counted 2,048 prompt tokens")
	assert.Equal(t, 1, tr.Usage.Requests, "what the request cost is counted")
}

// shown counts what templates show of a conversation (texts and tool-call
// arguments, never reasoning sent back), each message once however many
// requests send it again, as a fresh count would.
func TestShownCountsEachMessageOnce(t *testing.T) {
	c := counter(t)
	conv := []eval.Message{{Role: "system", Content: "Use the tools."}, {Role: "user", Content: "What is the Entrez id of NUTM2G?"}}
	s := shown{counter: c}
	first := s.of(conv)
	assert.Equal(t, c.Count("Use the tools.")+c.Count("What is the Entrez id of NUTM2G?"), first)
	conv = append(conv, eval.Message{Role: "assistant", ToolCalls: []eval.MessageToolCall{{Function: eval.FunctionCall{Name: "get", Arguments: `{"gene_symbol":"NUTM2G"}`}}},
		Extra: map[string]json.RawMessage{"reasoning_content": json.RawMessage(`"` + strings.Repeat("think ", 100) + `"`)}})
	conv = append(conv, eval.Message{Role: "tool", Content: "NUTM2G: Entrez 441457"})
	again := s.of(conv)
	assert.Equal(t, first+c.Count(`{"gene_symbol":"NUTM2G"}`)+c.Count("NUTM2G: Entrez 441457"), again)
	assert.Equal(t, again, (&shown{counter: c}).of(conv), "as a fresh count")
	assert.Equal(t, 4, s.counted)
}
