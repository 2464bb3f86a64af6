package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/mcpeval/mcpeval/internal/llmstub"
)

// traces measures what exporting traces costs a run: 200 cases as in
// overhead, with export off and with export over OTLP/HTTP to a receiver
// that decodes every request (three runs each, alternated, their medians
// compared), and with the collector down, which must cost the run a
// warning and nothing else.
func (b *bench) traces() ([]row, error) {
	const n, conc, latency, runs = 200, 16, 100 * time.Millisecond, 3
	path, cases, err := b.writeCases("traces", n)
	if err != nil {
		return nil, err
	}
	stub := startStub(cases, llmstub.Options{Latency: latency})
	defer stub.Close()
	if _, err := b.testBinary(); err != nil {
		return nil, err
	}
	var spans atomic.Int64
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if proto.Unmarshal(body, &req) != nil {
			http.Error(w, "not OTLP", http.StatusBadRequest)
			return
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				spans.Add(int64(len(ss.Spans)))
			}
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer receiver.Close()

	var off, on []time.Duration
	for i := range runs {
		r, err := b.runSuiteEnv(path, filepath.Join(b.work, fmt.Sprintf("traces-off-%d", i)), stub, conc, []string{"EVAL_TRACES=off"})
		if err != nil {
			return nil, err
		}
		if r.summary.Passed != n {
			return nil, fmt.Errorf("export off: %d of %d cases passed", r.summary.Passed, n)
		}
		off = append(off, r.wall)
		r, err = b.runSuiteEnv(path, filepath.Join(b.work, fmt.Sprintf("traces-on-%d", i)), stub, conc,
			[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + receiver.URL})
		if err != nil {
			return nil, err
		}
		if r.summary.Passed != n {
			return nil, fmt.Errorf("export on: %d of %d cases passed", r.summary.Passed, n)
		}
		on = append(on, r.wall)
	}
	if spans.Load() < int64(runs*n) {
		return nil, fmt.Errorf("the receiver got %d spans from %d runs of %d cases", spans.Load(), runs, n)
	}
	medOff, medOn := median(off), median(on)
	growth := medOn.Seconds()/medOff.Seconds() - 1

	// A collector that is down: an endpoint nobody listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	down := "http://" + l.Addr().String()
	l.Close()
	out := filepath.Join(b.work, "traces-down")
	r, err := b.runSuiteEnv(path, out, stub, conc, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + down})
	if err != nil {
		return nil, err
	}
	warnings := strings.Count(r.output, "trace export failed")
	downGrowth := r.wall.Seconds()/medOff.Seconds() - 1
	return []row{{
		name:     fmt.Sprintf("traces: %d cases exported over OTLP/HTTP vs not (median of %d runs each, %d spans received)", n, runs, spans.Load()),
		target:   "<= +2% wall",
		measured: fmt.Sprintf("%+.1f%% (%.2fs vs %.2fs)", 100*growth, medOn.Seconds(), medOff.Seconds()),
		ok:       growth <= 0.02,
	}, {
		name:     fmt.Sprintf("traces: %d cases with the collector down", n),
		target:   "every case passes, one warning",
		measured: fmt.Sprintf("%d of %d passed, %d warning(s), %+.1f%% wall", r.summary.Passed, n, warnings, 100*downGrowth),
		ok:       r.summary.Passed == n && warnings == 1,
	}}, nil
}

// median is the middle of durations (the upper one of an even count).
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
