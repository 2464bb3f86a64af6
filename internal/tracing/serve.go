package tracing

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// ServerVariables are the variables that tell a server process where to
// export its spans (see Serve): the OTLP exporter's, without
// OTEL_SERVICE_NAME, so that the server keeps a service name of its own.
var ServerVariables = []string{
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
	"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
	"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
	"OTEL_EXPORTER_OTLP_INSECURE", "OTEL_EXPORTER_OTLP_TRACES_INSECURE",
	"OTEL_EXPORTER_OTLP_CERTIFICATE", "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE",
	"OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION",
	"OTEL_TRACES_EXPORTER", "OTEL_SDK_DISABLED",
}

// Serve starts the export of an MCP server's spans in a server process
// (the bundled sample server): over OTLP when the standard variables
// configure it (an OTLP endpoint, see Exporters), through the global
// tracer provider that instrumentation reads (otel.GetTracerProvider),
// with the W3C trace context propagator. service is the service.name
// unless OTEL_SERVICE_NAME says otherwise. It returns the function that
// exports what is left and ends the export, waiting at most a few
// seconds; with nothing configured, both do nothing. Failures are told to
// warn (the server's stderr), each kind once.
func Serve(ctx context.Context, service string, warn io.Writer) (stop func()) {
	if !slices.Contains(Exporters(Auto, os.Getenv), OTLP) {
		return func() {}
	}
	say := func(msg string) { fmt.Fprintln(warn, "warning:", msg) }
	exp, err := otlpExporter(ctx, os.Getenv)
	if err != nil {
		say("traces: " + err.Error())
		return func() {}
	}
	r, err := serviceResource(ctx, service)
	if err != nil {
		say("traces: " + err.Error())
		return func() {}
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(200*time.Millisecond)), sdktrace.WithResource(r))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	setWarn(say)
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if err := tp.Shutdown(ctx); err != nil {
			say("traces: " + err.Error())
		}
	}
}
