// Package tracing exports a run's traces with the OpenTelemetry SDK: over
// OTLP (HTTP or gRPC, configured by the standard OTEL_EXPORTER_OTLP_*
// variables, which the SDK's exporters read themselves) and to a file of
// OTLP JSON lines in the run's directory. It is off unless an exporter is
// asked for; a collector that cannot be reached costs a warning, never a
// case.
package tracing

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// The exporters Config.Exporters may name.
const (
	OTLP = "otlp" // OTLP over HTTP or gRPC, as OTEL_EXPORTER_OTLP_PROTOCOL says
	File = "file" // OTLP JSON lines in the run's directory (FileName)
)

// The values of the setting that chooses the exporters, besides a list
// of them.
const (
	Auto = "auto" // OTLP when an OTLP endpoint is configured, else off
	Off  = "off"
)

// FileName is the file the file exporter writes in the run's directory.
const FileName = "traces.jsonl"

// ContentVariable is the GenAI conventions' switch for capturing prompts,
// answers and tool arguments and results in the spans.
const ContentVariable = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

// ScopeName is the instrumentation scope of the suite's spans.
const ScopeName = "github.com/mcpeval/mcpeval"

// ParseExporters reads the setting that chooses the exporters: auto, off,
// or a comma-separated list of otlp and file.
func ParseExporters(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || s == Auto || s == Off {
		return cmp.Or(s, Auto), nil
	}
	var list []string
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part != OTLP && part != File {
			return "", fmt.Errorf("%q is not an exporter: want auto, off, or otlp and file separated by a comma", part)
		}
		if !slices.Contains(list, part) {
			list = append(list, part)
		}
	}
	return strings.Join(list, ","), nil
}

// Exporters returns the exporters the setting (see ParseExporters) asks
// for: under auto, OTLP when getenv gives an OTLP endpoint
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or
// OTEL_TRACES_EXPORTER=otlp, none otherwise. OTEL_SDK_DISABLED=true and
// OTEL_TRACES_EXPORTER=none turn every exporter off.
func Exporters(setting string, getenv func(string) string) []string {
	if disabled, _ := strconv.ParseBool(getenv("OTEL_SDK_DISABLED")); disabled || getenv("OTEL_TRACES_EXPORTER") == "none" {
		return nil
	}
	switch setting {
	case Off:
		return nil
	case Auto, "":
		if getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" ||
			getenv("OTEL_TRACES_EXPORTER") == OTLP {
			return []string{OTLP}
		}
		return nil
	}
	return strings.Split(setting, ",")
}

// Config configures the export of a run's traces.
type Config struct {
	// Exporters are the exporters to use (OTLP, File); none: off.
	Exporters []string
	// Dir is the run's directory, where File writes FileName; "" when
	// it is not made yet (see Exporter.SetDir).
	Dir string
	// Content captures prompts, answers and tool arguments and results
	// in the spans (see ContentVariable).
	Content bool
	// Warn is told of an export that failed (a collector that is down),
	// once per kind of failure; nil drops them.
	Warn func(msg string)
	// Getenv reads OTEL_EXPORTER_OTLP_PROTOCOL; nil is os.Getenv. The
	// SDK reads the other variables from the environment itself.
	Getenv func(string) string
}

// Exporter is the export of one run's traces. The zero of *Exporter (nil)
// is off: its Tracer starts spans that are never recorded.
type Exporter struct {
	provider *sdktrace.TracerProvider
	tracer   trace.Tracer
	content  bool
	file     *fileClient // the file exporter's, nil without one
}

var noopTracer = noop.NewTracerProvider().Tracer(ScopeName)

// Start starts the export cfg asks for; with no exporter it returns nil,
// which is off. An OTLP protocol the SDK does not speak is an error.
func Start(ctx context.Context, cfg Config) (*Exporter, error) {
	if len(cfg.Exporters) == 0 {
		return nil, nil
	}
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	e := &Exporter{content: cfg.Content}
	var opts []sdktrace.TracerProviderOption
	for _, name := range cfg.Exporters {
		var exp sdktrace.SpanExporter
		var err error
		switch name {
		case OTLP:
			exp, err = otlpExporter(ctx, getenv)
		case File:
			e.file = &fileClient{}
			exp, err = otlptrace.New(ctx, e.file)
			if err == nil && cfg.Dir != "" {
				err = e.SetDir(cfg.Dir)
			}
		default:
			err = fmt.Errorf("%q is not an exporter (want %s or %s)", name, OTLP, File)
		}
		if err != nil {
			return nil, fmt.Errorf("traces: %w", err)
		}
		opts = append(opts, sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(time.Second)))
	}
	res, err := serviceResource(ctx, "mcpeval")
	if err != nil {
		return nil, fmt.Errorf("traces: the resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES): %w", err)
	}
	opts = append(opts, sdktrace.WithResource(res))
	e.provider = sdktrace.NewTracerProvider(opts...)
	e.tracer = e.provider.Tracer(ScopeName)
	setWarn(cfg.Warn)
	return e, nil
}

