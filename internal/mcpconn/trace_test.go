package mcpconn

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// metaServer serves, over streamable HTTP on each protocol revision it
// is given, a tool that returns its request's _meta, and one that
// reports an error.
func metaServer(t *testing.T, versions ...string) string {
	t.Helper()
	s := server.NewMCPServer("meta", "1.0.0")
	s.AddTool(mcp.NewTool("meta", mcp.WithDescription("Returns the request's _meta.")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fields := map[string]any{}
			if req.Params.Meta != nil {
				fields = req.Params.Meta.AdditionalFields
			}
			b, err := json.Marshal(fields)
			return mcp.NewToolResultText(string(b)), err
		})
	s.AddTool(mcp.NewTool("fails", mcp.WithDescription("Reports an error.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("no such gene"), nil
		})
	var opts []server.StreamableHTTPOption
	if len(versions) > 0 {
		opts = append(opts, server.WithStateful(true), server.WithStreamableHTTPProtocolVersions(versions...))
	}
	hs := httptest.NewServer(server.NewStreamableHTTPServer(s, opts...))
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp"
}

// TestTraceContextInMeta: a call made within a recording span gets an MCP
// client span, whose trace context the server finds in params._meta; a
// call outside one gets neither.
func TestTraceContextInMeta(t *testing.T) {
	for _, era := range []struct {
		name     string
		versions []string
	}{{"current revision", nil}, {"initialize era", legacyVersions()}} {
		t.Run(era.name, func(t *testing.T) {
			srv, err := Connect(t.Context(), metaServer(t, era.versions...), Options{})
			require.NoError(t, err)
			defer srv.Close()

			res, err := srv.Call(t.Context(), "meta", nil)
			require.NoError(t, err)
			var meta map[string]any
			require.NoError(t, json.Unmarshal([]byte(res.Text), &meta))
			assert.NotContains(t, meta, "traceparent", "export off: nothing is added")

			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			ctx, parent := tp.Tracer("test").Start(t.Context(), "execute_tool meta")
			res, err = srv.Call(ctx, "meta", nil)
			require.NoError(t, err)
			_, err = srv.Call(ctx, "fails", nil)
			require.NoError(t, err)
			parent.End()
			require.NoError(t, json.Unmarshal([]byte(res.Text), &meta))

			spans := rec.Ended()
			require.Len(t, spans, 3)
			call, failed := spans[0], spans[1]
			assert.Equal(t, "tools/call meta", call.Name())
			assert.Equal(t, trace.SpanKindClient, call.SpanKind())
			assert.Equal(t, parent.SpanContext().SpanID(), call.Parent().SpanID())
			want := "00-" + call.SpanContext().TraceID().String() + "-" + call.SpanContext().SpanID().String() + "-01"
			assert.Equal(t, want, meta["traceparent"], "the server's parent is the MCP client span")
			attrs := map[string]string{}
			for _, kv := range call.Attributes() {
				attrs[string(kv.Key)] = kv.Value.Emit()
			}
			assert.Equal(t, "tools/call", attrs["mcp.method.name"])
			assert.Equal(t, "meta", attrs["gen_ai.tool.name"])
			assert.Equal(t, srv.Protocol(), attrs["mcp.protocol.version"])
			assert.Equal(t, "tcp", attrs["network.transport"])
			if era.versions != nil {
				assert.NotEmpty(t, attrs["mcp.session.id"], "a stateful server's session")
			}
			assert.NotContains(t, attrs, "error.type")

			assert.Equal(t, "tools/call fails", failed.Name())
			errType := ""
			for _, kv := range failed.Attributes() {
				if kv.Key == "error.type" {
					errType = kv.Value.Emit()
				}
			}
			assert.Equal(t, "tool_error", errType, "a result with isError")
		})
	}
}
