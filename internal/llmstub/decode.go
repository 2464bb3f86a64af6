package llmstub

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// wireRequest is a chat request as clients send it: a message's content may
// be a list of parts and a tool call's arguments a JSON object, as some
// providers return them and some clients send them back.
type wireRequest struct {
	Request
	Messages []wireMessage `json:"messages"`
}

type wireMessage struct {
	eval.Message
	Content   json.RawMessage `json:"content"`
	ToolCalls []wireToolCall  `json:"tool_calls"`
}

type wireToolCall struct {
	eval.MessageToolCall
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// decodeRequest reads a chat request, taking a content given as parts as
// the text of its text parts and arguments given as an object as their JSON
// text.
func decodeRequest(body []byte) (Request, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{}, err
	}
	req := w.Request
	req.Messages = make([]eval.Message, len(w.Messages))
	for i, wm := range w.Messages {
		m := wm.Message
		m.Content = contentText(wm.Content)
		m.ToolCalls = nil
		for _, wc := range wm.ToolCalls {
			c := wc.MessageToolCall
			c.Function = eval.FunctionCall{Name: wc.Function.Name, Arguments: jsonText(wc.Function.Arguments)}
			m.ToolCalls = append(m.ToolCalls, c)
		}
		req.Messages[i] = m
	}
	req.Body = body
	return req, nil
}

// contentText is the text of a message's content: the string itself, or the
// text of the parts of type "text" (not thinking parts).
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// jsonText is a JSON string's value, or any other JSON value's compact text
// ("" for null or nothing).
func jsonText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
