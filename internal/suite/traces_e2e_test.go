package suite_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/llmstub"
	"github.com/mcpeval/mcpeval/internal/tracing"
)

// TestTracesFile runs two cases with the file exporter and content
// capture on, and reads the run's traces.jsonl back: a trace per case run
// whose root span carries the case, chat spans for the agent's and the
// judge's requests, execute_tool spans with MCP client spans beneath, and
// the evaluation results as events; the record carries the trace ID, and
// no secret reaches the file.
func TestTracesFile(t *testing.T) {
	t.Parallel()
	stub := llmstub.Start(llmstub.Replay(mustParse(t, geneCases)), llmstub.Options{})
	defer stub.Close()
	e := stubEnv(stub)
	e["EVAL_TRACES"] = "file"
	e[tracing.ContentVariable] = "true"
	e["EVAL_TRACE_URL"] = "http://localhost:16686/trace/{trace_id}"
	r := runSuite(t, t.TempDir(), geneCases, e)
	require.NoError(t, r.err, r.output)
	var sum eval.Summary
	readJSON(t, filepath.Join(r.out, eval.SummaryFile), &sum)
	assert.Equal(t, "http://localhost:16686/trace/{trace_id}", sum.TraceURL, "the report links the traces with it")

	path := filepath.Join(r.out, tracing.FileName)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "sk-test-secret-key-123456", "the key is redacted")
	spans := readOTLP(t, path)
	checkCaseTraces(t, spans, r.records, true)
	checkConnectTrace(t, spans)
}

// checkConnectTrace checks the trace of the servers' start: a root span
// with the MCP client spans of the bundled server's discovery (or
// handshake) and tools/list beneath it.
func checkConnectTrace(t *testing.T, spans []otlpSpan) {
	t.Helper()
	roots := named(spans, "connect MCP servers")
	require.Len(t, roots, 1, "the servers' start is a trace of its own")
	root := roots[0]
	assert.Empty(t, root.ParentSpanID)
	assert.Equal(t, "mcpeval", root.Service)
	var methods []string
	for _, s := range newSpanTree(spans).children[root.SpanID] {
		if s.Service != "mcpeval" {
			continue
		}
		assert.Equal(t, 3, s.Kind, "an MCP client span: %s", s.Name)
		assert.Equal(t, root.TraceID, s.TraceID)
		methods = append(methods, s.Attrs["mcp.method.name"].(string))
	}
	assert.ElementsMatch(t, []string{"server/discover", "tools/list"}, methods, "the bundled server speaks the current revision")
}

// checkCaseTraces checks the traces of geneCases' two case runs.
func checkCaseTraces(t *testing.T, spans []otlpSpan, records map[string]eval.Record, content bool) {
	t.Helper()
	tree := newSpanTree(spans)
	for _, name := range []string{"NUTM2G symbol", "Recover from a wrong symbol"} {
		roots := named(spans, "case "+name)
		require.Len(t, roots, 1, name)
		root := roots[0]
		assert.Empty(t, root.ParentSpanID, "a case run is a trace of its own")
		assert.Equal(t, "mcpeval", root.Service)
		assert.Equal(t, name, root.Attrs["mcpeval.case.name"])
		assert.Equal(t, "Gene and Variant Utilities", root.Attrs["mcpeval.case.category"])
		assert.Equal(t, "0", root.Attrs["mcpeval.repeat"], "the first repeat")
		assert.Contains(t, root.Attrs, "mcpeval.arm")
		assert.Equal(t, "pass", root.Attrs["mcpeval.status"])
		assert.Equal(t, false, root.Attrs["mcpeval.cached"])
		rec := records[name]
		assert.Equal(t, root.TraceID, rec.TraceID, "the record carries its trace")

		below := tree.below(root)
		for _, s := range below {
			assert.Equal(t, root.TraceID, s.TraceID, s.Name)
		}
		chats := named(below, "chat stub-model")
		require.Equal(t, len(rec.ToolCalls)+2, len(chats), "a request per tool call, the one that answered, and the judge's")
		for _, c := range chats {
			assert.Equal(t, "chat", c.Attrs["gen_ai.operation.name"])
			assert.Equal(t, "stub-model", c.Attrs["gen_ai.request.model"])
			assert.Equal(t, "openai", c.Attrs["gen_ai.provider.name"])
			assert.Contains(t, c.Attrs, "gen_ai.usage.input_tokens")
			assert.Contains(t, c.Attrs, "gen_ai.usage.output_tokens")
			assert.Contains(t, c.Attrs, "gen_ai.response.finish_reasons")
			assert.Equal(t, 3, c.Kind, "a client span")
			if content {
				assert.Contains(t, c.Attrs, "gen_ai.input.messages")
				assert.Contains(t, c.Attrs, "gen_ai.output.messages")
			} else {
				assert.NotContains(t, c.Attrs, "gen_ai.input.messages")
			}
		}
		judges := named(below, "judge")
		require.Len(t, judges, 1)
		judged := tree.children[judges[0].SpanID]
		require.Len(t, judged, 1, "the judge's request beneath the judge span")
		assert.Equal(t, "judge", judged[0].Attrs["mcpeval.role"])

		tools := named(below, "execute_tool get_gene_by_symbol")
		require.Len(t, tools, len(rec.ToolCalls))
		callIDs := map[any]bool{}
		for i, tool := range tools {
			assert.Equal(t, root.SpanID, tool.ParentSpanID)
			assert.NotEmpty(t, tool.Attrs["gen_ai.tool.call.id"], "the id the model gave the call")
			callIDs[tool.Attrs["gen_ai.tool.call.id"]] = true
			assert.Equal(t, "execute_tool", tool.Attrs["gen_ai.operation.name"])
			assert.Equal(t, "get_gene_by_symbol", tool.Attrs["gen_ai.tool.name"])
			mcpSpans := tree.children[tool.SpanID]
			require.Len(t, mcpSpans, 1, "the MCP client span beneath the tool's")
			m := mcpSpans[0]
			assert.Equal(t, "tools/call get_gene_by_symbol", m.Name)
			assert.Equal(t, "tools/call", m.Attrs["mcp.method.name"])
			assert.NotEmpty(t, m.Attrs["mcp.protocol.version"])
			assert.Equal(t, "pipe", m.Attrs["network.transport"])
			assert.Equal(t, 3, m.Kind, "a client span")
			if rec.ToolCalls[i].IsError {
				assert.Equal(t, "tool_error", m.Attrs["error.type"])
				assert.Equal(t, "tool_error", tool.Attrs["error.type"])
			} else {
				assert.NotContains(t, m.Attrs, "error.type")
			}
		}
		assert.Len(t, callIDs, len(tools), "each call its own id")

		events := map[string]otlpEvent{}
		for _, ev := range root.Events {
			require.Equal(t, "gen_ai.evaluation.result", ev.Name)
			events[ev.Attrs["gen_ai.evaluation.name"].(string)] = ev
		}
		require.Contains(t, events, "verdict")
		assert.Equal(t, "pass", events["verdict"].Attrs["gen_ai.evaluation.score.label"])
		assert.Equal(t, 1.0, events["verdict"].Attrs["gen_ai.evaluation.score.value"])
		assert.Equal(t, "yes", events["judge"].Attrs["gen_ai.evaluation.score.label"])
		require.Contains(t, events, "check: "+rec.Checks[0].Check)
		assert.Equal(t, "passed", events["check: "+rec.Checks[0].Check].Attrs["gen_ai.evaluation.score.label"])
		for metric, score := range rec.Metrics.Scores() {
			require.Contains(t, events, metric)
			assert.InDelta(t, score, events[metric].Attrs["gen_ai.evaluation.score.value"], 1e-9, metric)
		}
		assert.InDelta(t, rec.Metrics.Overall.Score, events["overall"].Attrs["gen_ai.evaluation.score.value"], 1e-9)
	}
}

