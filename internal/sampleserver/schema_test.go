package sampleserver

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The input schemas, encoded once, list as they did in structured form,
// byte for byte.
func TestEncodedSchemasListTheSame(t *testing.T) {
	fx, err := loadFixture()
	require.NoError(t, err)
	h := &handlers{fx: func() *fixture { return fx }}
	pandas := NewPandas(PandasConfig{})
	for _, group := range []func() []server.ServerTool{h.geneTools, h.variantTools, h.diseaseTools, h.orthologTools, pandas.Tools} {
		structured, encoded := group(), encodedSchemas(group())
		require.Len(t, encoded, len(structured))
		for i := range structured {
			want, err := json.Marshal(structured[i].Tool)
			require.NoError(t, err)
			got, err := json.Marshal(encoded[i].Tool)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
			assert.NotEmpty(t, encoded[i].Tool.RawInputSchema, structured[i].Tool.Name)
		}
	}
}
