package llmstub

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type openAIErrorBody struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

func tools(names ...string) string {
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf(`{"type":"function","function":{"name":%q,"parameters":{"type":"object"}}}`, n))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func TestValidateAsOpenAIDoes(t *testing.T) {
	call := func(id string) string {
		return `{"id":` + id + `,"type":"function","function":{"name":"get_gene","arguments":"{}"}}`
	}
	many := make([]string, 129)
	for i := range many {
		many[i] = fmt.Sprintf("tool_%d", i)
	}
	tests := []struct {
		name        string
		body        string
		message     string // "" when OpenAI accepts the request
		param, code string // "null" for null
	}{
		{name: "a valid conversation", body: `{"model":"m","temperature":0,"tools":` + tools("get_gene", "a-b_c") + `,"messages":[
			{"role":"system","content":"s"},{"role":"user","content":"q"},
			{"role":"assistant","content":null,"tool_calls":[` + call(`"call_1"`) + `,` + call(`"call_2"`) + `]},
			{"role":"tool","tool_call_id":"call_2","content":"r"},{"role":"tool","tool_call_id":"call_1","content":"r"},
			{"role":"assistant","content":"a"}]}`},
		{name: "temperature above 2", body: `{"temperature":3,"messages":[]}`,
			message: "Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 3 instead.", param: "temperature", code: "decimal_above_max_value"},
		{name: "temperature below 0", body: `{"temperature":-0.5,"messages":[]}`,
			message: "Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -0.5 instead.", param: "temperature", code: "decimal_below_min_value"},
		{name: "temperature a string", body: `{"temperature":"0","messages":[]}`,
			message: "Invalid type for 'temperature': expected a decimal, but got a string instead.", param: "temperature", code: "invalid_type"},
		{name: "a denormal temperature is a valid number", body: `{"temperature":1.401298464324817e-45,"messages":[]}`},
		{name: "129 tools", body: `{"tools":` + tools(many...) + `,"messages":[]}`,
			message: "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 129 instead.", param: "tools", code: "array_above_max_length"},
		{name: "tool name with a dot", body: `{"tools":` + tools("ok", "server.tool") + `,"messages":[]}`,
			message: "Invalid 'tools[1].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", param: "tools[1].function.name", code: "invalid_value"},
		{name: "tool name of 65 characters", body: `{"tools":` + tools(strings.Repeat("x", 65)) + `,"messages":[]}`,
			message: "Invalid 'tools[0].function.name': string too long. Expected a string with maximum length 64, but got a string with length 65 instead.", param: "tools[0].function.name", code: "string_above_max_length"},
		{name: "empty tool name", body: `{"tools":` + tools("") + `,"messages":[]}`,
			message: "Invalid 'tools[0].function.name': empty string. Expected a string with minimum length 1, but got an empty string instead.", param: "tools[0].function.name", code: "empty_string"},
		{name: "tool call without an id", body: `{"messages":[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"f","arguments":"{}"}}]}]}`,
			message: "Missing required parameter: 'messages[1].tool_calls[0].id'.", param: "messages[1].tool_calls[0].id", code: "missing_required_parameter"},
		{name: "tool call with an empty id", body: `{"messages":[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[` + call(`""`) + `]}]}`,
			message: "Invalid 'messages[1].tool_calls[0].id': empty string. Expected a string with minimum length 1, but got an empty string instead.", param: "messages[1].tool_calls[0].id", code: "empty_string"},
		{name: "arguments as an object", body: `{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":{"x":1}}}]}]}`,
			message: "Invalid type for 'messages[0].tool_calls[0].function.arguments': expected a string, but got an object instead.", param: "messages[0].tool_calls[0].function.arguments", code: "invalid_type"},
		{name: "called function with a bad name", body: `{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"a b","arguments":"{}"}}]}]}`,
			message: "Invalid 'messages[0].tool_calls[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", param: "messages[0].tool_calls[0].function.name", code: "invalid_value"},
		{name: "tool message without tool_call_id", body: `{"messages":[{"role":"assistant","tool_calls":[` + call(`"c"`) + `]},{"role":"tool","content":"r"}]}`,
			message: "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.", param: "messages.[1].tool_call_id", code: "null"},
		{name: "tool message answering nothing", body: `{"messages":[{"role":"user","content":"q"},{"role":"tool","tool_call_id":"c","content":"r"}]}`,
			message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", param: "messages.[1].role", code: "null"},
		{name: "tool message answering an older call", body: `{"messages":[{"role":"assistant","tool_calls":[` + call(`"a"`) + `]},{"role":"tool","tool_call_id":"a","content":"r"},
			{"role":"assistant","tool_calls":[` + call(`"b"`) + `]},{"role":"tool","tool_call_id":"x","content":"r"}]}`,
			message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", param: "messages.[3].role", code: "null"},
		{name: "one id answered twice in the conversation", body: `{"messages":[{"role":"assistant","tool_calls":[` + call(`"functions.f:0"`) + `]},{"role":"tool","tool_call_id":"functions.f:0","content":"r"},
			{"role":"assistant","tool_calls":[` + call(`"functions.f:0"`) + `]},{"role":"tool","tool_call_id":"functions.f:0","content":"r"}]}`,
			message: "Invalid parameter: Duplicate value for 'tool_call_id' of 'functions.f:0', in messages[1] and messages[3].", param: "messages.[3].tool_call_id", code: "null"},
		{name: "one id twice in a message", body: `{"messages":[{"role":"assistant","tool_calls":[` + call(`"d"`) + `,` + call(`"d"`) + `]},
			{"role":"tool","tool_call_id":"d","content":"r"},{"role":"tool","tool_call_id":"d","content":"r"}]}`,
			message: "Invalid parameter: Duplicate value for 'tool_call_id' of 'd', in messages[1] and messages[2].", param: "messages.[2].tool_call_id", code: "null"},
		{name: "a call left unanswered", body: `{"messages":[{"role":"assistant","tool_calls":[` + call(`"a"`) + `,` + call(`"b"`) + `]},
			{"role":"tool","tool_call_id":"a","content":"r"},{"role":"user","content":"next"}]}`,
			message: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: b", param: "messages.[0].role", code: "null"},
		{name: "not JSON", body: `{"messages":`, message: "We could not parse the JSON body of your request.", param: "null", code: "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := Validate([]byte(tt.body))
			if tt.message == "" {
				assert.Nil(t, resp)
				return
			}
			require.NotNil(t, resp)
			assert.Equal(t, 400, resp.Status)
			assert.Equal(t, "application/json", resp.Headers["Content-Type"])
			var e openAIErrorBody
			require.NoError(t, json.Unmarshal([]byte(resp.Body), &e))
			assert.True(t, strings.HasPrefix(e.Error.Message, tt.message), e.Error.Message)
			assert.Equal(t, "invalid_request_error", e.Error.Type)
			assert.Equal(t, tt.param, deref(e.Error.Param))
			assert.Equal(t, tt.code, deref(e.Error.Code))
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// A strict stub answers a request OpenAI would refuse with OpenAI's 400,
// before any responder sees it.
func TestStrictServerRefusesAsOpenAI(t *testing.T) {
	s := Start(func(Request) Reply { return Reply{Content: "fine"} }, Options{Strict: true})
	defer s.Close()
	status, _, body := postRaw(t, s, `{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"","content":"r"}]}`)
	assert.Equal(t, 400, status)
	var e openAIErrorBody
	require.NoError(t, json.Unmarshal([]byte(body), &e))
	assert.Equal(t, "Invalid 'messages[1].tool_calls[0].id': empty string. Expected a string with minimum length 1, but got an empty string instead.", e.Error.Message)
	assert.Empty(t, s.Received(), "the responder never saw it")

	status, _, body = postRaw(t, s, `{"model":"m","messages":[{"role":"user","content":"q"}]}`)
	assert.Equal(t, 200, status)
	assert.Contains(t, body, `"content":"fine"`)
}

// Content given as parts and arguments given as an object reach a
// responder as text.
func TestRequestsWithPartsAndObjectArguments(t *testing.T) {
	s := Start(func(Request) Reply { return Reply{Content: "ok"} }, Options{})
	defer s.Close()
	status, _, _ := postRaw(t, s, `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"what is "},{"type":"text","text":"NUTM2G?"}]},
		{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"hmm"}]},{"type":"text","text":"let me look"}],
		 "tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":{"gene_symbol":"NUTM2G"}}}]},
		{"role":"tool","tool_call_id":"c","content":null}]}`)
	require.Equal(t, 200, status)
	got := s.Received()
	require.Len(t, got, 1)
	assert.Equal(t, "what is NUTM2G?", got[0].Question())
	assert.Equal(t, "let me look", got[0].Messages[1].Content, "the text parts, not the thinking")
	assert.JSONEq(t, `{"gene_symbol":"NUTM2G"}`, got[0].Messages[1].ToolCalls[0].Function.Arguments)
	assert.Equal(t, "c", got[0].Messages[1].ToolCalls[0].ID)
	assert.Empty(t, got[0].Messages[2].Content)
	assert.Equal(t, "/v1/chat/completions", got[0].Path)
	assert.Contains(t, string(got[0].Body), `"thinking"`, "the body as it arrived")
}
