package llm

import (
	"encoding/json"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
