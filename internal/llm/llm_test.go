package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

// sentRequest is a chat-completions request body as a provider decodes it.
type sentRequest struct {
	Model    string         `json:"model"`
	Messages []eval.Message `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	ToolChoice          json.RawMessage `json:"tool_choice"`
	Temperature         *float64        `json:"temperature"`
	MaxTokens           int             `json:"max_tokens"`
	MaxCompletionTokens int             `json:"max_completion_tokens"`
}

func decodeWire(t *testing.T, body []byte) sentRequest {
	t.Helper()
	var w sentRequest
	require.NoError(t, json.Unmarshal(body, &w), "body: %s", body)
	return w
}

func conversation() []eval.Message {
	return []eval.Message{
		{Role: "system", Content: "Answer with the tools."},
		{Role: "user", Content: "Where is BRCA1 and what is known about TP53?"},
		{Role: "assistant", ToolCalls: []eval.MessageToolCall{
			{ID: "call_1", Type: "function", Function: eval.FunctionCall{Name: "gene_lookup", Arguments: `{"symbol":"BRCA1"}`}},
			{ID: "call_2", Type: "function", Function: eval.FunctionCall{Name: "search", Arguments: `{"q":"TP53","limit":3}`}},
		}},
		{Role: "tool", ToolCallID: "call_1", Name: "gene_lookup", Content: `{"chrom":"17","start":43044295}`},
		{Role: "tool", ToolCallID: "call_2", Name: "search", Content: "3 hits: <b>TP53</b> & friends"},
		{Role: "assistant", Content: "BRCA1 is on chromosome 17."},
		{Role: "user", Content: "Thanks — and \"TP53\"?"},
	}
}

const lookupSchema = `{"type":"object","properties":{"symbol":{"type":"string","description":"HGNC symbol"}},"required":["symbol"],"additionalProperties":false}`
const searchSchema = `{"type":"object","properties":{"q":{"type":"string"},"limit":{"type":"integer","minimum":1}},"required":["q"],"$defs":{"x":{"type":"string"}}}`

func TestChatRequestOnTheWire(t *testing.T) {
	tests := []struct {
		name       string
		forceTool  string
		toolChoice string // expected tool_choice JSON, "" for none sent
	}{
		{name: "model chooses", forceTool: ""},
		{name: "tool forced", forceTool: "search", toolChoice: `{"type":"function","function":{"name":"search"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startProvider(t, completion("ok"))
			req := Request{
				Model:    "vendor/test-model",
				Messages: conversation(),
				Tools: []eval.Tool{
					{Name: "gene_lookup", Description: "Look a gene up.", Parameters: json.RawMessage(lookupSchema)},
					{Name: "search", Description: "Search the literature.", Parameters: json.RawMessage(searchSchema)},
				},
				ForceTool: tt.forceTool,
			}
			_, err := p.client().Chat(context.Background(), req)
			require.NoError(t, err)

			got := p.requests()
			require.Len(t, got, 1)
			assert.Equal(t, http.MethodPost, got[0].method)
			assert.Equal(t, "/v1/chat/completions", got[0].path)
			assert.Equal(t, "application/json", got[0].header.Get("Content-Type"))

			w := decodeWire(t, got[0].body)
			assert.Equal(t, "vendor/test-model", w.Model)
			assert.Equal(t, req.Messages, w.Messages, "messages must round-trip with tool_calls, tool_call_id and name")

			require.Len(t, w.Tools, 2)
			for i, want := range req.Tools {
				assert.Equal(t, "function", w.Tools[i].Type)
				assert.Equal(t, want.Name, w.Tools[i].Function.Name)
				assert.Equal(t, want.Description, w.Tools[i].Function.Description)
				assert.JSONEq(t, string(want.Parameters), string(w.Tools[i].Function.Parameters))
			}

			if tt.toolChoice == "" {
				assert.Empty(t, w.ToolChoice, "no tool_choice unless a tool is forced")
			} else {
				assert.JSONEq(t, tt.toolChoice, string(w.ToolChoice))
			}

			require.NotNil(t, w.Temperature, "temperature must be sent (omitting it means the provider default, often 1)")
			assert.InDelta(t, 0, *w.Temperature, 1e-9)

			// The stub of the project reads the same body the same way.
			var stubReq llmstub.Request
			require.NoError(t, json.Unmarshal(got[0].body, &stubReq))
			assert.Equal(t, tt.forceTool, stubReq.ForcedTool())
			assert.Equal(t, req.Messages[1].Content, stubReq.Question())
		})
	}
}

