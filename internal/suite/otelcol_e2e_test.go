package suite_test

// The suite's traces against a real OpenTelemetry Collector, built from
// testdata/otelcol (the OTLP receiver and contrib's file exporter): the
// bundled cases run with export on, over OTLP/gRPC and OTLP/HTTP, and the
// collector's file output is read back.

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

// collectorBinary returns the collector to test: MCPEVAL_OTELCOL names it,
// or is "build" to build it from testdata/otelcol (make test-otel);
// unset, the test is skipped.
func collectorBinary(t *testing.T) string {
	return binaryUnderTest(t, "MCPEVAL_OTELCOL", buildCollector, "the test against a real OpenTelemetry Collector runs under make test-otel, "+
		"which builds it from testdata/otelcol (minutes the first time); MCPEVAL_OTELCOL=/path/to/otelcol runs it with a collector "+
		"of your own (the otlp receiver and the file exporter)")
}

// buildCollector builds the collector of testdata/otelcol into the user's
// cache; the Go build cache makes a second build quick.
func buildCollector(t *testing.T) string {
	t.Helper()
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	module := filepath.Join(root, "testdata", "otelcol")
	download := exec.Command("go", "mod", "download")
	download.Dir = module
	if out, err := download.CombinedOutput(); err != nil {
		t.Fatalf("the Go module proxy did not give the collector's modules (is it reachable?): %v\n%s", err, out)
	}
	out, err := exec.Command("go", "list", "-C", module, "-m", "-f", "{{.Version}}", "go.opentelemetry.io/collector/otelcol").Output()
	require.NoError(t, err, "the version of the collector in testdata/otelcol/go.mod")
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	bin := filepath.Join(cache, "mcpeval-test", "otelcol-"+strings.TrimSpace(string(out)))
	start := time.Now()
	if out, err := exec.Command("go", "build", "-C", module, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building the collector: %v\n%s", err, out)
	}
	t.Logf("built the collector in %s: %s", time.Since(start).Round(time.Second), bin)
	return bin
}

