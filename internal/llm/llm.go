// Package llm talks to OpenAI-compatible chat-completions endpoints
// (OpenRouter, OpenAI, Azure OpenAI, Gemini, DeepSeek, Mistral, Groq,
// Ollama, vLLM, llama.cpp server, LM Studio), with bounded retries on
// throttling and transient failures.
//
// The wire format is read and written here rather than through go-openai's
// typed messages, because real providers need what those types cannot
// carry: fields a provider attaches to an assistant message or a tool call
// must go back to it on the next turn exactly as it sent them (DeepSeek's
// reasoning_content, OpenRouter's reasoning_details, Gemini's thought
// signatures), a temperature of 0 must be sent as 0, and replies come in
// shapes the OpenAI types refuse (content as a list of parts, arguments as
// an object, the legacy function_call, errors inside a 200 response). The
// request's tool definitions use go-openai's types.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/dialect"
)

// Chatter sends one chat request. *Client implements it over HTTP.
type Chatter interface {
	Chat(ctx context.Context, req Request) (Response, error)
}

// Request is one chat-completions request. Temperature is 0, sent as the
// JSON number 0, except for reasoning models that accept only their
// default (see openAIReasoning, and any model that refuses a temperature),
// which get none.
type Request struct {
	Model    string
	Messages []eval.Message
	Tools    []eval.Tool
	// ForceTool, when set, makes the model call this tool (tool_choice).
	ForceTool string
	// MaxTokens caps the reply's tokens (max_tokens); 0 sends no cap.
	MaxTokens int
}

// Response is the model's reply and what is known of the request that
// brought it.
type Response struct {
	// Message is the assistant message: its text, its tool calls (with
	// ids the suite minted where the provider's were missing or repeated)
	// and, in Extra, every other field the provider attached.
	Message eval.Message
	// FinishReason is the choice's finish_reason as the provider gave it
	// ("stop", "tool_calls", "length", "content_filter", ...).
	FinishReason string
	// Usage is as the API reported it; HasUsage is false when it reported
	// none (or only zeros).
	Usage    eval.Usage
	HasUsage bool
	// CostUSD is the request's cost as the provider reported it, when
	// CostReported.
	CostUSD      float64
	CostReported bool
	// Retries counts the attempts of this request that were retried.
	Retries int
	// Warning says what of the response was left out as unreadable (a
	// usage number that is not finite), "" when nothing was.
	Warning string
	// Model and ID are the model that answered and the completion's id as
	// the provider gave them; "" where it gave none.
	Model, ID string
}

// Cut reports whether the provider stopped the reply before its end: its
// output token limit ("length") or its content filter.
func (r Response) Cut() bool {
	return r.FinishReason == "length" || r.FinishReason == "content_filter"
}

// Config configures a Client.
type Config struct {
	// BaseURL is the endpoint's base: https://openrouter.ai/api/v1, an
	// Azure OpenAI deployment (https://R.openai.azure.com/openai/deployments/D?api-version=V),
	// http://localhost:11434/v1, ...
	BaseURL string
	APIKey  string
	// Headers are sent with every request (e.g. OpenRouter's X-Title).
	Headers map[string]string
	// Timeout bounds one attempt of a request, its response body read
	// whole included, retries excluded (default 120 s).
	Timeout time.Duration
	Retry   RetryPolicy
	// Limiter, when set, is told about throttling so that the whole run slows down.
	Limiter *Limiter
	// UsageAccounting asks the provider for each request's cost
	// (OpenRouter's "usage": {"include": true}).
	UsageAccounting bool
	// SchemaDialect is the dialect the tools' schemas are adapted to
	// (package dialect): "" judges it from BaseURL and each request's
	// model, "none" sends them as they are.
	SchemaDialect string
}

// Client is a Chatter over HTTP.
type Client struct {
	endpoint endpoint
	apiKey   string
	headers  map[string]string
	timeout  time.Duration
	policy   RetryPolicy
	limiter  *Limiter
	usage    bool
	http     *http.Client
	// noTemperature holds the models that refused a temperature (a 400
	// that says so): they get none from then on.
	noTemperature sync.Map
	// down is set when a request gave up on refused connections, and
	// cleared by the next request that succeeds (see send).
	down atomic.Bool
	// dialects holds each model's schema dialect, adapted each tool
	// schema adapted to its dialect (see adaptTools).
	schemaDialect, baseURL string
	dialects, adapted      sync.Map
}

// New returns a client for cfg.
func New(cfg Config) *Client {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 120 * time.Second
	}
	return &Client{
		endpoint: endpointOf(cfg.BaseURL),
		apiKey:   cfg.APIKey,
		headers:  cfg.Headers,
		timeout:  cfg.Timeout,
		policy:   cfg.Retry.withDefaults(),
		limiter:  cfg.Limiter,
		usage:    cfg.UsageAccounting,
		http:     &http.Client{},

		schemaDialect: cfg.SchemaDialect,
		baseURL:       cfg.BaseURL,
	}
}