func TestChatToolWithoutSchemaSendsAnObjectSchema(t *testing.T) {
	p := startProvider(t, completion("ok"))
	_, err := p.client().Chat(context.Background(), Request{
		Model:    "m",
		Messages: []eval.Message{{Role: "user", Content: "now?"}},
		Tools:    []eval.Tool{{Name: "clock", Description: "The time."}},
	})
	require.NoError(t, err)
	w := decodeWire(t, p.requests()[0].body)
	require.Len(t, w.Tools, 1)
	assert.JSONEq(t, `{"type":"object","properties":{}}`, string(w.Tools[0].Function.Parameters),
		"providers reject \"parameters\": null")
}

// Reasoning models accept only their default temperature; go-openai refuses
// to send any other locally, so the request must go out without one.
func TestChatReasoningModelsOmitTemperature(t *testing.T) {
	tests := []struct {
		model           string
		wantTemperature bool
	}{
		{model: "gpt-4o-mini", wantTemperature: true},
		{model: "openai/gpt-5"}, // OpenRouter's name for it
		{model: "gpt-5-chat-latest", wantTemperature: true},
		{model: "gpt-5-mini"},
		{model: "o3-mini"},
		{model: "o4-mini"},
		{model: "o1"},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			p := startProvider(t, completion("ok"))
			resp, err := p.client().Chat(context.Background(), Request{
				Model:    tt.model,
				Messages: []eval.Message{{Role: "user", Content: "hi"}},
				Tools:    []eval.Tool{{Name: "t", Parameters: json.RawMessage(lookupSchema)}},
			})
			require.NoError(t, err)
			assert.Equal(t, "ok", resp.Message.Content)
			got := p.requests()
			require.Len(t, got, 1)
			w := decodeWire(t, got[0].body)
			assert.Equal(t, tt.model, w.Model)
			if tt.wantTemperature {
				require.NotNil(t, w.Temperature)
				assert.InDelta(t, 0, *w.Temperature, 1e-9)
			} else {
				assert.Nil(t, w.Temperature)
			}
		})
	}
}

