package sampleserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the server's spans.
const ScopeName = "github.com/mcpeval/mcpeval/internal/sampleserver"

// traceCalls makes each tool call an MCP server span of the GenAI
// semantic conventions ("tools/call {tool}"), child of the trace context
// the client sent in params._meta (traceparent, tracestate), so that it
// joins the client's trace. Its spans go to the global tracer provider: a
// no-op unless the process exports them (tracing.Serve).
func traceCalls(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		provider := otel.GetTracerProvider()
		if meta := req.Params.Meta; meta != nil {
			carrier := propagation.MapCarrier{}
			for _, k := range (propagation.TraceContext{}).Fields() {
				if v, ok := meta.AdditionalFields[k].(string); ok {
					carrier[k] = v
				}
			}
			ctx = propagation.TraceContext{}.Extract(ctx, carrier)
		}
		attrs := []attribute.KeyValue{semconv.McpMethodNameToolsCall, semconv.GenAIToolName(req.Params.Name), semconv.GenAIOperationNameExecuteTool}
		if session := server.ClientSessionFromContext(ctx); session != nil && session.SessionID() != "" {
			attrs = append(attrs, semconv.McpSessionIDKey.String(session.SessionID()))
		}
		ctx, span := provider.Tracer(ScopeName).Start(ctx, "tools/call "+req.Params.Name,
			trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
		defer span.End()
		res, err := next(ctx, req)
		switch {
		case err != nil:
			span.SetAttributes(semconv.ErrorTypeKey.String("_OTHER"))
			span.SetStatus(codes.Error, err.Error())
		case res != nil && res.IsError:
			span.SetAttributes(semconv.ErrorTypeKey.String("tool_error"))
			span.SetStatus(codes.Error, "the tool reported an error")
		}
		return res, err
	}
}
