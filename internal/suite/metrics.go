package suite

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/result"
	"github.com/mcpeval/mcpeval/scoring"
)

// metricsLog collects the metrics of the finished cases for metrics.json
// and metrics_summary.json.
type metricsLog struct {
	mu      sync.Mutex
	entries []scoring.Entry
}

func (l *metricsLog) add(e scoring.Entry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, e)
}

func (l *metricsLog) all() []scoring.Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.entries)
}

// scoreTool computes the metrics of a finished tool case. The expected tools
// are the case's must_call tools and those of its reference trajectory; the
// required facts are its contains checks.
func scoreTool(c evalcase.Case, rec result.Record) scoring.Metrics {
	tc := scoring.NewToolCase(rec)
	tc.ExpectedTools = slices.Clone(c.Tools.MustCall)
	for _, ref := range c.Reference {
		if !ref.ExpectError && !slices.Contains(tc.ExpectedTools, ref.Tool) {
			tc.ExpectedTools = append(tc.ExpectedTools, ref.Tool)
		}
	}
	tc.RequiredFacts = c.Checks.Contains
	tc.Budget = scoring.Budget{Seconds: c.Budget.Seconds, Tokens: c.Budget.Tokens, ToolCalls: c.Budget.ToolCalls}
	return scoring.ScoreTool(tc)
}

// metricsMap turns metrics into the record's generic JSON form.
func metricsMap(m scoring.Metrics) map[string]any {
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	var out map[string]any
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

// metricsOf reads metrics back from a (cached) record.
func metricsOf(rec result.Record) (scoring.Metrics, bool) {
	if rec.Metrics == nil {
		return scoring.Metrics{}, false
	}
	b, err := json.Marshal(rec.Metrics)
	if err != nil {
		return scoring.Metrics{}, false
	}
	var m scoring.Metrics
	return m, json.Unmarshal(b, &m) == nil
}

// WriteMetrics writes metrics.json (one entry per case) and
// metrics_summary.json into the output directory.
func (s *Suite) WriteMetrics() error {
	entries := s.metrics.all()
	if entries == nil {
		entries = []scoring.Entry{}
	}
	if err := writeJSONFile(s.Settings.Out, result.MetricsFile, entries); err != nil {
		return err
	}
	summary := struct {
		Summary scoring.Summary `json:"summary"`
	}{scoring.Summarize(entries)}
	return writeJSONFile(s.Settings.Out, result.MetricsSummaryFile, summary)
}