func TestChatResponseParsing(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    Response
		wantErr string
	}{
		{
			name: "content with usage and cached tokens",
			body: `{"id":"c1","object":"chat.completion","model":"gpt-4.1-mini-2025-04-14","choices":[{"index":0,"message":{"role":"assistant","content":"BRCA1 is on 17q21."},"finish_reason":"stop"}],
				"usage":{"prompt_tokens":120,"completion_tokens":9,"total_tokens":129,"prompt_tokens_details":{"cached_tokens":64}}}`,
			want: Response{
				Message:      eval.Message{Role: "assistant", Content: "BRCA1 is on 17q21."},
				FinishReason: "stop",
				Usage:        eval.Usage{PromptTokens: 120, CompletionTokens: 9, CachedTokens: 64, TotalTokens: 129, Requests: 1},
				HasUsage:     true,
				Model:        "gpt-4.1-mini-2025-04-14", ID: "c1",
			},
		},
		{
			name: "tool calls with null content",
			body: `{"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[
					{"id":"call_a","type":"function","function":{"name":"gene_lookup","arguments":"{\"symbol\":\"BRCA1\"}"}},
					{"id":"call_b","type":"function","function":{"name":"search","arguments":"{}"}}]},"finish_reason":"tool_calls"}],
				"usage":{"prompt_tokens":50,"completion_tokens":20,"total_tokens":70}}`,
			want: Response{
				Message: eval.Message{Role: "assistant", ToolCalls: []eval.MessageToolCall{
					{ID: "call_a", Type: "function", Function: eval.FunctionCall{Name: "gene_lookup", Arguments: `{"symbol":"BRCA1"}`}},
					{ID: "call_b", Type: "function", Function: eval.FunctionCall{Name: "search", Arguments: `{}`}},
				}},
				FinishReason: "tool_calls",
				Usage:        eval.Usage{PromptTokens: 50, CompletionTokens: 20, TotalTokens: 70, Requests: 1},
				HasUsage:     true,
			},
		},
		{
			name: "no usage reported",
			body: `{"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"length"}]}`,
			want: Response{
				Message:      eval.Message{Role: "assistant", Content: "hi"},
				FinishReason: "length",
				Usage:        eval.Usage{Requests: 1},
			},
		},
		{
			name: "zero usage reported",
			body: `{"choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`,
			want: Response{
				Message:      eval.Message{Role: "assistant", Content: "hi"},
				FinishReason: "stop",
				Usage:        eval.Usage{Requests: 1},
			},
		},
		{
			name: "total missing is computed",
			body: `{"choices":[{"message":{"role":"assistant","content":"x"},"finish_reason":"stop"}],"usage":{"prompt_tokens":30,"completion_tokens":4}}`,
			want: Response{
				Message:      eval.Message{Role: "assistant", Content: "x"},
				FinishReason: "stop",
				Usage:        eval.Usage{PromptTokens: 30, CompletionTokens: 4, TotalTokens: 34, Requests: 1},
				HasUsage:     true,
			},
		},
		{
			name: "missing role means assistant",
			body: `{"choices":[{"message":{"content":"x"},"finish_reason":"stop"}]}`,
			want: Response{Message: eval.Message{Role: "assistant", Content: "x"}, FinishReason: "stop", Usage: eval.Usage{Requests: 1}},
		},
		{
			name:    "no choices",
			body:    `{"choices":[],"usage":{"prompt_tokens":3,"total_tokens":3}}`,
			wantErr: "the response holds no choice",
		},
		{
			name:    "not JSON",
			body:    `<html>gateway</html>`,
			wantErr: "the response is not a chat completion (invalid character",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startProvider(t, reply(http.StatusOK, tt.body, "Content-Type", "application/json"))
			got, err := p.client().Chat(context.Background(), Request{Model: "m", Messages: []eval.Message{{Role: "user", Content: "q"}}})
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestChatAgainstStub(t *testing.T) {
	stub := llmstub.Start(func(r llmstub.Request) llmstub.Reply {
		if r.ForcedTool() == llmstub.JudgeTool {
			return llmstub.Verdict("yes", "fine")
		}
		return llmstub.Reply{Content: "plain answer", NoUsage: r.Model == "no-usage"}
	}, llmstub.Options{})
	t.Cleanup(stub.Close)
	c := New(Config{BaseURL: stub.BaseURL(), APIKey: testKey})
	msgs := []eval.Message{{Role: "user", Content: "What is BRCA1?"}}

	judge, err := c.Chat(context.Background(), Request{Model: "m", Messages: msgs,
		Tools: []eval.Tool{{Name: llmstub.JudgeTool, Parameters: json.RawMessage(`{"type":"object"}`)}}, ForceTool: llmstub.JudgeTool})
	require.NoError(t, err)
	assert.Equal(t, "tool_calls", judge.FinishReason)
	require.Len(t, judge.Message.ToolCalls, 1)
	assert.Equal(t, llmstub.JudgeTool, judge.Message.ToolCalls[0].Function.Name)
	assert.JSONEq(t, `{"verdict":"yes","reason":"fine","answer_is_correct":true}`, judge.Message.ToolCalls[0].Function.Arguments)
	assert.True(t, judge.HasUsage)
	assert.Positive(t, judge.Usage.CachedTokens)
	assert.Equal(t, judge.Usage.PromptTokens+judge.Usage.CompletionTokens, judge.Usage.TotalTokens)

	plain, err := c.Chat(context.Background(), Request{Model: "no-usage", Messages: msgs})
	require.NoError(t, err)
	assert.Equal(t, "plain answer", plain.Message.Content)
	assert.False(t, plain.HasUsage)

	received := stub.Received()
	require.Len(t, received, 2)
	require.NotNil(t, received[0].Temperature)
	assert.InDelta(t, 0, *received[0].Temperature, 1e-9)
}

func TestChatSendsKeyAndHeadersOnEveryAttempt(t *testing.T) {
	p := startProvider(t, apiError(http.StatusBadGateway, "upstream"), completion("ok"))
	c := p.client(func(c *Config) {
		c.Headers = map[string]string{"X-Title": "mcpeval", "HTTP-Referer": "https://example.test/eval"}
	})
	_, err := c.Chat(context.Background(), Request{Model: "m", Messages: []eval.Message{{Role: "user", Content: "q"}}})
	require.NoError(t, err)
	got := p.requests()
	require.Len(t, got, 2)
	for i, r := range got {
		assert.Equal(t, "Bearer "+testKey, r.header.Get("Authorization"), "attempt %d", i)
		assert.Equal(t, "mcpeval", r.header.Get("X-Title"), "attempt %d", i)
		assert.Equal(t, "https://example.test/eval", r.header.Get("HTTP-Referer"), "attempt %d", i)
	}
}

// echoKey answers with an error whose text quotes the Authorization header, as
// some providers and proxies do.
func echoKey(status int, jsonBody bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if jsonBody {
			apiError(status, "Incorrect API key provided: "+key+". Find your key in the dashboard.")(w, r)
			return
		}
		reply(status, "bad gateway for key "+key)(w, r)
	}
}

func TestAPIKeyNeverInErrors(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		status  int
		keeps   string // provider text that must survive
	}{
		{name: "401 JSON", handler: echoKey(http.StatusUnauthorized, true), status: 401, keeps: "Incorrect API key provided"},
		{name: "400 JSON", handler: echoKey(http.StatusBadRequest, true), status: 400, keeps: "Find your key in the dashboard"},
		{name: "502 text after retries", handler: echoKey(http.StatusBadGateway, false), status: 502, keeps: "bad gateway for key"},
		{name: "429 text after retries", handler: echoKey(http.StatusTooManyRequests, false), status: 429, keeps: "bad gateway for key"},
		{name: "connection closed", handler: hangUp(false), keeps: "/v1/chat/completions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startProvider(t, tt.handler)
			_, err := p.client().Chat(context.Background(), Request{Model: "m", Messages: []eval.Message{{Role: "user", Content: "q"}}})
			require.Error(t, err)
			for _, text := range []string{err.Error(), Describe(err)} {
				assert.NotContains(t, text, testKey)
				assert.NotContains(t, text, testKey[3:])
				assert.Contains(t, text, tt.keeps)
			}
			assert.Equal(t, tt.status, statusCode(err))
			assert.Equal(t, tt.status == 401, IsAuthError(err))
		})
	}
}

