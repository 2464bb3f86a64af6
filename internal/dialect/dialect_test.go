package dialect

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestChoose(t *testing.T) {
	tests := []struct {
		setting, baseURL, model string
		want                    Dialect
		err                     string
	}{
		{baseURL: "https://generativelanguage.googleapis.com/v1beta/openai/", model: "gemini-2.5-flash", want: Dialect{Name: "gemini", From: "the base URL's host"}},
		{baseURL: "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/l/endpoints/openapi", model: "google/gemini-2.5-pro", want: Dialect{Name: "gemini", From: "the base URL's host"}},
		{baseURL: "https://openrouter.ai/api/v1", model: "google/gemini-2.5-flash", want: Dialect{Name: "gemini", From: "the model name"}},
		{baseURL: "http://localhost:4000/v1", model: "gemini-2.0-flash", want: Dialect{Name: "gemini", From: "the model name"}},
		{baseURL: "https://openrouter.ai/api/v1", model: "openai/gpt-4.1-mini"},
		{baseURL: "http://localhost:11434/v1", model: "gemma3"},
		{setting: "none", baseURL: "https://generativelanguage.googleapis.com/v1beta/openai/", model: "gemini-2.5-flash", want: Dialect{From: "the schema-dialect setting"}},
		{setting: "Gemini", baseURL: "http://localhost:8080/v1", model: "proxy", want: Dialect{Name: "gemini", From: "the schema-dialect setting"}},
		{setting: "claude", err: `the schema dialect "claude": want none or one of gemini`},
	}
	for _, tt := range tests {
		got, err := Choose(tt.setting, tt.baseURL, tt.model)
		if tt.err != "" {
			assert.EqualError(t, err, tt.err)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "%+v", tt)
	}
}

func TestAdaptToGemini(t *testing.T) {
	gemini := Dialect{Name: "gemini"}
	tests := []struct {
		name, schema, want string
		changes            []string
		err                string
	}{
		{name: "nothing to adapt", schema: `{"type":"object","properties":{"gene_symbol":{"type":"string"}}}`},
		{name: "the Go SDK's slices", schema: `{"type":"object","properties":{"ids":{"type":["null","array"],"items":{"type":"string"}}}}`,
			want: `{"type":"object","properties":{"ids":{"type":"array","nullable":true,"items":{"type":"string"}}}}`, changes: []string{"type list"}},
		{name: "several types", schema: `{"type":"object","properties":{"v":{"type":["string","number"]}}}`,
			want: `{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"number"}]}}}`, changes: []string{"type list"}},
		{name: "a property named type is a property", schema: `{"type":"object","properties":{"type":{"type":"string","const":"gene"}}}`,
			want: `{"type":"object","properties":{"type":{"type":"string","enum":["gene"]}}}`, changes: []string{"const"}},
		{name: "data is left alone", schema: `{"type":"object","properties":{"x":{"type":"string","default":"$schema","enum":["a","b"]}},"$schema":"https://json-schema.org/draft/2020-12/schema","additionalProperties":false}`,
			want: `{"type":"object","properties":{"x":{"type":"string","default":"$schema","enum":["a","b"]}}}`},
		{name: "references inlined", schema: `{"type":"object","properties":{"g":{"$ref":"#/$defs/Gene"},"list":{"type":"array","items":{"$ref":"#/$defs/Gene"}}},"$defs":{"Gene":{"type":"object","properties":{"symbol":{"type":"string"}}}}}`,
			want: `{"type":"object","properties":{"g":{"type":"object","properties":{"symbol":{"type":"string"}}},"list":{"type":"array","items":{"type":"object","properties":{"symbol":{"type":"string"}}}}}}`},
		{name: "a reference to itself", schema: `{"type":"object","properties":{"tree":{"$ref":"#/$defs/Node"}},"$defs":{"Node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}}}`,
			err: "properties.tree: properties.children: items: #/$defs/Node refers to itself"},
		{name: "a reference to nothing", schema: `{"type":"object","properties":{"g":{"$ref":"#/$defs/Missing"}}}`, err: "#/$defs/Missing names nothing in the schema"},
		{name: "numbers kept exact", schema: `{"type":"object","properties":{"n":{"type":["integer","null"],"maximum":9007199254740993}}}`,
			want: `{"type":"object","properties":{"n":{"type":"integer","nullable":true,"maximum":9007199254740993}}}`, changes: []string{"type list"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changes, err := gemini.Adapt(json.RawMessage(tt.schema))
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			if tt.want == "" {
				assert.Equal(t, tt.schema, string(got), "unchanged, byte for byte")
				assert.Empty(t, changes)
				return
			}
			assert.JSONEq(t, tt.want, string(got))
			for _, c := range tt.changes {
				assert.Contains(t, changes, c)
			}
		})
	}

	// Without a dialect, nothing changes.
	schema := json.RawMessage(`{"type":["null","array"]}`)
	got, changes, err := Dialect{}.Adapt(schema)
	require.NoError(t, err)
	assert.Equal(t, string(schema), string(got))
	assert.Empty(t, changes)
}
