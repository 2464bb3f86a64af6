package suite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/scoring"
)

// fullRecord returns a record with every field a cached run sets, and many
// it keeps, filled in.
func fullRecord() eval.Record {
	coverage := 0.75
	return eval.Record{
		Name: "stored name", Category: "Stored", Test: "TestStored/stored_name", File: "/old/cases.yaml", Line: 3,
		Kind: eval.KindTool, Status: eval.Pass, Question: "What is <TP53>?", Expected: "7157 & more",
		Response: "It is 7157.", Verdict: "yes", Reason: "matches", JudgePrompt: "grade \"this\"", JudgeReply: "yes",
		Judges:       []eval.JudgeVerdict{{Model: "j", Verdict: "yes", Reason: "ok"}},
		Checks:       []eval.CheckResult{{Check: `contains "7157"`, Passed: true}},
		ToolCalls:    []eval.ToolCall{{ID: "1", Name: "get", Arguments: `{"a":1}`, Result: "7157", DurationMS: 2.5, ResultTokens: 3}},
		Conversation: []eval.Message{{Role: "user", Content: "What is <TP53>?"}, {Role: "assistant", Content: "It is 7157."}},
		Usage:        eval.Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12, Requests: 2},
		JudgeUsage:   &eval.Usage{TotalTokens: 4, Requests: 1},
		Seconds:      1.25, Model: "m", Arm: "arm-a", JudgeModel: "j", StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Metrics: &eval.Metrics{Kind: eval.KindTool}, Grading: 3, Coverage: &coverage,
		Claims: []eval.ClaimResult{{Claim: "c", Verdict: eval.ClaimFulfilled}},
	}
}

// The line of a cached record written from its stored JSON is the line
// of the record itself: this run's identity fields, the stored record's
// others.
func TestCachedLineIsTheRecordsLine(t *testing.T) {
	stored := fullRecord()
	storedJSON, err := json.Marshal(stored)
	require.NoError(t, err)
	tests := map[string]func(*eval.Record){
		"as stored": func(*eval.Record) {},
		"this run's identity": func(r *eval.Record) {
			r.Name, r.Category, r.Test, r.File, r.Line = "new \"name\"", "New", "TestNew/new", "/new/cases.yaml", 9
			r.Repeat, r.Cached, r.TraceID = 2, true, "4bf92f3577b34da6a3ce929d0e0e4736"
		},
	}
	for name, change := range tests {
		t.Run(name, func(t *testing.T) {
			rec := stored
			change(&rec)
			var want bytes.Buffer
			require.NoError(t, json.NewEncoder(&want).Encode(rec))
			var got bytes.Buffer
			require.True(t, cachedLine(&got, rec, storedJSON))
			assert.Equal(t, want.String(), got.String())
		})
	}
	var buf bytes.Buffer
	assert.False(t, cachedLine(&buf, stored, []byte(`{"name":"x"}`)), "no question field")
}

// The fields of a record before its question are those cachedLine takes
// from this run's record: a field added there must be added to it too.
func TestCachedLineTakesEveryFieldBeforeTheQuestion(t *testing.T) {
	var before []string
	record := reflect.TypeFor[eval.Record]()
	for i := range record.NumField() {
		name, _, _ := strings.Cut(record.Field(i).Tag.Get("json"), ",")
		if name == "question" {
			break
		}
		before = append(before, name)
	}
	assert.Equal(t, []string{"name", "category", "test", "file", "line", "kind", "status", "cached", "regraded", "reference", "repeat", "trace_id"}, before)
}

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
