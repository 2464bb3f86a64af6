package sampleserver_test

import (
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpeval/mcpeval/internal/sampleserver"
)

// TestServerSpans: with spans exported, each tool call is a server span
// under the trace context the client sent in params._meta; a call whose
// result reports an error says tool_error.
func TestServerSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	old := otel.GetTracerProvider()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	t.Cleanup(func() { otel.SetTracerProvider(old) })

	c, err := client.NewInProcessClient(sampleserver.New())
	require.NoError(t, err)
	require.NoError(t, c.Start(testContext(t)))
	defer c.Close()
	_, err = c.Initialize(testContext(t), mcp.InitializeRequest{})
	require.NoError(t, err)

	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	call := func(symbol string, meta *mcp.Meta) {
		req := mcp.CallToolRequest{}
		req.Params.Name = "get_gene_by_symbol"
		req.Params.Arguments = map[string]any{"gene_symbol": symbol}
		req.Params.Meta = meta
		_, err := c.CallTool(testContext(t), req)
		require.NoError(t, err)
	}
	call("NUTM2G", &mcp.Meta{AdditionalFields: map[string]any{"traceparent": "00-" + traceID + "-" + parentID + "-01"}})
	call("NUTM2GX", &mcp.Meta{AdditionalFields: map[string]any{"traceparent": "00-" + traceID + "-" + parentID + "-01"}})
	call("CFTR", nil)

	var spans []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.InstrumentationScope().Name == sampleserver.ScopeName {
			spans = append(spans, s)
		}
	}
	require.Len(t, spans, 3)
	for i, s := range spans {
		assert.Equal(t, "tools/call get_gene_by_symbol", s.Name())
		assert.Equal(t, trace.SpanKindServer, s.SpanKind())
		attrs := map[string]string{}
		for _, kv := range s.Attributes() {
			attrs[string(kv.Key)] = kv.Value.Emit()
		}
		assert.Equal(t, "tools/call", attrs["mcp.method.name"])
		assert.Equal(t, "get_gene_by_symbol", attrs["gen_ai.tool.name"])
		if i < 2 {
			assert.Equal(t, traceID, s.SpanContext().TraceID().String(), "the client's trace")
			assert.Equal(t, parentID, s.Parent().SpanID().String(), "under the client's span")
		} else {
			assert.False(t, s.Parent().IsValid(), "no trace context: a trace of its own")
		}
		if i == 1 {
			assert.Equal(t, "tool_error", attrs["error.type"])
		} else {
			assert.NotContains(t, attrs, "error.type")
		}
	}
}