// Chat sends req and returns the first choice. A provider error, wherever
// it arrived (an HTTP status, an error object in a 200 response, a choice
// that failed), is a *ProviderError; it is retried as the retry policy
// allows when it is transient.
func (c *Client) Chat(ctx context.Context, req Request) (Response, error) {
	req.Tools = c.adaptTools(req.Model, req.Tools)
	_, refused := c.noTemperature.Load(req.Model)
	temperature := !refused && !openAIReasoning(req.Model)
	resp, err := c.chat(ctx, req, temperature)
	if temperature && refusesTemperature(err) {
		// A model that accepts only its default temperature: send none,
		// now and from now on.
		c.noTemperature.Store(req.Model, true)
		retries := resp.Retries
		resp, err = c.chat(ctx, req, false)
		resp.Retries += retries
	}
	return resp, err
}

func (c *Client) chat(ctx context.Context, req Request, temperature bool) (Response, error) {
	body, err := encodeRequest(req, temperature, c.usage)
	if err != nil {
		return Response{}, err
	}
	var resp Response
	retries, err := c.send(ctx, c.endpoint.chatURL(req.Model), body, func(ex exchange) error {
		var err error
		resp, err = decodeResponse(ex, req.Messages)
		return err
	})
	resp.Retries = retries
	if err != nil {
		return resp, redact(err, c.apiKey)
	}
	return resp, nil
}

// openAIReasoning reports whether a model is one of OpenAI's reasoning
// models (o1, o3, o4 and gpt-5, without gpt-5's chat models), whatever
// provider prefix names it: they accept only their default temperature,
// and take max_completion_tokens instead of max_tokens.
func openAIReasoning(model string) bool {
	m := strings.ToLower(model[strings.LastIndex(model, "/")+1:])
	for _, p := range []string{"o1", "o3", "o4"} {
		if m == p || strings.HasPrefix(m, p+"-") {
			return true
		}
	}
	return strings.HasPrefix(m, "gpt-5") && !strings.Contains(m, "chat")
}

// refusesTemperature reports whether err is a 400 that says the model does
// not take the temperature it was sent.
func refusesTemperature(err error) bool {
	var pe *ProviderError
	if !errors.As(err, &pe) || pe.Status != http.StatusBadRequest {
		return false
	}
	msg := strings.ToLower(pe.Message)
	return strings.Contains(msg, "temperature") &&
		(strings.Contains(msg, "unsupported") || strings.Contains(msg, "not support") ||
			strings.Contains(msg, "only the default") || strings.Contains(msg, "does not support"))
}

// IsAuthError reports whether err means the key is missing, wrong or not
// allowed: retrying or running more cases cannot help.
func IsAuthError(err error) bool {
	code := statusCode(err)
	return code == http.StatusUnauthorized || code == http.StatusForbidden
}

// Describe returns a one-line description of a provider error, with the
// status code when there is one (a *ProviderError's text names it).
func Describe(err error) string {
	return err.Error()
}

// statusCode returns the HTTP status of a provider error, or 0.
func statusCode(err error) int {
	var pe *ProviderError
	if errors.As(err, &pe) {
		return pe.Status
	}
	return 0
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
	var pe *ProviderError
	if errors.As(err, &pe) {
		pe.Message = strings.ReplaceAll(pe.Message, secret, "[redacted]")
	}
	return &redactedError{err: err, secret: secret}
}

// messageOf is the provider's own message of err, else err's text.
func messageOf(err error) string {
	var pe *ProviderError
	if errors.As(err, &pe) {
		return pe.Message
	}
	return err.Error()
}

// adaptTools returns the tools with their input schemas in the dialect of
// the provider serving model (see package dialect): the judges' tools as
// well as the servers'. A schema that cannot be adapted goes as it is:
// the run checked the servers' before its first case.
func (c *Client) adaptTools(model string, tools []eval.Tool) []eval.Tool {
	if len(tools) == 0 {
		return tools
	}
	v, ok := c.dialects.Load(model)
	if !ok {
		d, _ := dialect.Choose(c.schemaDialect, c.baseURL, model) // the setting was checked at the start
		v, _ = c.dialects.LoadOrStore(model, d)
	}
	d := v.(dialect.Dialect)
	if d.Name == "" {
		return tools
	}
	out := make([]eval.Tool, len(tools))
	for i, t := range tools {
		key := d.Name + "\x00" + string(t.Parameters)
		schema, ok := c.adapted.Load(key)
		if !ok {
			adapted, _, err := d.Adapt(t.Parameters)
			if err != nil {
				adapted = t.Parameters
			}
			schema, _ = c.adapted.LoadOrStore(key, adapted)
		}
		t.Parameters = schema.(json.RawMessage)
		out[i] = t
	}
	return out
}