func TestStatusCodeAndDescribe(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		code     int
		describe string
	}{
		{name: "status", err: &ProviderError{Status: 403, Message: "forbidden model"}, code: 403, describe: "provider error (HTTP 403): forbidden model"},
		{name: "in a 200 response", err: &ProviderError{Status: 502, InBody: true, Code: "502", Message: "upstream"}, code: 502, describe: "provider error (in a 200 response, status 502): upstream"},
		{name: "with a code", err: &ProviderError{Status: 400, Code: "tool_use_failed", Message: "bad call"}, code: 400, describe: "provider error (HTTP 400, code tool_use_failed): bad call"},
		{name: "wrapped", err: errors.Join(errors.New("ctx"), &ProviderError{Status: 401}), code: 401, describe: "HTTP 401"},
		{name: "gave up", err: &GaveUpError{Err: &ProviderError{Status: 503, Message: "busy"}, Reason: "gave up after 5 retries"}, code: 503, describe: "busy (gave up after 5 retries)"},
		{name: "plain", err: errors.New("dial tcp: refused"), code: 0, describe: "dial tcp: refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.code, statusCode(tt.err))
			assert.Contains(t, Describe(tt.err), tt.describe)
			assert.Equal(t, tt.code == 401 || tt.code == 403, IsAuthError(tt.err), "code %s", strconv.Itoa(tt.code))
		})
	}
}

