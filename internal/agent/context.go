package agent

import (
	"fmt"

	"github.com/mcpeval/mcpeval/evaltest/eval"
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

// promptCut says, when the provider's prompt count is far below sent, the
// tokens the request's messages hold (see shown), that the provider cut the
// prompt to its context window (Ollama does, silently, to num_ctx): the
// model answered a conversation it never saw whole. It gives "" for a
// prompt the provider took whole.
func promptCut(resp llm.Response, sent int, encoding string) string {
	if !resp.HasUsage || resp.Usage.PromptTokens <= 0 {
		return ""
	}
	got := resp.Usage.PromptTokens
	if cached := resp.Usage.CachedTokens; cached > got {
		got += cached // counted apart from the prompt (Anthropic's input_tokens)
	}
	if sent-got < minCutTokens || float64(got) >= cutShare*float64(sent) {
		return ""
	}
	return fmt.Sprintf("the provider cut the prompt to fit the model's context window: it counted %s prompt tokens where the request's messages alone hold about %s (%s): %s",
		tokens.Grouped(got), tokens.Grouped(sent), encoding, RaiseContext)
}

// shown counts what every chat template shows the model of a
// conversation: its messages' texts and tool-call arguments, not the tool
// definitions (a template may show only their names) nor reasoning sent
// back (many templates drop it). A conversation only grows: each message
// is counted once, however many requests send it again.
type shown struct {
	counter         *tokens.Counter
	counted, tokens int
}

// of returns the tokens of msgs, counting the messages not counted yet.
func (s *shown) of(msgs []eval.Message) int {
	for ; s.counted < len(msgs); s.counted++ {
		m := msgs[s.counted]
		s.tokens += s.counter.Count(m.Content)
		for _, tc := range m.ToolCalls {
			s.tokens += s.counter.Count(tc.Function.Arguments)
		}
	}
	return s.tokens
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
