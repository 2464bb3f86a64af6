package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// completionWith is a 200 response whose first choice holds message.
func completionWith(message, finish string) string {
	return `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":` + message +
		`,"finish_reason":"` + finish + `"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`
}

// Replies in the shapes real providers give are read as a careful reader
// would: the text, the tool calls with usable ids and JSON arguments, and
// every other field kept.
func TestReplyShapes(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		content string
		calls   []eval.MessageToolCall
		extra   []string // fields kept in Extra
	}{
		{
			name:    "content as parts: thinking is not the answer",
			body:    completionWith(`{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Let me see."}]},{"type":"text","text":"BRCA1 is on "},{"type":"text","text":"17q21."}]}`, "stop"),
			content: "BRCA1 is on 17q21.",
			extra:   []string{"content"},
		},
		{
			name:    "legacy function_call",
			body:    completionWith(`{"role":"assistant","content":null,"function_call":{"name":"get_gene_by_symbol","arguments":"{\"gene_symbol\":\"TP53\"}"}}`, "function_call"),
			calls:   []eval.MessageToolCall{{ID: "call00002", Type: "function", Function: eval.FunctionCall{Name: "get_gene_by_symbol", Arguments: `{"gene_symbol":"TP53"}`}}},
			content: "",
		},
		{
			name: "arguments as an object, id missing",
			body: completionWith(`{"role":"assistant","content":"","tool_calls":[{"type":"function","function":{"name":"get_gene_by_symbol","arguments":{"gene_symbol": "TP53"}}}]}`, "tool_calls"),
			calls: []eval.MessageToolCall{{ID: "call00002", Type: "function",
				Function: eval.FunctionCall{Name: "get_gene_by_symbol", Arguments: `{"gene_symbol":"TP53"}`}}},
		},
		{
			name: "one id twice, and an empty one",
			body: completionWith(`{"role":"assistant","tool_calls":[
				{"id":"functions.add:0","type":"function","function":{"name":"a","arguments":"{}"}},
				{"id":"functions.add:0","type":"function","function":{"name":"b","arguments":"{}"}},
				{"id":"","type":"function","function":{"name":"c","arguments":""}}]}`, "tool_calls"),
			calls: []eval.MessageToolCall{
				{ID: "functions.add:0", Type: "function", Function: eval.FunctionCall{Name: "a", Arguments: "{}"}},
				{ID: "call01002", ProviderID: "functions.add:0", Type: "function", Function: eval.FunctionCall{Name: "b", Arguments: "{}"}},
				{ID: "call02002", Type: "function", Function: eval.FunctionCall{Name: "c", Arguments: ""}},
			},
		},
		{
			name:    "reasoning content and details kept",
			body:    completionWith(`{"role":"assistant","content":"done","reasoning_content":"I think.","reasoning_details":[{"type":"reasoning.encrypted","data":"abc"}],"refusal":null,"annotations":[]}`, "stop"),
			content: "done",
			extra:   []string{"reasoning_content", "reasoning_details"},
		},
		{
			name: "a thought signature on a tool call kept",
			body: completionWith(`{"role":"assistant","tool_calls":[{"id":"x1","type":"function","function":{"name":"a","arguments":"{}"},"extra_content":{"google":{"thought_signature":"sig=="}}}]}`, "tool_calls"),
			calls: []eval.MessageToolCall{{ID: "x1", Type: "function", Function: eval.FunctionCall{Name: "a", Arguments: "{}"},
				Extra: map[string]json.RawMessage{"extra_content": json.RawMessage(`{"google":{"thought_signature":"sig=="}}`)}}},
		},
		{
			name:    "tool calls with finish_reason stop",
			body:    completionWith(`{"role":"assistant","content":null,"tool_calls":[{"id":"t","type":"function","function":{"name":"a","arguments":"{}"}}]}`, "stop"),
			calls:   []eval.MessageToolCall{{ID: "t", Type: "function", Function: eval.FunctionCall{Name: "a", Arguments: "{}"}}},
			content: "",
		},
		{
			name:    "a refusal is the answer",
			body:    completionWith(`{"role":"assistant","content":null,"refusal":"I cannot help with that."}`, "stop"),
			content: "I cannot help with that.",
			extra:   []string{"refusal"},
		},
	}
	sent := []eval.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "q"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startProvider(t, reply(http.StatusOK, tt.body, "Content-Type", "application/json"))
			resp, err := p.client().Chat(context.Background(), Request{Model: "m", Messages: sent})
			require.NoError(t, err)
			assert.Equal(t, tt.content, resp.Message.Content)
			assert.Equal(t, tt.calls, resp.Message.ToolCalls)
			var kept []string
			for k := range resp.Message.Extra {
				kept = append(kept, k)
			}
			assert.ElementsMatch(t, tt.extra, kept)
		})
	}
}

