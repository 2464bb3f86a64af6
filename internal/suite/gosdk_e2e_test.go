package suite_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/gosdkprobe"
)

// probeCases call the three tools of the probe server on the official Go
// SDK: one whose structured content matches its output schema, one whose
// does not, one that declares a schema and returns text alone.
const probeCases = `
- case:
    name: "forecast"
    category: "Probe"
    input: "Tomorrow in Lyon?"
    expected: "Sunny, 21.5 degrees."
    checks: {contains: ["sunny"]}
    reference:
      - {tool: forecast, args: {city: Lyon}}
- case:
    name: "broken forecast"
    category: "Probe"
    input: "Tomorrow in Lyon?"
    expected: "Warm and sunny."
    checks: {contains: ["warm"]}
    reference:
      - {tool: broken_forecast, args: {city: Lyon}}
- case:
    name: "summary only"
    category: "Probe"
    input: "Tomorrow in Lyon?"
    expected: "Mild and sunny."
    checks: {contains: ["mild"]}
    reference:
      - {tool: summary_only, args: {city: Lyon}}
`

// A server on the official Go SDK whose structuredContent breaks its
// output schema: the model sees the content as a host shows it (the case
// passes on it), and the tool's health counts the violation with the path
// that failed, as do the closing lines.
func TestOutputSchemaViolationsOfAGoSDKServer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a server on the official Go SDK")
	}
	r := runSuite(t, t.TempDir(), probeCases, env{"EVAL_SERVER": gosdkprobe.Build(t, ".")}, "-v")
	require.NoError(t, r.err, r.output)
	for _, name := range []string{"forecast", "broken forecast", "summary only"} {
		assert.Equal(t, eval.Pass, r.records[name].Status, "%s: %s", name, r.records[name].Reason)
	}
	assert.Empty(t, r.records["forecast"].ToolCalls[0].OutputError)
	assert.Contains(t, r.records["broken forecast"].ToolCalls[0].OutputError, "at /temperature:")
	assert.Equal(t, "no structuredContent, though the tool declares an output schema", r.records["summary only"].ToolCalls[0].OutputError)

	var sum eval.Summary
	data, err := os.ReadFile(filepath.Join(r.out, eval.SummaryFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sum))
	srv := sum.Tools.Servers[0]
	assert.Equal(t, "gosdk-probe", srv.Name)
	assert.NotEmpty(t, srv.Protocol)
	stats := map[string]eval.ToolStats{}
	for _, st := range srv.Stats {
		stats[st.Name] = st
	}
	assert.Zero(t, stats["forecast"].OutputErrors)
	assert.Equal(t, 1, stats["broken_forecast"].OutputErrors)
	assert.Equal(t, 1, stats["broken_forecast"].Errors, "a violation is an error of the tool")
	require.Len(t, stats["broken_forecast"].OutputProblems, 1)
	assert.Contains(t, stats["broken_forecast"].OutputProblems[0], "structuredContent does not match the output schema: at /temperature:")
	assert.Equal(t, 1, stats["summary_only"].OutputErrors)
	assert.Regexp(t, `(?m)^mcpeval: results that break their tool's output schema: .*broken_forecast 1 of 1 results \(structuredContent does not match the output schema: at /temperature: `, r.output)
}
