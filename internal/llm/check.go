package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/suggest"
)

// checkTimeout bounds the request that tells whether the provider can be
// reached at all.
const checkTimeout = 5 * time.Second

// UnreachableError is a provider that cannot be reached: the connection was
// refused, the host name did not resolve, TLS failed, or it did not answer
// within 5 s.
type UnreachableError struct {
	URL string
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("the provider at %s cannot be reached: %v", e.URL, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// RejectedKeyError is a provider that refused the API key (HTTP 401 or 403).
type RejectedKeyError struct {
	Status  int
	Message string
}

func (e *RejectedKeyError) Error() string {
	return fmt.Sprintf("the provider rejected the API key (HTTP %d: %s)", e.Status, e.Message)
}

// UnknownModelError is a model the provider does not serve; Listed holds
// the models the provider lists, if it lists them.
type UnknownModelError struct {
	Model   string
	Message string
	Listed  []string
}

func (e *UnknownModelError) Error() string {
	msg := fmt.Sprintf("the provider does not serve the model %q%s (%s)", e.Model, suggest.DidYouMean(e.Model, e.Listed), e.Message)
	if n := len(e.Listed); n > 0 {
		shown := e.Listed[:min(n, maxListedModels)]
		msg += "; it serves " + strings.Join(shown, ", ")
		if n > len(shown) {
			msg += fmt.Sprintf(" and %d more", n-len(shown))
		}
	}
	return msg
}

// maxListedModels bounds the served models an error names.
const maxListedModels = 20

// Check tells, before any case runs, whether the provider can be reached,
// accepts the key and serves the models. It lists the provider's models
// (GET /models): a connection that fails is an *UnreachableError, a key
// refused a *RejectedKeyError. A model listed under its name or with its
// tag (Ollama lists qwen3 as qwen3:latest) is served. A model the list
// leaves out, or every model when the provider has no list, is asked one
// short question capped at one output token, since lists are not always
// complete: a 404, or a 400 that says the model is not valid, is an
// *UnknownModelError. Anything else (a server error) is left for the cases
// to meet.
func (c *Client) Check(ctx context.Context, models ...string) error {
	listed, err := c.listModels(ctx)
	if err != nil {
		return err
	}
	for _, model := range models {
		if model == "" || served(listed, model) {
			continue
		}
		_, err := c.Chat(ctx, Request{Model: model, MaxTokens: 1, Messages: []eval.Message{{Role: "user", Content: "Reply with the word OK."}}})
		switch {
		case err == nil, ctx.Err() != nil:
		case IsAuthError(err):
			return &RejectedKeyError{Status: statusCode(err), Message: messageOf(err)}
		case unknownModel(err):
			return &UnknownModelError{Model: model, Message: Describe(err), Listed: listed}
		}
	}
	return nil
}

// served reports whether the list names model, with or without the tag
// ":latest" that Ollama gives a model named without one.
func served(listed []string, model string) bool {
	base := strings.TrimSuffix(model, ":latest")
	return slices.ContainsFunc(listed, func(id string) bool {
		return id == model || strings.TrimSuffix(id, ":latest") == base
	})
}

// listModels returns the ids of the provider's models, or nil when it
// offers no list.
func (c *Client) listModels(ctx context.Context) ([]string, error) {
	url := c.endpoint.modelsURL()
	if url == "" {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, &UnreachableError{URL: c.endpoint.base, Err: err}
	}
	c.authorize(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, &UnreachableError{URL: c.endpoint.base, Err: redact(unwrapURLError(err), c.apiKey)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes))
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, &RejectedKeyError{Status: resp.StatusCode, Message: redact(errors.New(errorMessage(body)), c.apiKey).Error()}
	case err != nil || resp.StatusCode != http.StatusOK:
		return nil, nil
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &list) != nil || list.Data == nil {
		return nil, nil
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// unwrapURLError drops the method and URL a *url.Error adds.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// errorMessage returns the message of an error body in any of the shapes
// providers use, or the body itself, cut short.
func errorMessage(body []byte) string {
	if _, msg, _, ok := errorFromBody(body); ok {
		return msg
	}
	return clip(string(body))
}

// unknownModel reports whether a chat error says the model does not exist:
// a 404 (OpenAI, Ollama, vLLM), or a 400 whose message says the model is
// not valid (OpenRouter).
func unknownModel(err error) bool {
	switch statusCode(err) {
	case http.StatusNotFound:
		return true
	case http.StatusBadRequest:
		msg := strings.ToLower(err.Error())
		return strings.Contains(msg, "model") && (strings.Contains(msg, "not a valid") ||
			strings.Contains(msg, "invalid model") || strings.Contains(msg, "does not exist") ||
			strings.Contains(msg, "not found") || strings.Contains(msg, "unknown model"))
	}
	return false
}
