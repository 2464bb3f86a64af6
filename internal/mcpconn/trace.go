package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// The MCP client spans of the GenAI semantic conventions: a request made
// within a recorded span (a case run whose traces are exported) gets a
// client span of its own, "tools/call {tool}" or "resources/read", and
// carries the span's W3C trace context in its params._meta (traceparent,
// tracestate), so that a server instrumented per the conventions nests its
// spans beneath it. Outside a recorded span nothing is started and
// nothing is added to a request. The trace context is never part of a
// call's identity: a call is matched, recorded and cached by its server,
// tool and arguments, which the _meta is not.

const scopeName = "github.com/mcpeval/mcpeval/internal/mcpconn"

// startSpan starts the client span of a request on cn, when ctx holds a
// recording span: its tracer is that span's.
func (s *Server) startSpan(ctx context.Context, cn *conn, method mcp.MCPMethod, target string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, parent
	}
	name := string(method)
	if target != "" {
		name += " " + target
	}
	transport := "pipe" // stdio
	if s.spec.URL != "" {
		transport = "tcp"
	}
	attrs = append(attrs, semconv.McpMethodNameKey.String(string(method)), semconv.NetworkTransportKey.String(transport),
		semconv.JSONRPCProtocolVersion("2.0"))
	if cn.protocol != "" {
		attrs = append(attrs, semconv.McpProtocolVersionKey.String(cn.protocol))
	}
	if id := cn.client.GetSessionId(); id != "" {
		attrs = append(attrs, semconv.McpSessionIDKey.String(id))
	}
	return parent.TracerProvider().Tracer(scopeName).Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

// startRestartSpan starts the span of a restart that a request's failure
// caused, when that request was recorded: a trace of its own, "restart
// MCP server", linked to the request's span, so that the new connection's
// initialize and tools/list are client spans beneath it. It returns the
// span (a non-recording one otherwise) and the function that ends it
// with the restart's error.
func startRestartSpan(failed context.Context) (trace.Span, func(error)) {
	from := trace.SpanFromContext(failed)
	if !from.IsRecording() {
		return trace.SpanFromContext(context.Background()), func(error) {}
	}
	_, span := from.TracerProvider().Tracer(scopeName).Start(context.Background(), "restart MCP server",
		trace.WithNewRoot(), trace.WithLinks(trace.LinkFromContext(failed)))
	return span, func(err error) {
		if err != nil {
			span.SetStatus(codes.Error, "the restart failed")
		}
		span.End()
	}
}

// endSpan ends a request's client span: error.type tool_error for a
// result that reports an error, the failure's kind for a request that
// failed.
func endSpan(span trace.Span, isError bool, err error) {
	if !span.IsRecording() {
		return
	}
	defer span.End()
	var fault *ServerError
	var callErr *CallError
	switch {
	case errors.As(err, &fault):
		span.SetAttributes(semconv.ErrorTypeKey.String("server_fault"))
		span.SetStatus(codes.Error, "the server failed")
	case errors.As(err, &callErr):
		span.SetAttributes(semconv.ErrorTypeKey.String("request_error"))
		span.SetStatus(codes.Error, "the server answered with an error")
	case err != nil:
		span.SetAttributes(semconv.ErrorTypeKey.String(fmt.Sprintf("%T", err)))
		span.SetStatus(codes.Error, "the request failed")
	case isError:
		span.SetAttributes(semconv.ErrorTypeKey.String("tool_error"))
		span.SetStatus(codes.Error, "the tool reported an error")
	}
}

// traceMeta is the W3C trace context of ctx's span as _meta entries
// (traceparent, tracestate), nil when ctx holds none to pass on.
func traceMeta(ctx context.Context) propagation.MapCarrier {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, carrier)
	return carrier
}

// withTraceParams is a request's params with ctx's trace context added
// to their _meta; params themselves when ctx holds none to pass on, or
// when they are not a JSON object and so cannot carry a _meta. Every
// transport sends its requests through it: each request made within a
// recorded span, a suite's own or mcp-go's (initialize, tools/list, ping),
// carries the span's trace context.
func withTraceParams(ctx context.Context, params any) any {
	tc := traceMeta(ctx)
	if tc == nil {
		return params
	}
	fields, ok := params.(map[string]json.RawMessage)
	if !ok {
		fields = map[string]json.RawMessage{}
		if params != nil {
			b, err := json.Marshal(params)
			if err != nil || json.Unmarshal(b, &fields) != nil || fields == nil {
				return params
			}
		}
	}
	// The _meta's own entries are kept as they were encoded (a number
	// such as a large progress token is not rounded).
	meta := map[string]json.RawMessage{}
	if raw, ok := fields["_meta"]; ok {
		if json.Unmarshal(raw, &meta) != nil {
			return params // not an object: left as the caller made it
		}
		if meta == nil {
			meta = map[string]json.RawMessage{}
		}
	}
	for k, v := range tc {
		meta[k], _ = json.Marshal(v) // a string
	}
	b, err := json.Marshal(meta)
	if err != nil {
		return params
	}
	out := make(map[string]json.RawMessage, len(fields)+1)
	for k, v := range fields {
		out[k] = v
	}
	out["_meta"] = b
	return out
}

// tracedHTTP is mcp-go's streamable HTTP transport, whose requests carry
// the trace context of ctx's span in their _meta (see withTraceParams).
// Everything else is the transport's own, so mcp-go's client finds in it
// every interface it looks for.
type tracedHTTP struct {
	*transport.StreamableHTTP
}

// SendRequest sends a request, with the trace context of ctx's span in
// its _meta.
func (t *tracedHTTP) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	req.Params = withTraceParams(ctx, req.Params)
	return t.StreamableHTTP.SendRequest(ctx, req)
}
