package suite

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/scoring"
)

// benchRecord is a finished case run as a run of many cases writes them:
// two tool calls with their results, a conversation, a judge's usage and
// metrics.
func benchRecord(i int) eval.Record {
	result := fmt.Sprintf(`{"gene": "NUTM2G", "entrez_id": "441457", "case": %d, "summary": "NUT family member 2G"}`, i)
	return eval.Record{
		Name: fmt.Sprintf("bench case %d", i), Category: "Gene and Variant Utilities", File: "cases.yaml", Line: 1 + 9*i,
		Status: eval.Pass, Model: "bench-model", JudgeModel: "bench-model", Question: fmt.Sprintf("Bench question %d?", i),
		Expected: "441457", Response: "The Entrez id of NUTM2G is 441457.", Reason: "every check passed",
		ToolCalls: []eval.ToolCall{
			{ID: "c1", Name: "get_gene_by_symbol", Arguments: `{"gene_symbol":"NUTM2G"}`, Result: result, DurationMS: 1.5},
			{ID: "c2", Name: "get_omim_by_gene_symbol", Arguments: `{"gene_symbol":"NUTM2G"}`, Result: result, DurationMS: 2.5},
		},
		Conversation: []eval.Message{{Role: "user", Content: "Bench question?"}, {Role: "tool", Content: result}, {Role: "assistant", Content: "441457"}},
		Usage:        eval.Usage{PromptTokens: 4000, CompletionTokens: 20, TotalTokens: 4020, Requests: 3},
		JudgeUsage:   &eval.Usage{PromptTokens: 300, CompletionTokens: 10, TotalTokens: 310, Requests: 1},
		Seconds:      0.01,
		Metrics: &eval.Metrics{Kind: eval.KindTool, Correctness: eval.CorrectnessMetric{Score: 1},
			Overall: eval.OverallMetric{Score: 0.9, Weights: map[string]float64{"correctness": 0.5, "performance": 0.25, "coverage": 0.25},
				NotApplicable: []string{"quality"}}},
	}
}

// The records of a run are written through to results.jsonl; what the
// writer keeps of each for the summary and the metrics files stays small:
// a run of many cases does not hold its records in memory.
func TestRecordWriterKeepsLittlePerRecord(t *testing.T) {
	dir := t.TempDir()
	w, err := createRecords(dir, io.Discard, nil)
	require.NoError(t, err)
	defer w.Close()
	const n = 5000
	records := make([]eval.Record, n) // made beforehand: only what the writer keeps counts
	for i := range records {
		records[i] = benchRecord(i)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, rec := range records {
		w.Write(rec)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perRecord := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	t.Logf("the writer keeps %d bytes per record", perRecord)
	// An eval.Record reduced to its outcome and counters, with its two
	// calls, and its metrics entry, took some 1,700 bytes.
	assert.Less(t, perRecord, int64(700), "bytes kept per record")
	runtime.KeepAlive(records)

	saved, unsaved := w.counts()
	assert.Equal(t, n, saved)
	assert.Zero(t, unsaved)
	require.Len(t, w.records(), n)
}

// metrics.json holds the scored records' metrics as files.WriteJSON of
// them writes it, and metrics_summary.json their summary, whether the run
// scored none, one or many.
func TestRecordWriterMetricsAsWritten(t *testing.T) {
	for _, n := range []int{0, 1, 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dir := t.TempDir()
			w, err := createRecords(dir, io.Discard, nil)
			require.NoError(t, err)
			entries := []eval.MetricsEntry{}
			for i := range n {
				rec := benchRecord(i)
				rec.Metrics.Overall.Score = float64(i) / 3
				rec.Response = "<b>&</b>" // escaped as json.Encoder does
				w.Write(rec)
				w.Write(eval.Record{Name: fmt.Sprint("unscored ", i), Status: eval.Error}) // no metrics
				entries = append(entries, eval.MetricsEntry{Case: rec.Name, Category: rec.Category, Kind: rec.Kind, Model: rec.ArmName(), Metrics: *rec.Metrics})
			}
			summary, err := w.writeMetrics(dir)
			require.NoError(t, err)
			require.NoError(t, w.Close())
			want := filepath.Join(t.TempDir(), "want.json")
			require.NoError(t, files.WriteJSON(want, entries))
			wantBytes, err := os.ReadFile(want)
			require.NoError(t, err)
			got, err := os.ReadFile(filepath.Join(dir, eval.MetricsFile))
			require.NoError(t, err)
			assert.Equal(t, string(wantBytes), string(got))
			assert.Equal(t, scoring.Summarize(entries), summary)
		})
	}
}
