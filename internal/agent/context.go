package agent

import (
	"fmt"

	"github.com/mcpeval/mcpeval/internal/llm"
	"github.com/mcpeval/mcpeval/internal/tokens"
)

// RaiseContext names the settings of the local servers that bound a
// model's context window: a case that does not fit says which to raise.
const RaiseContext = "raise the model's context window (Ollama: num_ctx in its Modelfile, or OLLAMA_CONTEXT_LENGTH; llama.cpp: --ctx-size; vLLM: --max-model-len)"

// A prompt the provider counted at under cutShare of the suite's estimate,
// and at least minCutTokens fewer, was cut to fit a context window:
// tokenizers differ by far less than that, and Ollama cuts a prompt longer
// than num_ctx to half of it (ollama/ollama#17427), less than half the
// prompt.
const (
	cutShare     = 0.5
	minCutTokens = 512
)

// promptCut says, when the provider's prompt count is far below what the
// request's messages hold, that the provider cut the prompt to its context
// window (Ollama does, silently, to num_ctx): the model answered a
// conversation it never saw whole. It gives "" for a prompt the provider
// took whole. Only what every chat template shows the model whole is
// counted: the messages' texts and tool calls, not the tool definitions
// (a template may show only their names) nor reasoning sent back (many
// templates drop it).
func promptCut(counter *tokens.Counter, resp llm.Response, req llm.Request) string {
	if !resp.HasUsage || counter == nil || resp.Usage.PromptTokens <= 0 {
		return ""
	}
	got := resp.Usage.PromptTokens
	if cached := resp.Usage.CachedTokens; cached > got {
		got += cached // counted apart from the prompt (Anthropic's input_tokens)
	}
	sent := 0
	for _, m := range req.Messages {
		sent += counter.Count(m.Content)
		for _, tc := range m.ToolCalls {
			sent += counter.Count(tc.Function.Arguments)
		}
	}
	if sent-got < minCutTokens || float64(got) >= cutShare*float64(sent) {
		return ""
	}
	return fmt.Sprintf("the provider cut the prompt to fit the model's context window: it counted %s prompt tokens where the request's messages alone hold about %s (%s): %s",
		tokens.Grouped(got), tokens.Grouped(sent), counter.Encoding, RaiseContext)
}

// promptTokens estimates, in counter's encoding, what a request sends: its
// messages, with the fields the provider attached to them, and its tool
// definitions.
func promptTokens(counter *tokens.Counter, req llm.Request) int {
	n := 0
	for _, m := range req.Messages {
		n += messageTokens(counter, m) + 4 // role and separators
	}
	return n + tokens.ToolDefinitions(counter, req.Tools)
}