// startCollector starts the collector with the OTLP receiver on free
// loopback ports and the file exporter writing to the returned path,
// once both ports listen.
func startCollector(t *testing.T, bin string) (grpcAddr, httpAddr, output string) {
	t.Helper()
	dir := t.TempDir()
	grpcAddr = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	httpAddr = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	output = filepath.Join(dir, "traces.jsonl")
	config := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      grpc: {endpoint: %q}
      http: {endpoint: %q}
exporters:
  file:
    path: %q
    flush_interval: 100ms
service:
  telemetry:
    metrics: {level: none}
    logs: {level: info}
  pipelines:
    traces: {receivers: [otlp], exporters: [file]}
`, grpcAddr, httpAddr, output)
	configPath := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(configPath, []byte(config), 0o644))
	cmd := exec.Command(bin, "--config", configPath)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	cmd.Stdout = cmd.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	// The collector says when it is ready; its log is kept for a failure.
	ready, exited := make(chan struct{}), make(chan struct{})
	var log strings.Builder
	var mu sync.Mutex
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if !said && strings.Contains(sc.Text(), "Everything is ready") {
				said = true
				close(ready)
			}
		}
	}()
	logText := func() string { mu.Lock(); defer mu.Unlock(); return log.String() }
	select {
	case <-ready:
	case <-exited:
		t.Fatalf("the collector ended before it was ready:\n%s", logText())
	case <-time.After(60 * time.Second):
		t.Fatalf("the collector did not start within a minute:\n%s", logText())
	}
	for _, addr := range []string{grpcAddr, httpAddr} {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err, "the collector listens on %s", addr)
		c.Close()
	}
	return grpcAddr, httpAddr, output
}

// waitForSpans reads the collector's output until want says it holds
// what is wanted, or a minute has passed.
func waitForSpans(t *testing.T, path string, want func([]otlpSpan) bool) []otlpSpan {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var spans []otlpSpan
		if _, err := os.Stat(path); err == nil {
			spans = readOTLP(t, path)
		}
		if want(spans) || time.Now().After(deadline) {
			return spans
		}
		time.Sleep(100 * time.Millisecond) // the file exporter flushes every 100 ms
	}
}

// TestOTelCollector runs geneCases, then every bundled case, exporting to
// a real collector, and reads the collector's file output: the spans'
// names, attributes, parent links and evaluation events, and the sample
// server's own spans in the same traces, under the suite's MCP client
// spans. It runs over OTLP/HTTP and over OTLP/gRPC.
func TestOTelCollector(t *testing.T) {
	bin := collectorBinary(t)
	for _, protocol := range []string{"http/protobuf", "grpc"} {
		t.Run(strings.ReplaceAll(protocol, "/", "_"), func(t *testing.T) {
			grpcAddr, httpAddr, output := startCollector(t, bin)
			endpoint := "http://" + httpAddr
			if protocol == "grpc" {
				endpoint = "http://" + grpcAddr
			}
			stub := llmstub.Start(llmstub.Replay(mustParse(t, geneCases)), llmstub.Options{})
			defer stub.Close()
			e := stubEnv(stub)
			e["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoint
			e["OTEL_EXPORTER_OTLP_PROTOCOL"] = protocol
			e["EVAL_TRACES"] = "auto" // the standard variables switch it on
			r := runSuite(t, t.TempDir(), geneCases, e)
			require.NoError(t, r.err, r.output)

			spans := waitForSpans(t, output, func(spans []otlpSpan) bool {
				return len(named(spans, "case NUTM2G symbol")) > 0 && len(named(spans, "case Recover from a wrong symbol")) > 0 &&
					len(named(spans, "tools/call get_gene_by_symbol")) >= 6 // three client spans, three server spans
			})
			checkCaseTraces(t, spans, r.records, false)
			checkServerSpans(t, spans)
			checkConnectTrace(t, spans)
		})
	}
}

// checkServerSpans checks that every MCP client span of the suite has the
// sample server's span beneath it, in the same trace.
func checkServerSpans(t *testing.T, spans []otlpSpan) {
	t.Helper()
	tree := newSpanTree(spans)
	clients := 0
	for _, s := range spans {
		if s.Service != "mcpeval" || !strings.HasPrefix(s.Name, "tools/call ") {
			continue
		}
		clients++
		below := tree.children[s.SpanID]
		require.Len(t, below, 1, "the server's span beneath the suite's %s", s.Name)
		srv := below[0]
		assert.Equal(t, s.Name, srv.Name)
		assert.Equal(t, s.TraceID, srv.TraceID)
		assert.Equal(t, 2, srv.Kind, "a server span")
		assert.NotEqual(t, "mcpeval", srv.Service, "the server's own service")
		assert.Equal(t, "tools/call", srv.Attrs["mcp.method.name"])
		assert.Equal(t, s.Attrs["error.type"], srv.Attrs["error.type"], "tool_error on both sides, or on neither")
	}
	assert.Positive(t, clients)
}

// TestOTelCollectorBundledCases runs every bundled case with the stub
// model playing their reference trajectories, exporting to a real
// collector: each case run's record names a trace the collector got,
// whose root span carries the case and its status and whose evaluation
// events carry its verdict.
func TestOTelCollectorBundledCases(t *testing.T) {
	bin := collectorBinary(t)
	_, httpAddr, output := startCollector(t, bin)
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	cases, err := evalcase.LoadPath(filepath.Join(root, "cases"))
	require.NoError(t, err)
	stub := llmstub.Start(llmstub.Replay(cases), llmstub.Options{})
	defer stub.Close()
	e := stubEnv(stub)
	e["EVAL_CASES"] = filepath.Join(root, "cases")
	e["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://" + httpAddr
	r := runSuite(t, t.TempDir(), "", e)
	require.NotEmpty(t, r.records, r.output)

	traced := map[string]string{}
	for name, rec := range r.records {
		require.NotEmpty(t, rec.TraceID, name)
		traced[rec.TraceID] = name
	}
	spans := waitForSpans(t, output, func(spans []otlpSpan) bool {
		seen := 0
		for _, s := range spans {
			if strings.HasPrefix(s.Name, "case ") && traced[s.TraceID] != "" {
				seen++
			}
		}
		return seen >= len(traced)
	})
	roots := map[string]otlpSpan{}
	for _, s := range spans {
		if strings.HasPrefix(s.Name, "case ") {
			roots[s.TraceID] = s
		}
	}
	for id, name := range traced {
		root, ok := roots[id]
		require.True(t, ok, "the collector got the trace of %s", name)
		rec := r.records[name]
		assert.Equal(t, "case "+name, root.Name)
		assert.Equal(t, name, root.Attrs["mcpeval.case.name"])
		assert.Equal(t, rec.Category, root.Attrs["mcpeval.case.category"])
		assert.Equal(t, string(rec.Status), root.Attrs["mcpeval.status"], name)
		if rec.Status == "skipped" || rec.Status == "not_run" {
			continue
		}
		verdict := ""
		for _, ev := range root.Events {
			if ev.Name == "gen_ai.evaluation.result" && ev.Attrs["gen_ai.evaluation.name"] == "verdict" {
				verdict, _ = ev.Attrs["gen_ai.evaluation.score.label"].(string)
			}
		}
		assert.Equal(t, string(rec.Status), verdict, name)
	}
	t.Logf("%d case runs, %d spans", len(traced), len(spans))
}