// The assistant message goes back to the provider as the provider sent it:
// its fields, and those of its tool calls, byte for byte as JSON values.
func TestProviderFieldsGoBack(t *testing.T) {
	message := `{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"hmm"}]},{"type":"text","text":""}],` +
		`"reasoning_content":"Step 1: call the tool.","reasoning_details":[{"type":"reasoning.text","text":"x","signature":"s1","format":"anthropic-claude-v1","index":0}],` +
		`"vendor_field":{"n":1},` +
		`"tool_calls":[{"id":"call_9","type":"function","function":{"name":"get_gene_by_symbol","arguments":"{\"gene_symbol\":\"TP53\"}"},` +
		`"extra_content":{"google":{"thought_signature":"CsYBAY89a1/+sig=="}}}]}`
	p := startProvider(t, reply(http.StatusOK, completionWith(message, "tool_calls"), "Content-Type", "application/json"), completion("final"))
	c := p.client()
	conv := []eval.Message{{Role: "user", Content: "q"}}
	resp, err := c.Chat(context.Background(), Request{Model: "m", Messages: conv})
	require.NoError(t, err)
	conv = append(conv, resp.Message, eval.Message{Role: "tool", ToolCallID: resp.Message.ToolCalls[0].ID, Content: "{}"})
	_, err = c.Chat(context.Background(), Request{Model: "m", Messages: conv})
	require.NoError(t, err)

	var second struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(p.requests()[1].body, &second))
	require.Len(t, second.Messages, 3)
	var original map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(message), &original))
	back := second.Messages[1]
	for k, v := range original {
		require.Contains(t, back, k)
		assert.JSONEq(t, string(v), string(back[k]), "field %s", k)
	}
	assert.Len(t, back, len(original), "nothing added")
	assert.JSONEq(t, `"call_9"`, string(second.Messages[2]["tool_call_id"]))
}

// Temperature 0 is the JSON number 0, not the smallest float that
// llama.cpp's sampler turns into invalid probabilities.
func TestTemperatureZeroIsZero(t *testing.T) {
	p := startProvider(t, completion("ok"))
	_, err := p.client().Chat(context.Background(), question())
	require.NoError(t, err)
	assert.Contains(t, string(p.requests()[0].body), `"temperature":0,`)
}

// A model that refuses a temperature gets none, on that request and on
// the next ones.
func TestTemperatureRefusedIsLeftOut(t *testing.T) {
	p := startProvider(t,
		apiError(400, "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported."),
		completion("one"), completion("two"))
	c := p.client()
	resp, err := c.Chat(context.Background(), Request{Model: "some-reasoner", Messages: []eval.Message{{Role: "user", Content: "q"}}})
	require.NoError(t, err)
	assert.Equal(t, "one", resp.Message.Content)
	_, err = c.Chat(context.Background(), Request{Model: "some-reasoner", Messages: []eval.Message{{Role: "user", Content: "q"}}})
	require.NoError(t, err)
	got := p.requests()
	require.Len(t, got, 3)
	assert.NotNil(t, decodeWire(t, got[0].body).Temperature)
	assert.Nil(t, decodeWire(t, got[1].body).Temperature)
	assert.Nil(t, decodeWire(t, got[2].body).Temperature, "remembered for the model")
}

