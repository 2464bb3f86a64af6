package htmlreport

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/rundata"
)

// syntheticRecords makes n records whose conversations hold about
// convBytes bytes each (two tool results of half that, also in tool_calls),
// in eight categories, with every status and metrics. Texts are built from a
// few shared blocks so that memory stays small while every byte is still
// encoded.
func syntheticRecords(n, convBytes int) []eval.Record {
	statuses := []eval.Status{eval.Pass, eval.Pass, eval.Pass, eval.Fail, eval.Error, eval.TokenLimit}
	var blocks []string
	for v := range 16 {
		var b strings.Builder
		for b.Len() < convBytes/2 {
			fmt.Fprintf(&b, `{"gene":"G%d","variant":"chr%d:%d A>G","note":"<b>x</b> & \u2028 text"},`, v, b.Len()%22+1, b.Len())
		}
		blocks = append(blocks, "["+strings.TrimSuffix(b.String(), ",")+"]")
	}
	recs := make([]eval.Record, n)
	for i := range recs {
		block := blocks[i%len(blocks)]
		calls := []eval.ToolCall{
			{ID: "c1", Name: "get_gene_by_symbol", Arguments: fmt.Sprintf(`{"gene_symbol":"G%d"}`, i), Result: block, DurationMS: 40},
			{ID: "c2", Name: "get_clinvar_by_gene_symbol", Arguments: `{"gene_symbol":"BRCA1"}`, Result: block, IsError: i%7 == 0},
		}
		question := fmt.Sprintf("Question %d: which variants of gene G%d are pathogenic?", i, i)
		response := fmt.Sprintf("Case %d answer mentions variant chr1:%d.", i, i)
		recs[i] = eval.Record{
			Name: fmt.Sprintf("case %05d", i), Category: fmt.Sprintf("Category %d", i%8),
			Test:   fmt.Sprintf("TestEval_Category_%d/case_%05d", i%8, i),
			Status: statuses[i%len(statuses)], Cached: i%5 == 0,
			Question: question, Expected: "variant chr1", Response: response,
			Verdict: "yes", Reason: "The answer names the expected variant.",
			ToolCalls: calls,
			Conversation: []eval.Message{
				{Role: "system", Content: "You are a genetics research assistant."},
				{Role: "user", Content: question},
				{Role: "assistant", ToolCalls: []eval.MessageToolCall{{ID: "c1", Type: "function", Function: eval.FunctionCall{Name: calls[0].Name, Arguments: calls[0].Arguments}}}},
				{Role: "tool", Name: calls[0].Name, ToolCallID: "c1", Content: block},
				{Role: "assistant", ToolCalls: []eval.MessageToolCall{{ID: "c2", Type: "function", Function: eval.FunctionCall{Name: calls[1].Name, Arguments: calls[1].Arguments}}}},
				{Role: "tool", Name: calls[1].Name, ToolCallID: "c2", Content: block},
				{Role: "assistant", Content: response},
			},
			Usage:   eval.Usage{PromptTokens: 4000 + i%100, CompletionTokens: 300, TotalTokens: 4300 + i%100, Requests: 3},
			Seconds: float64(i%50) / 3,
			Model:   "model-x", JudgeModel: "judge-y",
			StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
			Metrics: &eval.Metrics{Kind: eval.KindTool, Correctness: eval.CorrectnessMetric{Score: float64(i%3) / 2},
				Overall: eval.OverallMetric{Score: float64(i%100) / 100}},
		}
	}
	return recs
}

// syntheticData joins the records as Load would, without test events.
func syntheticData(n, convBytes int) *rundata.Data {
	return rundata.FromRecords(syntheticRecords(n, convBytes))
}

func BenchmarkWrite10000(b *testing.B) {
	d := syntheticData(10000, 20<<10)
	b.ResetTimer()
	for b.Loop() {
		cw := &countingWriter{}
		if err := Write(cw, d); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(cw.n)
	}
}

type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// TestWriteScalesLinearly writes reports of 1,000 and 10,000 cases: ten
// times the cases must cost far less than a hundred times the work (which a
// quadratic step would). The work is the process's CPU time, which other
// processes on the machine do not inflate; how long a report takes is
// measured by cmd/evalbench.
func TestWriteScalesLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 10,000-case report")
	}
	const convBytes = 20 << 10
	timeWrite := func(d *rundata.Data) (time.Duration, int64) {
		best := time.Duration(1<<63 - 1)
		var size int64
		for range 2 {
			cw := &countingWriter{}
			start := cpuTime(t)
			require.NoError(t, Write(cw, d))
			best = min(best, cpuTime(t)-start)
			size = cw.n
		}
		return best, size
	}
	small, _ := timeWrite(syntheticData(1000, convBytes))
	big, size := timeWrite(syntheticData(10000, convBytes))
	t.Logf("1,000 cases: %v CPU; 10,000 cases: %v CPU for %d MB", small, big, size>>20)
	require.Greater(t, size, int64(10000*1024), "every case's details are in the report (compressed: see TestWriteCompressesLargeDetails)")
	require.Less(t, big, 30*small, "10x the cases took more than 30x the CPU time: something is worse than linear")
}

var _ io.Writer = (*countingWriter)(nil)
