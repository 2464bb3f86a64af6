package cache

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tool mirrors an OpenAI function tool built from an MCP tool.
type tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

func geneTools() []tool {
	return []tool{{
		Name:        "get_gene_by_symbol",
		Description: "Look up a gene by symbol.",
		Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"gene_symbol": map[string]any{"type": "string"}},
			"required":   []string{"gene_symbol"},
		},
	}}
}

// mustToolsHash stands for the hash of a tool surface (mcpconn.Set.Hash):
// the key only needs it to differ when the tools differ.
func mustToolsHash(t *testing.T, tools any) string {
	t.Helper()
	b, err := json.Marshal(tools)
	require.NoError(t, err)
	return hashHex(b)
}

func mustKey(t *testing.T, k KeyInput) string {
	t.Helper()
	key, err := Key(k)
	require.NoError(t, err)
	return key
}

// checks mirrors a case's deterministic checks and tool expectations.
type checks struct {
	Contains []string `json:"contains,omitempty"`
	Tools    []string `json:"tools,omitempty"`
}

func baseKeyInput(t *testing.T) KeyInput {
	return KeyInput{
		Question:      "What is the Entrez id of TP53?",
		Expected:      "7157",
		Expectations:  checks{Contains: []string{"7157"}, Tools: []string{"get_gene_by_symbol"}},
		Model:         "google/gemini-2.5-flash",
		BaseURL:       "https://openrouter.ai/api/v1",
		SystemPrompt:  "You are a genetics research assistant.",
		MaxIterations: 10,
		JudgeModel:    "openai/gpt-4.1",
		JudgePrompt:   "Is the response consistent with the expected one?",
		TokenLimit:    100_000,
		ToolsHash:     mustToolsHash(t, geneTools()),
		Repeat:        0,
	}
}

func TestKeyIsHexSHA256AndStable(t *testing.T) {
	first := mustKey(t, baseKeyInput(t))
	assert.Regexp(t, regexp.MustCompile(`^[0-9a-f]{64}$`), first)
	assert.Equal(t, first, mustKey(t, baseKeyInput(t)))
}

func TestKeyChangesWithEveryInput(t *testing.T) {
	changedSchema := geneTools()
	changedSchema[0].Parameters["properties"] = map[string]any{"gene_symbol": map[string]any{"type": "integer"}}
	changedDescription := geneTools()
	changedDescription[0].Description = "Look up a human gene by symbol."
	addedTool := append(geneTools(), tool{Name: "get_gene_by_entrez_id"})

	tests := []struct {
		name   string
		change func(k *KeyInput)
	}{
		{"question", func(k *KeyInput) { k.Question += " " }},
		{"expected answer", func(k *KeyInput) { k.Expected = "7158" }},
		{"checks", func(k *KeyInput) {
			k.Expectations = checks{Contains: []string{"TP53"}, Tools: []string{"get_gene_by_symbol"}}
		}},
		{"tool expectations", func(k *KeyInput) { k.Expectations = checks{Contains: []string{"7157"}} }},
		{"no expectations", func(k *KeyInput) { k.Expectations = nil }},
		{"model", func(k *KeyInput) { k.Model = "openai/gpt-4.1-mini" }},
		{"provider base URL", func(k *KeyInput) { k.BaseURL = "http://localhost:11434/v1" }},
		{"system prompt", func(k *KeyInput) { k.SystemPrompt += " Do not guess." }},
		{"max iterations", func(k *KeyInput) { k.MaxIterations = 5 }},
		{"judge model", func(k *KeyInput) { k.JudgeModel = "anthropic/claude-sonnet-4" }},
		{"judge prompt", func(k *KeyInput) { k.JudgePrompt += " Answer yes or no." }},
		{"token limit", func(k *KeyInput) { k.TokenLimit = 50_000 }},
		{"tool schema", func(k *KeyInput) { k.ToolsHash = mustToolsHash(t, changedSchema) }},
		{"tool description", func(k *KeyInput) { k.ToolsHash = mustToolsHash(t, changedDescription) }},
		{"tool added", func(k *KeyInput) { k.ToolsHash = mustToolsHash(t, addedTool) }},
		{"repeat index", func(k *KeyInput) { k.Repeat = 1 }},
	}
	base := mustKey(t, baseKeyInput(t))
	seen := map[string]string{base: "base"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input := baseKeyInput(t)
			tt.change(&input)
			key := mustKey(t, input)
			assert.NotEqual(t, base, key)
			if other, dup := seen[key]; dup {
				t.Errorf("changing %s gives the same key as %s", tt.name, other)
			}
			seen[key] = tt.name
		})
	}
}

func TestKeyIgnoresHowExpectationsAreCarried(t *testing.T) {
	asStruct := baseKeyInput(t)
	asMap := baseKeyInput(t)
	asMap.Expectations = map[string]any{"tools": []any{"get_gene_by_symbol"}, "contains": []any{"7157"}}
	asRawJSON := baseKeyInput(t)
	asRawJSON.Expectations = json.RawMessage(`{ "tools": ["get_gene_by_symbol"],
		"contains": ["7157"] }`)

	want := mustKey(t, asStruct)
	assert.Equal(t, want, mustKey(t, asMap))
	assert.Equal(t, want, mustKey(t, asRawJSON))
}

func TestKeyRejectsValuesJSONCannotEncode(t *testing.T) {
	input := baseKeyInput(t)
	input.Expectations = map[string]any{"bad": make(chan int)}
	_, err := Key(input)
	assert.Error(t, err)
}