// Errors are provider errors wherever they arrive, with the provider's
// message, and transient ones are retried like a 5xx.
func TestProviderErrorShapes(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		body      string
		message   string
		code      string
		status2   int // the error's status
		transient bool
	}{
		{name: "error object in a 200", status: 200,
			body:    `{"error":{"code":502,"message":"Provider returned error","metadata":{"provider_name":"Google","raw":"upstream overloaded"}}}`,
			message: "Provider returned error (Google: upstream overloaded)", code: "502", status2: 502, transient: true},
		{name: "choice with finish_reason error", status: 200,
			body:    `{"choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"error","native_finish_reason":"MALFORMED","error":{"code":502,"message":"Upstream error"}}]}`,
			message: "Upstream error (upstream finish reason MALFORMED)", code: "502", status2: 502, transient: true},
		{name: "error list", status: 400,
			body:    `[{"error":{"code":400,"message":"Function call is missing a thought_signature in functionCall parts.","status":"INVALID_ARGUMENT"}}]`,
			message: "Function call is missing a thought_signature in functionCall parts.", code: "400", status2: 400},
		{name: "groq tool_use_failed", status: 400,
			body:    `{"error":{"message":"Failed to call a function. Please adjust your prompt.","type":"invalid_request_error","code":"tool_use_failed","failed_generation":"<function=get_gene>{}"}}`,
			message: "Failed to call a function. Please adjust your prompt.; failed generation: <function=get_gene>{}", code: "tool_use_failed", status2: 400},
		{name: "ollama plain error", status: 404, body: `{"error":"model \"qwen3\" not found, try pulling it first"}`,
			message: `model "qwen3" not found, try pulling it first`, status2: 404},
		{name: "vllm error object", status: 400, body: `{"object":"error","message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","code":400}`,
			message: "This model's maximum context length is 4096 tokens.", code: "400", status2: 400},
		{name: "text", status: 503, body: "upstream connect error", message: "upstream connect error", status2: 503, transient: true},
		// Ollama v0.17.4's own engine (OLLAMA_NEW_ENGINE=1), a prompt cut
		// to num_ctx 512 on a loaded 2-core machine: about one reply in
		// fifteen breaks off so, as recorded from its /v1/chat/completions.
		{name: "ollama reply that broke off", status: 200,
			body:    `{"id":"chatcmpl-700","object":"chat.completion","created":1795926231,"model":"tiny-short","system_fingerprint":"fp_ollama","choices":[{"index":0,"message":{"role":"assistant","content":"\b!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"},"finish_reason":null}],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`,
			message: `the reply did not finish: its finish_reason is null and its usage all zeros, what Ollama sends when a generation breaks off (its text "\b!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!")`, status2: 200, transient: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startProvider(t, reply(tt.status, tt.body, "Content-Type", "application/json"), completion("recovered"))
			resp, err := p.client().Chat(context.Background(), question())
			if tt.transient {
				require.NoError(t, err, "retried like a 5xx")
				assert.Equal(t, "recovered", resp.Message.Content)
				assert.Equal(t, 1, resp.Retries)
				// The error itself, as the first attempt met it:
				_, err = decodeResponse(exchange{status: tt.status, body: []byte(tt.body)}, nil)
			}
			var pe *ProviderError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.message, pe.Message)
			assert.Equal(t, tt.code, pe.Code)
			assert.Equal(t, tt.status2, pe.Status)
			assert.Equal(t, tt.transient, pe.Transient())
		})
	}
}