// TestTracesOff: without an exporter, no trace ID, no file, and the
// servers get no trace context.
func TestTracesOff(t *testing.T) {
	t.Parallel()
	stub := llmstub.Start(llmstub.Replay(mustParse(t, geneCases)), llmstub.Options{})
	defer stub.Close()
	r := runSuite(t, t.TempDir(), geneCases, stubEnv(stub))
	require.NoError(t, r.err, r.output)
	for name, rec := range r.records {
		assert.Empty(t, rec.TraceID, name)
	}
	_, err := os.Stat(filepath.Join(r.out, tracing.FileName))
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.False(t, strings.Contains(r.output, "trace"), "nothing said of traces: %s", r.output)
}

// TestTraceContextIsNoIdentity: the trace context a call carries to the
// server is no part of its identity. A run with export on replays the
// recorded results of another run with export on, every call matched, and
// a third is served from the cache, each record with a trace of its own.
func TestTraceContextIsNoIdentity(t *testing.T) {
	t.Parallel()
	stub := llmstub.Start(llmstub.Replay(mustParse(t, geneCases)), llmstub.Options{})
	defer stub.Close()
	dir := t.TempDir()
	e := stubEnv(stub)
	e["EVAL_TRACES"] = "file"
	first := runSuite(t, dir, geneCases, e)
	require.NoError(t, first.err, first.output)

	replayed := env{"EVAL_REPLAY_TOOLS": "latest", "EVAL_REPLAY_UNMATCHED": "error"}
	for k, v := range e {
		replayed[k] = v
	}
	second := runSuite(t, dir, "", replayed, "-force")
	require.NoError(t, second.err, second.output)
	for name, rec := range second.records {
		assert.Equal(t, eval.Pass, rec.Status, name)
		require.NotEmpty(t, rec.ToolCalls, name)
		for _, c := range rec.ToolCalls {
			assert.Equal(t, eval.ReplayRecorded, c.Replay, "%s: %s matched its recording", name, c.Name)
		}
		assert.NotEqual(t, first.records[name].TraceID, rec.TraceID, name)
	}

	third := runSuite(t, dir, "", e)
	require.NoError(t, third.err, third.output)
	spans := readOTLP(t, filepath.Join(third.out, tracing.FileName))
	for name, rec := range third.records {
		assert.True(t, rec.Cached, "%s is served from the cache", name)
		roots := named(spans, "case "+name)
		require.Len(t, roots, 1)
		assert.Equal(t, roots[0].TraceID, rec.TraceID)
		assert.Equal(t, true, roots[0].Attrs["mcpeval.cached"])
	}
}