// otlpExporter is the OTLP exporter of the protocol that
// OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or OTEL_EXPORTER_OTLP_PROTOCOL names
// (default http/protobuf); its endpoint, headers, timeout, compression and
// certificates come from the OTEL_EXPORTER_OTLP_* variables, which the
// SDK reads.
func otlpExporter(ctx context.Context, getenv func(string) string) (sdktrace.SpanExporter, error) {
	protocol := cmp.Or(getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"), getenv("OTEL_EXPORTER_OTLP_PROTOCOL"))
	// A collector that is down is retried briefly: the run's end waits
	// for nothing longer (see Shutdown).
	switch protocol {
	case "", "http/protobuf":
		return otlptracehttp.New(ctx, otlptracehttp.WithRetry(otlptracehttp.RetryConfig{
			Enabled: true, InitialInterval: 500 * time.Millisecond, MaxInterval: 2 * time.Second, MaxElapsedTime: 5 * time.Second}))
	case "grpc":
		return otlptracegrpc.New(ctx, otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{
			Enabled: true, InitialInterval: 500 * time.Millisecond, MaxInterval: 2 * time.Second, MaxElapsedTime: 5 * time.Second}))
	}
	return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL %q is not one the Go SDK exports over: want grpc or http/protobuf", protocol)
}

// serviceResource describes the process: service.name service unless
// OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise.
func serviceResource(ctx context.Context, service string) (*resource.Resource, error) {
	env, err := resource.New(ctx, resource.WithFromEnv())
	if err != nil {
		return nil, err
	}
	return resource.Merge(resource.NewSchemaless(semconv.ServiceName(service), semconv.TelemetrySDKLanguageGo), env)
}

// Enabled reports whether spans are exported.
func (e *Exporter) Enabled() bool { return e != nil }

// Content reports whether prompts, answers and tool arguments and results
// go into the spans.
func (e *Exporter) Content() bool { return e != nil && e.content }

// SetDir names the run's directory, where the file exporter writes
// FileName, with the spans exported before; without a file exporter it
// does nothing.
func (e *Exporter) SetDir(dir string) error {
	if e == nil || e.file == nil {
		return nil
	}
	return e.file.open(filepath.Join(dir, FileName))
}

// Path is the file the file exporter writes, "" when there is none or
// its directory is not named yet.
func (e *Exporter) Path() string {
	if e == nil || e.file == nil {
		return ""
	}
	e.file.mu.Lock()
	defer e.file.mu.Unlock()
	return e.file.path
}

// Tracer starts the suite's spans; off, spans that are never recorded.
func (e *Exporter) Tracer() trace.Tracer {
	if e == nil {
		return noopTracer
	}
	return e.tracer
}

// Shutdown exports the spans not exported yet and ends the export,
// waiting at most timeout: a collector that is down delays the run's end
// by no more.
func (e *Exporter) Shutdown(timeout time.Duration) error {
	if e == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := e.provider.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("traces: the export did not finish within %s: the spans not sent yet are lost", timeout)
	}
	if err != nil {
		return fmt.Errorf("traces: %w", err)
	}
	return nil
}

// warnings holds the function the SDK's export failures are told to; the
// SDK's error handler is the process's, set once.
var (
	warnMu     sync.Mutex
	warnTo     func(string)
	warned     = map[string]bool{}
	handlerSet sync.Once
)

func setWarn(warn func(string)) {
	warnMu.Lock()
	warnTo, warned = warn, map[string]bool{}
	warnMu.Unlock()
	handlerSet.Do(func() { otel.SetErrorHandler(otel.ErrorHandlerFunc(handle)) })
}

// handle tells of an export failure once per kind (its text up to the
// first colon, so that the same failure to another batch is not said
// again).
func handle(err error) {
	warnMu.Lock()
	defer warnMu.Unlock()
	if warnTo == nil {
		return
	}
	msg := err.Error()
	kind, _, _ := strings.Cut(msg, ":")
	if warned[kind] {
		return
	}
	warned[kind] = true
	warnTo("trace export failed (the run goes on; the spans of this batch are lost): " + msg)
}