// Usage in the shapes providers report it: cached prompt tokens (OpenAI's
// details, DeepSeek's hit count), OpenRouter's cost; zeros are no report.
func TestUsageShapes(t *testing.T) {
	tests := []struct {
		name   string
		usage  string
		want   eval.Usage
		has    bool
		cost   float64
		priced bool
		// warning is part of what the response says it left out.
		warning string
	}{
		{name: "openai cached", usage: `{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,"prompt_tokens_details":{"cached_tokens":1920}}`,
			want: eval.Usage{PromptTokens: 2006, CompletionTokens: 300, TotalTokens: 2306, CachedTokens: 1920, Requests: 1}, has: true},
		{name: "deepseek cache hits", usage: `{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36}`,
			want: eval.Usage{PromptTokens: 100, CompletionTokens: 10, TotalTokens: 110, CachedTokens: 64, Requests: 1}, has: true},
		// Anthropic's usage keys beside OpenAI's, as gateways in front of
		// Claude pass them on without filling prompt_tokens_details
		// (docs.litellm.ai/docs/completion/prompt_caching shows
		// cache_creation_input_tokens beside the OpenAI object;
		// BerriAI/litellm#27763 a response with cache_read_input_tokens alone).
		{name: "anthropic cache reads", usage: `{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,"cache_creation_input_tokens":0,"cache_read_input_tokens":1920}`,
			want: eval.Usage{PromptTokens: 2006, CompletionTokens: 300, TotalTokens: 2306, CachedTokens: 1920, Requests: 1}, has: true},
		{name: "openrouter cost", usage: `{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12,"cost":0.00014,"cost_details":{"upstream_inference_cost":null}}`,
			want: eval.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12, Requests: 1}, has: true, cost: 0.00014, priced: true},
		{name: "null", usage: `null`, want: eval.Usage{Requests: 1}},
		{name: "zeros", usage: `{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}`, want: eval.Usage{Requests: 1}},
		// Numbers no float64 holds, or that no count is, cost neither the
		// answer nor the rest of the usage: they are left out, and said.
		{name: "a cost beyond any float", usage: `{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12,"cost":1e999}`,
			want: eval.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12, Requests: 1}, has: true, warning: "cost 1e999"},
		{name: "a negative count", usage: `{"prompt_tokens":-5,"completion_tokens":2,"total_tokens":2}`,
			want: eval.Usage{CompletionTokens: 2, TotalTokens: 2, Requests: 1}, has: true, warning: "prompt_tokens -5"},
		{name: "usage that is not an object", usage: `"lots"`, want: eval.Usage{Requests: 1}, warning: "not an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"choices":[{"message":{"role":"assistant","content":"x"},"finish_reason":"stop"}],"usage":` + tt.usage + `}`
			resp, err := decodeResponse(exchange{status: 200, body: []byte(body)}, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.want, resp.Usage)
			assert.Equal(t, tt.has, resp.HasUsage)
			assert.Equal(t, tt.cost, resp.CostUSD)
			assert.Equal(t, tt.priced, resp.CostReported)
			if tt.warning == "" {
				assert.Empty(t, resp.Warning)
			} else {
				assert.Contains(t, resp.Warning, tt.warning)
			}
			assert.Equal(t, "x", resp.Message.Content, "the answer is kept")
		})
	}
}

// A reply cut off by the provider says so.
func TestCutReplies(t *testing.T) {
	for _, finish := range []string{"length", "content_filter"} {
		resp, err := decodeResponse(exchange{status: 200, body: []byte(completionWith(`{"role":"assistant","content":"The gene is"}`, finish))}, nil)
		require.NoError(t, err)
		assert.True(t, resp.Cut(), finish)
	}
	resp, err := decodeResponse(exchange{status: 200, body: []byte(completionWith(`{"role":"assistant","content":"The gene is TP53."}`, "stop"))}, nil)
	require.NoError(t, err)
	assert.False(t, resp.Cut())
}

// Only Ollama's broken-off shape is unfinished: a reply that leaves out
// finish_reason or usage, as small servers do, or one with a null
// finish_reason that counted its tokens or called a tool, is an answer.
func TestFinishedReplies(t *testing.T) {
	for name, body := range map[string]string{
		"no finish_reason, no usage":                  `{"choices":[{"message":{"role":"assistant","content":"TP53."}}]}`,
		"null finish_reason, no usage":                `{"choices":[{"message":{"role":"assistant","content":"TP53."},"finish_reason":null}]}`,
		"null finish_reason, usage counted":           `{"choices":[{"message":{"role":"assistant","content":"TP53."},"finish_reason":null}],"usage":{"prompt_tokens":9,"completion_tokens":2}}`,
		"zero usage, a finish_reason":                 `{"choices":[{"message":{"role":"assistant","content":"TP53."},"finish_reason":"stop"}],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`,
		"null finish_reason, zero usage, a tool call": `{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":null}],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`,
	} {
		_, err := decodeResponse(exchange{status: 200, body: []byte(body)}, nil)
		assert.NoError(t, err, name)
	}
}

