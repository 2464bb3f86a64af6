package llmstub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// OpenAI's limits on a chat request (API reference, "Create chat
// completion"): a function name is 1 to 64 of [a-zA-Z0-9_-], a request has
// at most 128 tools, the temperature is a number from 0 to 2.
const (
	maxTools        = 128
	maxFunctionName = 64
	maxTemperature  = 2
)

var functionName = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// Validate checks a chat request body the way OpenAI does and returns the
// 400 OpenAI answers to the first violation, worded as OpenAI words it, or
// nil when OpenAI would accept it:
//
//   - temperature a number in [0, 2];
//   - at most 128 tools, each named by 1 to 64 of [a-zA-Z0-9_-];
//   - every tool call of an assistant message with a non-empty id, a valid
//     function name and arguments given as a string;
//   - every tool message with a tool_call_id that answers a call of the
//     assistant message before it, no id answered twice in the
//     conversation, and every call of an assistant message answered.
//
// The messages are those of OpenAI's answers as reported in the issues
// cited in testdata/providers/README.md.
func Validate(body []byte) *Response {
	var req struct {
		Temperature json.RawMessage `json:"temperature"`
		Tools       []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return openAIError("We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)", nil, nil)
	}
	if e := validTemperature(req.Temperature); e != nil {
		return e
	}
	if len(req.Tools) > maxTools {
		return openAIError(fmt.Sprintf("Invalid 'tools': array too long. Expected an array with maximum length %d, but got an array with length %d instead.", maxTools, len(req.Tools)),
			"tools", "array_above_max_length")
	}
	for i, t := range req.Tools {
		if e := validName(fmt.Sprintf("tools[%d].function.name", i), t.Function.Name); e != nil {
			return e
		}
	}
	return validMessages(req.Messages)
}

func validTemperature(raw json.RawMessage) *Response {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var t float64
	if json.Unmarshal(raw, &t) != nil {
		return openAIError(fmt.Sprintf("Invalid type for 'temperature': expected a decimal, but got %s instead.", jsonKind(raw)), "temperature", "invalid_type")
	}
	got := strconv.FormatFloat(t, 'g', -1, 64)
	switch {
	case t > maxTemperature:
		return openAIError(fmt.Sprintf("Invalid 'temperature': decimal above maximum value. Expected a value <= %d, but got %s instead.", maxTemperature, got), "temperature", "decimal_above_max_value")
	case t < 0:
		return openAIError(fmt.Sprintf("Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got %s instead.", got), "temperature", "decimal_below_min_value")
	}
	return nil
}

func validName(param, name string) *Response {
	switch {
	case name == "":
		return openAIError(fmt.Sprintf("Invalid '%s': empty string. Expected a string with minimum length 1, but got an empty string instead.", param), param, "empty_string")
	case len(name) > maxFunctionName:
		return openAIError(fmt.Sprintf("Invalid '%s': string too long. Expected a string with maximum length %d, but got a string with length %d instead.", param, maxFunctionName, len(name)), param, "string_above_max_length")
	case !functionName.MatchString(name):
		return openAIError(fmt.Sprintf("Invalid '%s': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", param), param, "invalid_value")
	}
	return nil
}

type wireCall struct {
	ID       *string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

func validMessages(raw []json.RawMessage) *Response {
	answered := map[string]int{} // tool_call_id -> index of the tool message
	var open []string            // ids of the last assistant message not yet answered
	openAt := -1                 // index of that assistant message
	for i, r := range raw {
		var m struct {
			Role       string     `json:"role"`
			ToolCallID *string    `json:"tool_call_id"`
			ToolCalls  []wireCall `json:"tool_calls"`
		}
		if json.Unmarshal(r, &m) != nil {
			return openAIError(fmt.Sprintf("Invalid type for 'messages[%d]': expected an object, but got %s instead.", i, jsonKind(r)), fmt.Sprintf("messages[%d]", i), "invalid_type")
		}
		if m.Role != "tool" && len(open) > 0 {
			return unanswered(openAt, open)
		}
		switch m.Role {
		case "assistant":
			open, openAt = nil, i
			for j, c := range m.ToolCalls {
				param := fmt.Sprintf("messages[%d].tool_calls[%d]", i, j)
				if e := validCall(param, c); e != nil {
					return e
				}
				open = append(open, *c.ID)
			}
		case "tool":
			if m.ToolCallID == nil {
				return openAIError("Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.", fmt.Sprintf("messages.[%d].tool_call_id", i), nil)
			}
			id := *m.ToolCallID
			if first, dup := answered[id]; dup {
				return openAIError(fmt.Sprintf("Invalid parameter: Duplicate value for 'tool_call_id' of '%s', in messages[%d] and messages[%d].", id, first, i), fmt.Sprintf("messages.[%d].tool_call_id", i), nil)
			}
			k := indexOf(open, id)
			if k < 0 {
				return openAIError("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", fmt.Sprintf("messages.[%d].role", i), nil)
			}
			answered[id] = i
			open = append(open[:k], open[k+1:]...)
		}
	}
	if len(open) > 0 {
		return unanswered(openAt, open)
	}
	return nil
}

func validCall(param string, c wireCall) *Response {
	switch {
	case c.ID == nil:
		return openAIError(fmt.Sprintf("Missing required parameter: '%s.id'.", param), param+".id", "missing_required_parameter")
	case *c.ID == "":
		return openAIError(fmt.Sprintf("Invalid '%s.id': empty string. Expected a string with minimum length 1, but got an empty string instead.", param), param+".id", "empty_string")
	}
	if e := validName(param+".function.name", c.Function.Name); e != nil {
		return e
	}
	var args string
	if json.Unmarshal(c.Function.Arguments, &args) != nil {
		return openAIError(fmt.Sprintf("Invalid type for '%s.function.arguments': expected a string, but got %s instead.", param, jsonKind(c.Function.Arguments)), param+".function.arguments", "invalid_type")
	}
	return nil
}

func unanswered(at int, ids []string) *Response {
	return openAIError("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: "+strings.Join(ids, ", "),
		fmt.Sprintf("messages.[%d].role", at), nil)
}

func indexOf(ids []string, id string) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return -1
}

// jsonKind names the type of a JSON value as OpenAI's messages do.
func jsonKind(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "an invalid value"
	}
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	}
	return "an object"
}

// openAIError is a 400 in OpenAI's error shape; param and code are nil
// where OpenAI sends null.
func openAIError(msg string, param, code any) *Response {
	type apiError struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Param   any    `json:"param"`
		Code    any    `json:"code"`
	}
	b, _ := json.MarshalIndent(map[string]apiError{"error": {Message: msg, Type: "invalid_request_error", Param: param, Code: code}}, "", "  ")
	return &Response{Status: http.StatusBadRequest, Headers: map[string]string{"Content-Type": "application/json"}, Body: string(b) + "\n"}
}