// The provider's own cost of a request is read from its usage, and usage
// accounting asks for it in every request.
func TestChatReadsTheReportedCost(t *testing.T) {
	cost := 0.00042
	stub := llmstub.Start(func(req llmstub.Request) llmstub.Reply {
		if req.Usage.Include {
			return llmstub.Reply{Content: "priced", CostUSD: &cost}
		}
		return llmstub.Reply{Content: "not asked"}
	}, llmstub.Options{})
	defer stub.Close()

	c := New(Config{BaseURL: stub.BaseURL(), UsageAccounting: true})
	resp, err := c.Chat(context.Background(), Request{Model: "m", Messages: []eval.Message{{Role: "user", Content: "q"}}})
	require.NoError(t, err)
	assert.Equal(t, "priced", resp.Message.Content)
	assert.True(t, resp.CostReported)
	assert.Equal(t, cost, resp.CostUSD)

	c = New(Config{BaseURL: stub.BaseURL()})
	resp, err = c.Chat(context.Background(), Request{Model: "m", Messages: []eval.Message{{Role: "user", Content: "q"}}})
	require.NoError(t, err)
	assert.Equal(t, "not asked", resp.Message.Content, "only usage accounting asks")
	assert.False(t, resp.CostReported, "no cost reported is no cost known")
}

// A response body beyond MaxResponseBytes is counted, not held: Chat fails
// with its size. One of exactly MaxResponseBytes is read.
func TestResponseBodyIsBounded(t *testing.T) {
	// body is a completion of exactly size bytes, its answer padded.
	body := func(size int) string {
		b := `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"fits%s"},"finish_reason":"stop"}]}`
		return fmt.Sprintf(b, strings.Repeat(" ", size-len(b)+2))
	}
	tests := []struct {
		name string
		body string
	}{
		{"at the limit", body(MaxResponseBytes)},
		{"one byte over", body(MaxResponseBytes + 1)},
		{"far over", body(3 * MaxResponseBytes)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startProvider(t, reply(http.StatusOK, tt.body, "Content-Type", "application/json"))
			resp, err := p.client().Chat(context.Background(), question())
			if len(tt.body) <= MaxResponseBytes {
				require.NoError(t, err)
				assert.Equal(t, MaxResponseBytes, len(tt.body))
				assert.Equal(t, "fits", strings.TrimSpace(resp.Message.Content))
				return
			}
			var tooLarge *ResponseTooLargeError
			require.ErrorAs(t, err, &tooLarge)
			assert.Equal(t, int64(len(tt.body)), tooLarge.Bytes)
			assert.True(t, tooLarge.Complete)
			assert.Equal(t, fmt.Sprintf("the response of %d bytes is larger than the 8 MiB a response may have", len(tt.body)), tooLarge.Error())
			assert.Equal(t, 1, p.count(), "not retried")
		})
	}
}

// Providers' words for a request longer than the context window, from
// their documentation, source and users' reports, tell it from other 400s.
func TestExceedsContext(t *testing.T) {
	tests := []struct {
		name   string
		status int
		code   string
		msg    string
		want   bool
	}{
		{"OpenAI", 400, "context_length_exceeded", "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens (129800 in the messages, 612 in the functions). Please reduce the length of the messages or functions.", true},
		{"vLLM", 400, "400", "This model's maximum context length is 4096 tokens. However, you requested 5123 tokens (4099 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.", true},
		{"llama.cpp server", 400, "exceed_context_size_error", "request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it", true},
		{"Ollama without truncation", 400, "", "the input length exceeds the context length", true},
		{"Anthropic", 400, "invalid_request_error", "prompt is too long: 208634 tokens > 200000 maximum", true},
		{"Bedrock", 400, "ValidationException", "Input is too long for requested model.", true},
		{"Gemini", 400, "INVALID_ARGUMENT", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", true},
		{"Mistral", 400, "", "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length", true},
		{"Groq's tokens-per-minute limit is not the context", 413, "rate_limit_exceeded", "Request too large for model `llama-3.1-8b-instant` on tokens per minute (TPM): Limit 6000, Requested 7012, please reduce your message size and try again.", false},
		{"another 400", 400, "invalid_request_error", "messages: too short", false},
		{"a 500 that names the context", 500, "", "context length computation failed", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := &ProviderError{Status: tt.status, Code: tt.code, Message: tt.msg}
			assert.Equal(t, tt.want, ExceedsContext(fmt.Errorf("chat: %w", err)))
		})
	}
	assert.False(t, ExceedsContext(errors.New("context length")), "only a provider's error")
}
