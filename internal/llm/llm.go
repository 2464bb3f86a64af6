// Package llm talks to OpenAI-compatible chat-completions endpoints
// (OpenRouter, OpenAI, Ollama, vLLM, llama.cpp server, LM Studio) through
// go-openai, with bounded retries on throttling and transient failures.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mcpeval/mcpeval/internal/eval"
)

// Chatter sends one chat request. *Client implements it over HTTP.
type Chatter interface {
	Chat(ctx context.Context, req Request) (Response, error)
}

// Request is one chat-completions request. Temperature is 0, except for
// reasoning models that accept only their default (o1, o3, o4, gpt-5 and the
// others go-openai knows), which get none.
type Request struct {
	Model    string
	Messages []eval.Message
	Tools    []eval.Tool
	// ForceTool, when set, makes the model call this tool (tool_choice).
	ForceTool string
}

// Response is the model's reply.
type Response struct {
	Message      eval.Message
	FinishReason string
	// Usage is as the API reported it; HasUsage is false when it reported none.
	Usage    eval.Usage
	HasUsage bool
	// CostUSD is the request's cost as the provider reported it, when
	// CostReported.
	CostUSD      float64
	CostReported bool
}

// Config configures a Client.
type Config struct {
	BaseURL string
	APIKey  string
	// Headers are sent with every request (e.g. OpenRouter's X-Title).
	Headers map[string]string
	// Timeout bounds one HTTP request, retries excluded (default 120 s).
	Timeout time.Duration
	Retry   RetryPolicy
	// Limiter, when set, is told about throttling so that the whole run slows down.
	Limiter *Limiter
	// UsageAccounting asks the provider for each request's cost
	// (OpenRouter's "usage": {"include": true}).
	UsageAccounting bool
}

// Client is a Chatter over HTTP.
type Client struct {
	oa      *openai.Client
	apiKey  string
	baseURL string
	// plain sends requests without retries or limits (Check).
	plain *http.Client
}

// New returns a client for cfg.
func New(cfg Config) *Client {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 120 * time.Second
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	if cfg.BaseURL != "" {
		oc.BaseURL = cfg.BaseURL
	}
	headers := &headerTransport{base: http.DefaultTransport, headers: cfg.Headers}
	oc.HTTPClient = &http.Client{Transport: &costTransport{askUsage: cfg.UsageAccounting, base: &retryTransport{
		base:    headers,
		policy:  cfg.Retry.withDefaults(),
		timeout: cfg.Timeout,
		limiter: cfg.Limiter,
	}}}
	return &Client{oa: openai.NewClientWithConfig(oc), apiKey: cfg.APIKey,
		baseURL: strings.TrimSuffix(oc.BaseURL, "/"), plain: &http.Client{Transport: headers}}
}

// Chat sends req and returns the first choice.
func (c *Client) Chat(ctx context.Context, req Request) (Response, error) {
	oreq := openai.ChatCompletionRequest{
		Model: req.Model,
		// go-openai drops a zero temperature (omitempty); the smallest
		// positive float32 is sent instead and means 0 to every provider.
		Temperature: math.SmallestNonzeroFloat32,
	}
	for _, m := range req.Messages {
		oreq.Messages = append(oreq.Messages, toOpenAI(m))
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			// Providers reject "parameters": null; a tool without arguments
			// takes an empty object.
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		oreq.Tools = append(oreq.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: params,
		}})
	}
	if req.ForceTool != "" {
		oreq.ToolChoice = openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: req.ForceTool}}
	}
	var cost reportedCost
	ctx = withCostHolder(ctx, &cost)
	resp, err := c.oa.CreateChatCompletion(ctx, oreq)
	if errors.Is(err, openai.ErrReasoningModelLimitationsOther) || errors.Is(err, openai.ErrReasoningSamplingUnsupported) {
		// go-openai refuses, before sending, any temperature but the default
		// for reasoning models: send none.
		oreq.Temperature = 0
		resp, err = c.oa.CreateChatCompletion(ctx, oreq)
	}
	if err != nil {
		return Response{}, redact(err, c.apiKey)
	}
	if len(resp.Choices) == 0 {
		return Response{}, errors.New("the provider returned no choices")
	}
	ch := resp.Choices[0]
	out := Response{Message: fromOpenAI(ch.Message), FinishReason: string(ch.FinishReason), CostUSD: cost.usd, CostReported: cost.ok}
	u := resp.Usage
	out.HasUsage = u.TotalTokens > 0 || u.PromptTokens > 0
	out.Usage = eval.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens, Requests: 1}
	if u.TotalTokens == 0 {
		out.Usage.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	if u.PromptTokensDetails != nil {
		out.Usage.CachedTokens = u.PromptTokensDetails.CachedTokens
	}
	return out, nil
}

func toOpenAI(m eval.Message) openai.ChatCompletionMessage {
	om := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, Name: m.Name, ToolCallID: m.ToolCallID}
	for _, tc := range m.ToolCalls {
		om.ToolCalls = append(om.ToolCalls, openai.ToolCall{
			ID: tc.ID, Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments},
		})
	}
	return om
}

func fromOpenAI(om openai.ChatCompletionMessage) eval.Message {
	m := eval.Message{Role: om.Role, Content: om.Content}
	if m.Role == "" {
		m.Role = openai.ChatMessageRoleAssistant
	}
	for _, tc := range om.ToolCalls {
		m.ToolCalls = append(m.ToolCalls, eval.MessageToolCall{
			ID: tc.ID, Type: "function",
			Function: eval.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments},
		})
	}
	return m
}

// statusCode returns the HTTP status of a provider error, or 0.
func statusCode(err error) int {
	var api *openai.APIError
	if errors.As(err, &api) {
		return api.HTTPStatusCode
	}
	var req *openai.RequestError
	if errors.As(err, &req) {
		return req.HTTPStatusCode
	}
	return 0
}

// IsAuthError reports whether err means the key is missing, wrong or not
// allowed: retrying or running more cases cannot help.
func IsAuthError(err error) bool {
	code := statusCode(err)
	return code == http.StatusUnauthorized || code == http.StatusForbidden
}

// Describe returns a one-line description of a provider error, with the
// status code when there is one.
func Describe(err error) string {
	if code := statusCode(err); code != 0 {
		return fmt.Sprintf("provider returned HTTP %d: %v", code, err)
	}
	return err.Error()
}

// redactedError hides a secret that a provider quoted in its error (some echo
// the API key they rejected); errors.As still reaches the original error.
type redactedError struct {
	err    error
	secret string
}

func (e *redactedError) Error() string {
	return strings.ReplaceAll(e.err.Error(), e.secret, "[redacted]")
}

func (e *redactedError) Unwrap() error { return e.err }

func redact(err error, secret string) error {
	if secret == "" || !strings.Contains(err.Error(), secret) {
		return err
	}
	return &redactedError{err: err, secret: secret}
}

type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(r)
}
