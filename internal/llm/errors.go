package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ProviderError is an error the provider reported, wherever it arrived: an
// HTTP error status, an error object in a 200 response (OpenRouter), an
// error list (Gemini), a choice that failed (finish_reason "error").
type ProviderError struct {
	// Status is the HTTP status of the response; for an error inside a
	// 200 response, the HTTP status the error names (OpenRouter's numeric
	// codes), else 200.
	Status int
	// Code is the provider's own code ("rate_limit_exceeded",
	// "tool_use_failed", "INVALID_ARGUMENT", "502"), when it gave one.
	Code string
	// Message is the provider's message, with what it added to explain
	// it (OpenRouter's upstream provider and its raw error, Groq's failed
	// generation), cut to a line a person reads.
	Message string
	// InBody says the error came inside a 200 response, not as a status.
	InBody bool
	// RetryAfter is the wait the response asked for (Retry-After,
	// retry-after-ms), 0 when none.
	RetryAfter time.Duration
}

func (e *ProviderError) Error() string {
	where := fmt.Sprintf("HTTP %d", e.Status)
	if e.InBody {
		where = "in a 200 response"
		if e.Status != http.StatusOK {
			where += fmt.Sprintf(", status %d", e.Status)
		}
	}
	if e.Code != "" && e.Code != strconv.Itoa(e.Status) {
		where += ", code " + e.Code
	}
	return fmt.Sprintf("provider error (%s): %s", where, e.Message)
}

// Throttled reports whether the provider refused the request for its rate
// limit (429): the wait for it is budgeted by time, not by count.
func (e *ProviderError) Throttled() bool { return e.Status == http.StatusTooManyRequests }

// Transient reports whether the error may go away on another attempt: a
// rate limit, a timeout or a server-side failure (5xx, 529), and any error
// reported inside a 200 response unless it names a client error.
func (e *ProviderError) Transient() bool {
	switch e.Status {
	case http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests, 529:
		return true
	}
	if e.Status >= 500 {
		return true
	}
	return e.InBody && e.Status < 400
}

// overContext matches how providers say a request is longer than the
// model's context window: OpenAI, Groq and OpenRouter ("maximum context
// length is 8192 tokens", code context_length_exceeded), vLLM (the same
// words, or "maximum model length"), llama.cpp's server ("exceeds the
// available context size", exceed_context_size_error), Ollama ("the input
// length exceeds the context length"), Anthropic ("prompt is too long"),
// Bedrock ("input is too long"), Gemini ("input token count ... exceeds
// the maximum number of tokens"), Mistral ("too large for model with 32768
// maximum context length").
var overContext = regexp.MustCompile(`(?i)context[_ ](length|size|window|limit)|maximum (prompt|model) length|(prompt|input) is too long|input token count|exceeds the maximum number of tokens|too large for model with|model token limit`)

// ExceedsContext reports whether err is a provider refusing a request as
// longer than the model's context window.
func ExceedsContext(err error) bool {
	var pe *ProviderError
	if !errors.As(err, &pe) || pe.Status != http.StatusBadRequest && pe.Status != http.StatusRequestEntityTooLarge {
		return false
	}
	return overContext.MatchString(pe.Code) || overContext.MatchString(pe.Message)
}

// maxMessage bounds the length of a provider's message kept in an error.
const maxMessage = 500

// errorFromBody reads the error a provider described in body: an
// OpenAI-style {"error": {...}} or {"error": "..."}, a list of them
// (Gemini), vLLM's {"object": "error", "message": ...}, FastAPI's
// {"detail": ...}, or plain text. ok is false when body holds no error.
func errorFromBody(body []byte) (code, message string, status int, ok bool) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(trimmed, &list) == nil {
			for _, item := range list {
				if code, message, status, ok = errorFromBody(item); ok {
					return code, message, status, true
				}
			}
		}
		return "", "", 0, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(trimmed, &top) != nil {
		if len(trimmed) == 0 {
			return "", "", 0, false
		}
		return "", clip(string(trimmed)), 0, true
	}
	if raw, found := top["error"]; found && !isNull(raw) {
		var text string
		if json.Unmarshal(raw, &text) == nil {
			return "", clip(text), 0, true
		}
		var e struct {
			Message          string          `json:"message"`
			Code             json.RawMessage `json:"code"`
			Type             string          `json:"type"`
			Status           string          `json:"status"`
			FailedGeneration string          `json:"failed_generation"`
			Metadata         struct {
				ProviderName string `json:"provider_name"`
				Raw          any    `json:"raw"`
			} `json:"metadata"`
		}
		if json.Unmarshal(raw, &e) != nil {
			return "", clip(string(raw)), 0, true
		}
		code, status = codeOf(e.Code)
		if code == "" {
			code = e.Status
		}
		msg := firstNonEmpty(e.Message, e.Type, e.Status, "no message")
		if e.Metadata.Raw != nil {
			rawText, isText := e.Metadata.Raw.(string)
			if !isText {
				b, _ := json.Marshal(e.Metadata.Raw)
				rawText = string(b)
			}
			msg += " (" + strings.TrimPrefix(e.Metadata.ProviderName+": ", ": ") + rawText + ")"
		}
		if e.FailedGeneration != "" {
			msg += "; failed generation: " + e.FailedGeneration
		}
		return code, clip(msg), status, true
	}
	var plain struct {
		Object  string          `json:"object"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
		Code    json.RawMessage `json:"code"`
	}
	json.Unmarshal(trimmed, &plain)
	switch {
	case plain.Object == "error" || (plain.Message != "" && top["choices"] == nil):
		code, status = codeOf(plain.Code)
		return code, clip(firstNonEmpty(plain.Message, "no message")), status, true
	case len(plain.Detail) > 0 && !isNull(plain.Detail):
		var text string
		if json.Unmarshal(plain.Detail, &text) != nil {
			text = string(plain.Detail)
		}
		return "", clip(text), 0, true
	}
	return "", "", 0, false
}

// codeOf reads an error code that is a number or a string; status is the
// code when it is an HTTP status.
func codeOf(raw json.RawMessage) (code string, status int) {
	if len(raw) == 0 || isNull(raw) {
		return "", 0
	}
	var n float64
	if json.Unmarshal(raw, &n) == nil {
		code = strconv.FormatFloat(n, 'f', -1, 64)
		if n >= 100 && n < 600 && n == float64(int(n)) {
			status = int(n)
		}
		return code, status
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if n, err := strconv.Atoi(s); err == nil && n >= 100 && n < 600 {
			status = n
		}
		return s, status
	}
	return string(raw), 0
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// clip makes a provider's text one readable line of at most maxMessage
// bytes.
func clip(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "?")), " ")
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}
