package mcpconn

import (
	"context"
	"encoding/json"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	mcptracing "github.com/mark3labs/mcp-go/tracing"
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

// wireRequests reads the requests a modeWire server received (its frames
// file): each one's method and the traceparent of its _meta, "" if none.
func wireRequests(t *testing.T, frames string) (methods, parents []string) {
	t.Helper()
	b, err := os.ReadFile(frames)
	require.NoError(t, err)
	for line := range strings.Lines(string(b)) {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta map[string]any `json:"_meta"`
			} `json:"params"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &msg), line)
		if msg.Method == "" || msg.ID == nil {
			continue // a response or a notification
		}
		parent, _ := msg.Params.Meta["traceparent"].(string)
		methods, parents = append(methods, msg.Method), append(parents, parent)
	}
	return methods, parents
}

// TestEveryRequestCarriesTraceContext: over stdio, on both eras, every
// request made within a recording span (the start's handshake or
// discovery and tools/list, a call) gets an MCP client span of its own,
// whose trace context the server reads in the request's _meta; a start
// and a call outside one add nothing.
func TestEveryRequestCarriesTraceContext(t *testing.T) {
	t.Parallel()
	for _, protocol := range []string{mcp.LATEST_PROTOCOL_VERSION, mcp.LATEST_LEGACY_PROTOCOL_VERSION} {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			start := "initialize"
			if mcp.IsModernProtocol(protocol) {
				start = "server/discover"
			}
			spec, opts := stdioSpec(t, modeWire, Options{})
			parsed, err := ParseSpec(spec)
			require.NoError(t, err)
			parsed.Protocol = protocol

			untraced := filepath.Join(t.TempDir(), "frames")
			offOpts := opts
			offOpts.Env = append(slices.Clone(opts.Env), framesEnv+"="+untraced)
			off, err := ConnectSpec(t.Context(), parsed, offOpts)
			require.NoError(t, err)
			_, err = off.Call(t.Context(), "echo", map[string]any{"text": "x"})
			require.NoError(t, err)
			off.Close()
			methods, parents := wireRequests(t, untraced)
			assert.Equal(t, []string{start, "tools/list", "tools/call"}, methods)
			assert.Equal(t, []string{"", "", ""}, parents, "export off: nothing is added")

			traced := filepath.Join(t.TempDir(), "frames")
			opts.Env = append(opts.Env, framesEnv+"="+traced)
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			ctx, connect := tp.Tracer("test").Start(t.Context(), "connect MCP servers")
			srv, err := ConnectSpec(ctx, parsed, opts)
			require.NoError(t, err)
			connect.End()
			ctx, tool := tp.Tracer("test").Start(t.Context(), "execute_tool echo")
			_, err = srv.Call(ctx, "echo", map[string]any{"text": "x"})
			require.NoError(t, err)
			tool.End()
			srv.Close()

			spans := map[string]sdktrace.ReadOnlySpan{}
			for _, s := range rec.Ended() {
				spans[s.Name()] = s
			}
			methods, parents = wireRequests(t, traced)
			require.Equal(t, []string{start, "tools/list", "tools/call"}, methods)
			for i, name := range []string{start, "tools/list", "tools/call echo"} {
				span, ok := spans[name]
				require.True(t, ok, "a client span %q among %v", name, slices.Collect(maps.Keys(spans)))
				assert.Equal(t, trace.SpanKindClient, span.SpanKind())
				want := connect
				if i == 2 {
					want = tool
				}
				assert.Equal(t, want.SpanContext().SpanID(), span.Parent().SpanID(), name)
				assert.Equal(t, "00-"+span.SpanContext().TraceID().String()+"-"+span.SpanContext().SpanID().String()+"-01", parents[i],
					"the server's parent for %s is its client span", methods[i])
				method := ""
				for _, kv := range span.Attributes() {
					if kv.Key == "mcp.method.name" {
						method = kv.Value.Emit()
					}
				}
				assert.Equal(t, methods[i], method)
			}
		})
	}
}

// seenParents is an mcp-go server's tracing (its MetaPropagator and
// Tracer): it records, for each message the server dispatches, the
// traceparent mcp-go's server extracted from the message's _meta.
type seenParents struct {
	mu      sync.Mutex
	parents map[string]string // span name (mcp.<method>) to traceparent
}

type parentKey struct{}

func (p *seenParents) InjectMeta(_ context.Context, meta *mcp.Meta) *mcp.Meta { return meta }

func (p *seenParents) ExtractMeta(ctx context.Context, meta *mcp.Meta) context.Context {
	if meta == nil {
		return ctx
	}
	parent, _ := meta.AdditionalFields["traceparent"].(string)
	return context.WithValue(ctx, parentKey{}, parent)
}

func (p *seenParents) Start(ctx context.Context, name string, _ mcptracing.SpanKind, _ ...mcptracing.Attribute) (context.Context, mcptracing.Span) {
	parent, _ := ctx.Value(parentKey{}).(string)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.parents[name] = parent
	return ctx, mcptracing.SpanFromContext(ctx)
}

func (p *seenParents) seen() map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.parents)
}

// TestTraceContextOverHTTP: over streamable HTTP, on both eras, the
// start's handshake or discovery, tools/list and a call made within
// recording spans carry their client spans' trace context, as mcp-go's
// server reads it from _meta (SEP-414); outside one, none.
func TestTraceContextOverHTTP(t *testing.T) {
	for _, era := range []struct {
		name     string
		versions []string
	}{{"current revision", nil}, {"initialize era", legacyVersions()}} {
		t.Run(era.name, func(t *testing.T) {
			seen := &seenParents{parents: map[string]string{}}
			s := server.NewMCPServer("meta", "1.0.0", server.WithMetaPropagator(seen), server.WithTracer(seen))
			s.AddTool(mcp.NewTool("echo"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ok"), nil
			})
			var opts []server.StreamableHTTPOption
			if era.versions != nil {
				opts = append(opts, server.WithStateful(true), server.WithStreamableHTTPProtocolVersions(era.versions...))
			}
			hs := httptest.NewServer(server.NewStreamableHTTPServer(s, opts...))
			defer hs.Close()

			off, err := Connect(t.Context(), hs.URL+"/mcp", Options{})
			require.NoError(t, err)
			_, err = off.Call(t.Context(), "echo", nil)
			require.NoError(t, err)
			off.Close()
			start := "initialize"
			if mcp.IsModernProtocol(off.Protocol()) {
				start = "server/discover"
			}
			requests := []string{start, "tools/list", "tools/call"}
			for _, method := range requests {
				parent, ok := seen.seen()["mcp."+method]
				require.True(t, ok, "the server saw %s: %v", method, seen.seen())
				assert.Empty(t, parent, "export off: nothing is added to %s", method)
			}

			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			ctx, connect := tp.Tracer("test").Start(t.Context(), "connect MCP servers")
			srv, err := Connect(ctx, hs.URL+"/mcp", Options{})
			require.NoError(t, err)
			defer srv.Close()
			connect.End()
			ctx, tool := tp.Tracer("test").Start(t.Context(), "execute_tool echo")
			_, err = srv.Call(ctx, "echo", nil)
			require.NoError(t, err)
			tool.End()

			spans := map[string]sdktrace.ReadOnlySpan{}
			for _, s := range rec.Ended() {
				spans[s.Name()] = s
			}
			got := seen.seen()
			for i, name := range []string{start, "tools/list", "tools/call echo"} {
				span, ok := spans[name]
				require.True(t, ok, "a client span %q among %v", name, slices.Collect(maps.Keys(spans)))
				assert.Equal(t, "00-"+span.SpanContext().TraceID().String()+"-"+span.SpanContext().SpanID().String()+"-01",
					got["mcp."+requests[i]], "the server's parent for %s is its client span", requests[i])
			}
		})
	}
}

// TestWithTraceParams: the trace context joins a request's _meta beside
// what it held (a large progress token keeps every digit); params that
// cannot carry a _meta are sent as they are; without a span nothing
// changes.
func TestWithTraceParams(t *testing.T) {
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("test").Start(t.Context(), "tools/call x")
	defer span.End()
	parent := "00-" + span.SpanContext().TraceID().String() + "-" + span.SpanContext().SpanID().String() + "-01"
	encode := func(v any) string {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return string(b)
	}
	for _, tc := range []struct {
		name   string
		params any
		want   string // the params sent, encoded
	}{
		{"none", nil, `{"_meta":{"traceparent":"` + parent + `"}}`},
		{"typed", mcp.ListToolsRequest{}.Params, `{"_meta":{"traceparent":"` + parent + `"}}`},
		{"a large progress token", json.RawMessage(`{"name":"x","_meta":{"progressToken":9007199254740993}}`),
			`{"_meta":{"progressToken":9007199254740993,"traceparent":"` + parent + `"},"name":"x"}`},
		{"mcp-go's own, already a map", map[string]json.RawMessage{"_meta": json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`)},
			`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","traceparent":"` + parent + `"}}`},
		{"a null _meta", json.RawMessage(`{"_meta":null}`), `{"_meta":{"traceparent":"` + parent + `"}}`},
		{"an array", json.RawMessage(`[1,2]`), `[1,2]`},
		{"null", json.RawMessage(`null`), `null`},
		{"a _meta that is not an object", json.RawMessage(`{"_meta":[1]}`), `{"_meta":[1]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.JSONEq(t, tc.want, encode(withTraceParams(ctx, tc.params)))
			if tc.params != nil {
				assert.JSONEq(t, encode(tc.params), encode(withTraceParams(t.Context(), tc.params)), "no span: unchanged")
			}
		})
	}
	out := encode(withTraceParams(ctx, json.RawMessage(`{"_meta":{"progressToken":9007199254740993}}`)))
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	var got struct {
		Meta struct {
			ProgressToken json.Number `json:"progressToken"`
		} `json:"_meta"`
	}
	require.NoError(t, dec.Decode(&got))
	assert.Equal(t, "9007199254740993", got.Meta.ProgressToken.String(), "every digit kept")
}

// TestRestartIsTraced: a server that crashes under a recorded call is
// restarted in a trace of its own, linked to the call's span, with the new
// connection's start as client spans beneath it (their trace context
// reaches the new process as every request's does); outside a recorded
// span a restart starts none.
func TestRestartIsTraced(t *testing.T) {
	t.Parallel()
	set := connectStdio(t, modeTools, Options{})
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ctx, tool := tp.Tracer("test").Start(t.Context(), "execute_tool exit")
	_, err := set.Call(ctx, "exit", nil)
	tool.End()
	var serverErr *ServerError
	require.ErrorAs(t, err, &serverErr)
	require.Equal(t, 1, set.Restarts())

	spans := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		spans[s.Name()] = s
	}
	restart, ok := spans["restart MCP server"]
	require.True(t, ok, "a restart span among %v", slices.Collect(maps.Keys(spans)))
	assert.False(t, restart.Parent().IsValid(), "a trace of its own")
	require.Len(t, restart.Links(), 1)
	call := spans["tools/call exit"]
	require.NotNil(t, call)
	assert.Equal(t, call.SpanContext().SpanID(), restart.Links()[0].SpanContext.SpanID(), "linked to the call that failed")
	var beneath []string
	for _, s := range rec.Ended() {
		if s.Parent().SpanID() == restart.SpanContext().SpanID() {
			assert.Equal(t, trace.SpanKindClient, s.SpanKind())
			beneath = append(beneath, s.Name())
		}
	}
	assert.ElementsMatch(t, []string{"server/discover", "tools/list"}, beneath, "the new connection's start")

	before := len(rec.Ended())
	_, err = set.Call(t.Context(), "exit", nil)
	require.ErrorAs(t, err, &serverErr)
	require.Equal(t, 2, set.Restarts())
	assert.Len(t, rec.Ended(), before, "no span outside a recorded one")
}
