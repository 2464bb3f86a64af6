package tracing_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/mcpeval/mcpeval/internal/tracing"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestExporters(t *testing.T) {
	for _, tc := range []struct {
		name, setting string
		env           map[string]string
		want          []string
	}{
		{"auto without an endpoint is off", "auto", nil, nil},
		{"auto with an endpoint", "auto", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318"}, []string{"otlp"}},
		{"auto with a traces endpoint", "auto", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, []string{"otlp"}},
		{"auto with OTEL_TRACES_EXPORTER", "auto", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, []string{"otlp"}},
		{"off wins over an endpoint", "off", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318"}, nil},
		{"file", "file", nil, []string{"file"}},
		{"both", "otlp,file", nil, []string{"otlp", "file"}},
		{"the SDK disabled", "otlp,file", map[string]string{"OTEL_SDK_DISABLED": "true"}, nil},
		{"traces exporter none", "otlp", map[string]string{"OTEL_TRACES_EXPORTER": "none"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setting, err := tracing.ParseExporters(tc.setting)
			require.NoError(t, err)
			assert.Equal(t, tc.want, tracing.Exporters(setting, env(tc.env)))
		})
	}
}

func TestParseExportersRefuses(t *testing.T) {
	for _, bad := range []string{"jaeger", "otlp,zipkin", "on"} {
		_, err := tracing.ParseExporters(bad)
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "want auto, off, or otlp and file")
	}
	got, err := tracing.ParseExporters(" FILE , otlp,file")
	require.NoError(t, err)
	assert.Equal(t, "file,otlp", got)
}

func TestOffIsNil(t *testing.T) {
	e, err := tracing.Start(t.Context(), tracing.Config{})
	require.NoError(t, err)
	assert.False(t, e.Enabled())
	_, span := e.Tracer().Start(t.Context(), "case")
	assert.False(t, span.SpanContext().IsValid(), "off, a span has no context to pass on")
	span.End()
	require.NoError(t, e.Shutdown(time.Second))
}

var hexID = regexp.MustCompile(`^[0-9a-f]+$`)

// TestFileExporter reads the file back: one OTLP JSON request per line,
// ids in hex, the parent link, attributes and events as the spans had them.
func TestFileExporter(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OTEL_SERVICE_NAME", "svc")
	e, err := tracing.Start(t.Context(), tracing.Config{Exporters: []string{tracing.File}, Dir: dir})
	require.NoError(t, err)
	ctx, root := e.Tracer().Start(t.Context(), "case X")
	root.SetAttributes(attribute.String("mcpeval.case.name", "X"))
	_, child := e.Tracer().Start(ctx, "chat m")
	child.End()
	root.AddEvent("gen_ai.evaluation.result", trace.WithAttributes(attribute.String("gen_ai.evaluation.name", "verdict")))
	root.End()
	require.NoError(t, e.Shutdown(5*time.Second))
	assert.Equal(t, filepath.Join(dir, tracing.FileName), e.Path())

	spans := readSpans(t, e.Path())
	require.Len(t, spans, 2)
	byName := map[string]map[string]any{}
	for _, s := range spans {
		byName[s["name"].(string)] = s
		assert.Regexp(t, hexID, s["traceId"])
		assert.Len(t, s["traceId"], 32)
		assert.Len(t, s["spanId"], 16)
	}
	assert.Equal(t, byName["case X"]["spanId"], byName["chat m"]["parentSpanId"])
	assert.Equal(t, byName["case X"]["traceId"], byName["chat m"]["traceId"])
	assert.Equal(t, root.SpanContext().TraceID().String(), byName["case X"]["traceId"])
	events := byName["case X"]["events"].([]any)
	require.Len(t, events, 1)
	assert.Equal(t, "gen_ai.evaluation.result", events[0].(map[string]any)["name"])
}

// readSpans reads an OTLP JSON lines file's spans, each with its
// resource's service.name under "service".
func readSpans(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var spans []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var req struct {
			ResourceSpans []struct {
				Resource struct {
					Attributes []struct {
						Key   string
						Value struct{ StringValue string }
					}
				}
				ScopeSpans []struct{ Spans []map[string]any }
			}
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &req), "an OTLP JSON line")
		for _, rs := range req.ResourceSpans {
			service := ""
			for _, a := range rs.Resource.Attributes {
				if a.Key == "service.name" {
					service = a.Value.StringValue
				}
			}
			assert.Equal(t, "svc", service)
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
	}
	require.NoError(t, sc.Err())
	return spans
}

// TestOTLPHTTP exports to an OTLP/HTTP receiver that the standard
// variables name, with their headers.
func TestOTLPHTTP(t *testing.T) {
	var mu sync.Mutex
	var got []*coltracepb.ExportTraceServiceRequest
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		got, auth = append(got, &req), r.Header.Get("Authorization")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer xyz")
	t.Setenv("OTEL_SERVICE_NAME", "svc")
	e, err := tracing.Start(t.Context(), tracing.Config{Exporters: tracing.Exporters(tracing.Auto, os.Getenv)})
	require.NoError(t, err)
	_, span := e.Tracer().Start(t.Context(), "case Y")
	span.End()
	require.NoError(t, e.Shutdown(5*time.Second))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 1)
	assert.Equal(t, "Bearer xyz", auth)
	assert.Equal(t, "case Y", got[0].ResourceSpans[0].ScopeSpans[0].Spans[0].Name)
}

// TestCollectorDown: an endpoint nobody listens on costs a warning, and
// the end of the run waits no longer than the bound.
func TestCollectorDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+addr)
	warnings := make(chan string, 10)
	e, err := tracing.Start(t.Context(), tracing.Config{Exporters: []string{tracing.OTLP}, Warn: func(m string) { warnings <- m }})
	require.NoError(t, err)
	for range 3 {
		_, span := e.Tracer().Start(context.Background(), "case Z")
		span.End()
	}
	start := time.Now()
	err = e.Shutdown(2 * time.Second)
	assert.Less(t, time.Since(start), 4*time.Second)
	t.Logf("shutdown: %v", err)
	// The failed export is said once, as a warning, whether the batch
	// went before the shutdown or with it.
	require.Len(t, warnings, 1)
	assert.Contains(t, <-warnings, "trace export failed")
}
