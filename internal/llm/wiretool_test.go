package llm

import (
	"encoding/json"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// A tool goes on the wire as go-openai's Tool writes it, byte for byte:
// providers' prompt caches see the same prefix whichever writes it.
func TestWireToolWritesWhatOpenAIToolWrites(t *testing.T) {
	fn := &openai.FunctionDefinition{Name: "a_b", Description: "Looks <up> & more", Parameters: json.RawMessage(`{"type":"object", "properties":{}}`)}
	want, err := json.Marshal(openai.Tool{Type: openai.ToolTypeFunction, Function: fn})
	require.NoError(t, err)
	got, err := json.Marshal(wireTool{Type: openai.ToolTypeFunction, Function: fn})
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}

// Every request's tools go in the dialect of the provider serving its
// model: a Gemini model is sent no type list, another model the schema as
// it came, and EVAL_SCHEMA_DIALECT=none turns the adaptation off.
func TestToolSchemasAdaptedPerModel(t *testing.T) {
	tools := []eval.Tool{{Name: "forecasts", Parameters: json.RawMessage(`{"type":"object","properties":{"cities":{"type":["null","array"],"items":{"type":"string"}}}}`)}}
	for _, tt := range []struct {
		setting, model string
		adapted        bool
	}{
		{model: "google/gemini-2.5-flash", adapted: true},
		{model: "openai/gpt-4.1-mini"},
		{setting: "none", model: "google/gemini-2.5-flash"},
	} {
		c := New(Config{BaseURL: "https://openrouter.ai/api/v1", SchemaDialect: tt.setting})
		got := c.adaptTools(tt.model, tools)
		if tt.adapted {
			assert.JSONEq(t, `{"type":"object","properties":{"cities":{"type":"array","nullable":true,"items":{"type":"string"}}}}`, string(got[0].Parameters), tt.model)
		} else {
			assert.Equal(t, string(tools[0].Parameters), string(got[0].Parameters), "%s %s", tt.setting, tt.model)
		}
	}
	assert.Contains(t, string(tools[0].Parameters), `["null","array"]`, "the caller's tools are not changed")
}