// Azure OpenAI: a deployment URL gets chat/completions with its
// api-version and the key in api-key; a resource URL takes the model as
// the deployment; the v1 route is OpenAI-compatible with a Bearer key.
func TestAzureEndpoints(t *testing.T) {
	tests := []struct {
		base, model, url, auth, models string
	}{
		{base: "https://r.openai.azure.com/openai/deployments/gpt4o?api-version=2025-01-01-preview", model: "gpt-4o",
			url: "https://r.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=2025-01-01-preview", auth: "api-key"},
		{base: "https://r.openai.azure.com/openai/deployments/gpt4o/", model: "x",
			url: "https://r.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=" + AzureAPIVersion, auth: "api-key"},
		{base: "https://r.cognitiveservices.azure.com", model: "my deployment",
			url: "https://r.cognitiveservices.azure.com/openai/deployments/my%20deployment/chat/completions?api-version=" + AzureAPIVersion, auth: "api-key"},
		{base: "https://r.openai.azure.com/openai/v1/", model: "gpt-4o",
			url: "https://r.openai.azure.com/openai/v1/chat/completions", auth: "Authorization", models: "https://r.openai.azure.com/openai/v1/models"},
		{base: "http://localhost:11434/v1", model: "qwen3",
			url: "http://localhost:11434/v1/chat/completions", auth: "Authorization", models: "http://localhost:11434/v1/models"},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			e := endpointOf(tt.base)
			assert.Equal(t, tt.url, e.chatURL(tt.model))
			assert.Equal(t, tt.models, e.modelsURL())
			h := http.Header{}
			e.authorize(h, "k")
			assert.Len(t, h, 1)
			assert.NotEmpty(t, h.Get(tt.auth))
		})
	}
}

// Requests of one run share their first bytes: model, sampling, tool
// definitions and system prompt, byte for byte, so that providers' prompt
// caches hit; only the conversation after them differs.
func TestRequestPrefixIsStable(t *testing.T) {
	tools := []eval.Tool{
		{Name: "b_tool", Description: "B.", Parameters: json.RawMessage(`{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}}}`)},
		{Name: "a_tool", Description: "A."},
	}
	system := eval.Message{Role: "system", Content: "You are a research assistant."}
	one, err := encodeRequest(Request{Model: "m", Tools: tools, Messages: []eval.Message{system, {Role: "user", Content: "first question"}}}, true, true)
	require.NoError(t, err)
	two, err := encodeRequest(Request{Model: "m", Tools: tools, Messages: []eval.Message{system, {Role: "user", Content: "another one"},
		{Role: "assistant", ToolCalls: []eval.MessageToolCall{{ID: "c", Function: eval.FunctionCall{Name: "a_tool"}}}}}}, true, true)
	require.NoError(t, err)
	prefix := one[:bytes.Index(one, []byte(`{"role":"user"`))]
	assert.True(t, bytes.HasPrefix(two, prefix), "shared prefix:\n%s\nsecond:\n%s", prefix, two)
	assert.Contains(t, string(prefix), `"z":{"type":"string"},"a":{"type":"integer"}`, "schemas sent as the server gave them")
	assert.Contains(t, string(prefix), `You are a research assistant.`)
}

func TestGaveUpErrorUnwraps(t *testing.T) {
	inner := &ProviderError{Status: 500, Message: "boom"}
	err := error(&GaveUpError{Err: inner, Reason: "gave up after 5 retries"})
	var pe *ProviderError
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, "provider error (HTTP 500): boom (gave up after 5 retries)", err.Error())
}
