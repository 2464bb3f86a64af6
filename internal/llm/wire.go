package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// wireRequest is a chat-completions request body. Its fields are written in
// this order, the messages last: the part every request of a run shares
// (model, sampling, tool definitions, then the system prompt) comes first,
// byte for byte the same, so that providers' prompt caches hit.
type wireRequest struct {
	Model       string   `json:"model"`
	Temperature *float64 `json:"temperature,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	// MaxCompletionTokens replaces MaxTokens for OpenAI's reasoning models.
	MaxCompletionTokens int                `json:"max_completion_tokens,omitempty"`
	Stream              bool               `json:"stream"`
	Usage               *usageAccounting   `json:"usage,omitempty"`
	Tools               []wireTool         `json:"tools,omitempty"`
	ToolChoice          *openai.ToolChoice `json:"tool_choice,omitempty"`
	Messages            []json.RawMessage  `json:"messages"`
}

// wireTool is a function tool as openai.Tool writes it (its keys in the
// order its map gives them), written in one pass: openai.Tool marshals
// each tool twice, through a map, on every request.
type wireTool struct {
	Function *openai.FunctionDefinition `json:"function"`
	Type     openai.ToolType            `json:"type"`
}

// usageAccounting is OpenRouter's request for the cost of a request.
type usageAccounting struct {
	Include bool `json:"include"`
}

// emptySchema is the parameters of a tool that takes no arguments:
// providers reject "parameters": null.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// encodeRequest writes req as a request body; temperature sends 0, usage
// asks for the request's cost.
func encodeRequest(req Request, temperature, usage bool) ([]byte, error) {
	w := wireRequest{Model: req.Model}
	if openAIReasoning(req.Model) {
		w.MaxCompletionTokens = req.MaxTokens
	} else {
		w.MaxTokens = req.MaxTokens
	}
	if temperature {
		zero := 0.0
		w.Temperature = &zero
	}
	if usage {
		w.Usage = &usageAccounting{Include: true}
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(bytes.TrimSpace(params)) == 0 || isNull(params) {
			params = emptySchema
		}
		w.Tools = append(w.Tools, wireTool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: params,
		}})
	}
	if req.ForceTool != "" {
		w.ToolChoice = &openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: req.ForceTool}}
	}
	for i, m := range req.Messages {
		raw, err := encodeMessage(m)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		w.Messages = append(w.Messages, raw)
	}
	return json.Marshal(w)
}

// field is one member of a JSON object being written in a fixed order.
type field struct {
	key   string
	value any
}

// encodeMessage writes a message as the provider expects it back: its
// own fields, then the fields the provider attached to it (Extra), in key
// order. A content the provider sent as a list of parts goes back as that
// list.
func encodeMessage(m eval.Message) (json.RawMessage, error) {
	fields := []field{{"role", m.Role}}
	switch {
	case m.Extra["content"] != nil:
		fields = append(fields, field{"content", m.Extra["content"]})
	case m.Content == "" && len(m.ToolCalls) > 0:
		fields = append(fields, field{"content", nil})
	default:
		fields = append(fields, field{"content", m.Content})
	}
	if m.Name != "" {
		fields = append(fields, field{"name", m.Name})
	}
	if m.ToolCallID != "" {
		fields = append(fields, field{"tool_call_id", m.ToolCallID})
	}
	if len(m.ToolCalls) > 0 {
		calls := make([]json.RawMessage, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			args := tc.Function.Arguments
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			typ := tc.Type
			if typ == "" {
				typ = "function"
			}
			call, err := writeObject(extended([]field{
				{"id", tc.ID}, {"type", typ},
				{"function", map[string]string{"name": tc.Function.Name, "arguments": args}},
			}, tc.Extra))
			if err != nil {
				return nil, err
			}
			calls[i] = call
		}
		fields = append(fields, field{"tool_calls", calls})
	}
	return writeObject(extended(fields, m.Extra))
}

// extended adds the provider's fields to fields, in key order, leaving
// out those fields already holds.
func extended(fields []field, extra map[string]json.RawMessage) []field {
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if !slices.ContainsFunc(fields, func(f field) bool { return f.key == k }) {
			fields = append(fields, field{k, extra[k]})
		}
	}
	return fields
}

// writeObject writes fields as a JSON object, in their order.
func writeObject(fields []field) (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(f.key)
		b.Write(key)
		b.WriteByte(':')
		value, err := json.Marshal(f.value)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.key, err)
		}
		b.Write(value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// wireResponse is a chat-completions response body, read loosely: every
// field is optional and may be null.
type wireResponse struct {
	Choices []struct {
		Message map[string]json.RawMessage `json:"message"`
		// FinishReason is kept raw: a null one is told from none.
		FinishReason json.RawMessage `json:"finish_reason"`
		// NativeFinishReason is the upstream provider's own reason
		// (OpenRouter).
		NativeFinishReason *string         `json:"native_finish_reason"`
		Error              json.RawMessage `json:"error"`
	} `json:"choices"`
	// Usage is read apart (see readUsage): a number in it no float holds
	// must not cost the answer.
	Usage json.RawMessage `json:"usage"`
	// Model and ID are the model that answered and the completion's id,
	// as the provider named them.
	Model string `json:"model"`
	ID    string `json:"id"`
}

// usage is a response's usage as read from the shapes providers report
// it in: OpenAI's prompt_tokens_details.cached_tokens, DeepSeek's
// prompt_cache_hit_tokens and Anthropic's cache_read_input_tokens (as
// OpenAI-compatible gateways in front of Claude pass it on) for the cached
// prompt tokens, OpenRouter's cost in US dollars.
type usage struct {
	prompt, completion, total, cached int
	cost                              *float64
}

// readUsage reads a response's usage. A number that is not a finite,
// non-negative one (a cost of 1e999, a count of -3) is left out, and the
// warning says so; usage that is not an object is none.
func readUsage(raw json.RawMessage) (u usage, warning string) {
	if len(raw) == 0 || isNull(raw) {
		return u, ""
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return u, "the provider's usage is not an object: left out"
	}
	var bad []string
	number := func(obj map[string]any, key, path string) (float64, bool) {
		n, ok := obj[key].(json.Number)
		if !ok {
			return 0, false
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || f < 0 {
			bad = append(bad, path+" "+clip(string(n)))
			return 0, false
		}
		return f, true
	}
	count := func(obj map[string]any, key, path string) int {
		f, ok := number(obj, key, path)
		if !ok || f > math.MaxInt32 {
			return 0
		}
		return int(f)
	}
	u.prompt, u.completion, u.total = count(m, "prompt_tokens", "prompt_tokens"), count(m, "completion_tokens", "completion_tokens"), count(m, "total_tokens", "total_tokens")
	if details, ok := m["prompt_tokens_details"].(map[string]any); ok {
		u.cached = count(details, "cached_tokens", "prompt_tokens_details.cached_tokens")
	}
	u.cached = max(u.cached, count(m, "prompt_cache_hit_tokens", "prompt_cache_hit_tokens"), count(m, "cache_read_input_tokens", "cache_read_input_tokens"))
	if cost, ok := number(m, "cost", "cost"); ok {
		u.cost = &cost
	}
	if len(bad) > 0 {
		warning = "the provider reported usage numbers that are not finite, non-negative numbers, left out: " + strings.Join(bad, ", ")
	}
	return u, warning
}

// decodeResponse reads a provider's response to a chat request whose
// conversation was sent. An error the provider reported, in any shape, is
// a *ProviderError.
func decodeResponse(ex exchange, sent []eval.Message) (Response, error) {
	if ex.status < 200 || ex.status > 299 {
		pe := &ProviderError{Status: ex.status, RetryAfter: retryAfterOf(ex.header)}
		pe.Code, pe.Message, _, _ = errorFromBody(ex.body)
		if pe.Message == "" {
			pe.Message = http.StatusText(ex.status)
		}
		return Response{}, pe
	}
	var w wireResponse
	if err := json.Unmarshal(ex.body, &w); err != nil {
		if code, msg, status, ok := errorFromBody(ex.body); ok && json.Valid(bytes.TrimSpace(ex.body)) {
			return Response{}, &ProviderError{Status: max(status, ex.status), Code: code, Message: msg, InBody: true}
		}
		return Response{}, &ProviderError{Status: ex.status, InBody: true,
			Message: "the response is not a chat completion (" + err.Error() + "): " + clip(string(ex.body))}
	}
	if code, msg, status, ok := errorFromBody(ex.body); ok {
		return Response{}, &ProviderError{Status: max(status, ex.status), Code: code, Message: msg, InBody: true}
	}
	if len(w.Choices) == 0 {
		return Response{}, &ProviderError{Status: ex.status, InBody: true, Message: "the response holds no choice"}
	}
	ch := w.Choices[0]
	var finish string
	_ = json.Unmarshal(ch.FinishReason, &finish) // anything but a string is none
	if (len(ch.Error) > 0 && !isNull(ch.Error)) || finish == "error" {
		pe := &ProviderError{Status: ex.status, InBody: true, Message: "the choice failed"}
		if code, msg, status, ok := errorFromBody([]byte(`{"error":` + string(orNull(ch.Error)) + `}`)); ok {
			pe.Code, pe.Message, pe.Status = code, msg, max(status, ex.status)
		}
		if ch.NativeFinishReason != nil && *ch.NativeFinishReason != "" {
			pe.Message += " (upstream finish reason " + *ch.NativeFinishReason + ")"
		}
		return Response{}, pe
	}
	msg, err := decodeMessage(ch.Message, sent)
	if err != nil {
		return Response{}, &ProviderError{Status: ex.status, InBody: true, Message: "the reply cannot be read: " + err.Error()}
	}
	out := Response{Message: msg, FinishReason: finish, Usage: eval.Usage{Requests: 1}, Model: w.Model, ID: w.ID}
	u, warning := readUsage(w.Usage)
	out.Warning = warning
	out.Usage.PromptTokens, out.Usage.CompletionTokens, out.Usage.TotalTokens = u.prompt, u.completion, u.total
	if out.Usage.TotalTokens == 0 {
		out.Usage.TotalTokens = u.prompt + u.completion
	}
	out.Usage.CachedTokens = u.cached
	out.HasUsage = out.Usage.TotalTokens > 0
	if u.cost != nil {
		out.CostUSD, out.CostReported = *u.cost, true
	}
	if !out.HasUsage {
		// All zeros (Ollama, some proxies) is no report.
		out.Usage = eval.Usage{Requests: 1}
	}
	if unfinished(ch.FinishReason, w.Usage, out) {
		return Response{}, &ProviderError{Status: ex.status, InBody: true,
			Message: "the reply did not finish: its finish_reason is null and its usage all zeros, what Ollama sends when a generation breaks off (its text " + strconv.Quote(clip(msg.Content)) + ")"}
	}
	return out, nil
}

// unfinished reports whether a reply is one whose generation broke off:
// an explicit null finish_reason beside a usage object of zeros, with no
// tool call. Ollama answers so when its runner stops a sequence before the
// end (seen with its own engine under CPU load: a few garbage tokens, no
// done reason, no counts). A reply that leaves both fields out, as small
// servers do, is read as finished.
func unfinished(finish, usage json.RawMessage, r Response) bool {
	return isNull(finish) && len(usage) > 0 && !isNull(usage) && !r.HasUsage && len(r.Message.ToolCalls) == 0
}

func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

// The message fields the suite reads itself; every other field is kept in
// Extra. index is a streamed call's position, not part of the call.
var (
	readFields     = []string{"role", "content", "tool_calls", "function_call", "name", "tool_call_id"}
	readCallFields = []string{"id", "type", "function", "index"}
)

// decodeMessage reads an assistant message: its text (a content given as
// parts is the text of its text parts, and is kept as sent), its tool calls
// (a legacy function_call is one; arguments given as an object are its JSON
// text; a call without an id, or with one already used in the
// conversation, gets an id of its own), and every other non-empty field,
// kept as sent.
func decodeMessage(fields map[string]json.RawMessage, sent []eval.Message) (eval.Message, error) {
	m := eval.Message{Role: "assistant"}
	if raw, ok := fields["role"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &m.Role); err != nil {
			return m, fmt.Errorf("role: %w", err)
		}
	}
	text, parts, err := readContent(fields["content"])
	if err != nil {
		return m, err
	}
	m.Content = text
	for k, v := range fields {
		if slices.Contains(readFields, k) || empty(v) {
			continue
		}
		if m.Extra == nil {
			m.Extra = map[string]json.RawMessage{}
		}
		m.Extra[k] = v
	}
	if parts != nil {
		if m.Extra == nil {
			m.Extra = map[string]json.RawMessage{}
		}
		m.Extra["content"] = parts
	}
	if m.Content == "" && m.Extra["refusal"] != nil {
		// A refusal is the model's answer.
		var refusal string
		if json.Unmarshal(m.Extra["refusal"], &refusal) == nil {
			m.Content = refusal
		}
	}
	if m.ToolCalls, err = readToolCalls(fields); err != nil {
		return m, err
	}
	mintIDs(m.ToolCalls, sent)
	return m, nil
}

// readContent reads a message's content: a string, null, or a list of
// parts ({"type": "text", "text": ...}, Mistral's {"type": "thinking",
// ...}). The text is that of the text parts; parts is the list as sent.
func readContent(raw json.RawMessage) (text string, parts json.RawMessage, err error) {
	if len(raw) == 0 || isNull(raw) {
		return "", nil, nil
	}
	if json.Unmarshal(raw, &text) == nil {
		return text, nil, nil
	}
	var list []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", nil, fmt.Errorf("content is neither text nor a list of parts: %s", clip(string(raw)))
	}
	var b strings.Builder
	for _, p := range list {
		if p.Text != nil && (p.Type == "" || p.Type == "text" || p.Type == "output_text") {
			b.WriteString(*p.Text)
		}
	}
	return b.String(), raw, nil
}

// readToolCalls reads a message's tool calls, or its legacy function_call.
func readToolCalls(fields map[string]json.RawMessage) ([]eval.MessageToolCall, error) {
	var raws []map[string]json.RawMessage
	if raw := fields["tool_calls"]; len(raw) > 0 && !isNull(raw) {
		if err := json.Unmarshal(raw, &raws); err != nil {
			return nil, fmt.Errorf("tool_calls: %w", err)
		}
	}
	if len(raws) == 0 {
		if raw := fields["function_call"]; len(raw) > 0 && !isNull(raw) {
			raws = []map[string]json.RawMessage{{"function": raw}}
		}
	}
	var calls []eval.MessageToolCall
	for i, r := range raws {
		var call eval.MessageToolCall
		if raw := r["id"]; len(raw) > 0 && !isNull(raw) {
			if json.Unmarshal(raw, &call.ID) != nil {
				call.ID = string(raw) // a number: its text
			}
		}
		call.Type = "function"
		var fn struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(orNull(r["function"]), &fn); err != nil {
			return nil, fmt.Errorf("tool call %d: function: %w", i, err)
		}
		call.Function.Name = fn.Name
		call.Function.Arguments = argumentsText(fn.Arguments)
		for k, v := range r {
			if slices.Contains(readCallFields, k) || empty(v) {
				continue
			}
			if call.Extra == nil {
				call.Extra = map[string]json.RawMessage{}
			}
			call.Extra[k] = v
		}
		calls = append(calls, call)
	}
	return calls, nil
}

// argumentsText returns a call's arguments as JSON text: a string as it
// is, an object (or any other JSON value) as its compact text.
func argumentsText(raw json.RawMessage) string {
	if len(raw) == 0 || isNull(raw) {
		return "{}"
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// mintIDs gives each call an id of its own where the provider gave none,
// an empty one, or one already used in this message or the conversation
// sent: tool messages answer calls by id, and strict providers refuse a
// conversation whose ids are missing or repeated. A minted id is nine
// letters and digits (Mistral accepts no other), the same for the same
// position in the same conversation; the provider's own id is kept in
// ProviderID.
func mintIDs(calls []eval.MessageToolCall, sent []eval.Message) {
	used := map[string]bool{}
	for _, m := range sent {
		for _, tc := range m.ToolCalls {
			used[tc.ID] = true
		}
		if m.ToolCallID != "" {
			used[m.ToolCallID] = true
		}
	}
	for i := range calls {
		id := calls[i].ID
		if id != "" && !used[id] {
			used[id] = true
			continue
		}
		minted := ""
		for n := i; minted == "" || used[minted]; n += 100 {
			minted = fmt.Sprintf("call%02d%03d", n%100, (len(sent)+n/100)%1000)
		}
		calls[i].ProviderID, calls[i].ID = id, minted
		used[minted] = true
	}
}

// empty reports whether a JSON value carries nothing: null, "", [] or {}.
func empty(raw json.RawMessage) bool {
	switch string(bytes.TrimSpace(raw)) {
	case "", "null", `""`, "[]", "{}":
		return true
	}
	return false
}
