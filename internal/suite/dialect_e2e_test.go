package suite_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/gosdkprobe"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

// geminiTypeListRefusal is Gemini's answer to a tool schema with a type
// list (n8n-io/n8n#15553, zed-industries/zed#53919), in the list its
// OpenAI-compatible endpoint wraps errors in (see
// testdata/providers/gemini-error-list.yaml).
const geminiTypeListRefusal = `[{"error": {"code": 400, "message": "Invalid JSON payload received. Unknown name \"type\" at 'tools[0].function_declarations[3].parameters.properties[0].value': Proto field is not repeating, cannot start list.", "status": "INVALID_ARGUMENT"}}]`

// geminiStub refuses, as Gemini does, a request whose tools hold a type
// list or additionalProperties; otherwise it calls forecasts for Lyon and
// Nice and answers with the result.
func geminiStub() *llmstub.Server {
	return llmstub.Start(func(req llmstub.Request) llmstub.Reply {
		if body := string(req.Body); strings.Contains(body, `"type":["`) || strings.Contains(body, `"additionalProperties"`) {
			return llmstub.Reply{Status: 400, Body: geminiTypeListRefusal}
		}
		if req.ForcedTool() != "" {
			return llmstub.Verdict("yes", "ok")
		}
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			return llmstub.Reply{Content: "Tomorrow: " + last.Content}
		}
		return llmstub.Reply{ToolCalls: []llmstub.Call{{Name: "forecasts", Arguments: `{"cities":["Lyon","Nice"]}`}}}
	}, llmstub.Options{})
}

const forecastsCase = `
- case:
    name: "forecasts"
    category: "Weather"
    input: "Tomorrow in Lyon and Nice?"
    expected: "Mild in Lyon and Nice."
    checks: {contains: ["mild in Lyon and Nice"]}
`

// A provider that refuses type lists (Gemini) is recognized by the model
// name, and the schemas of the official Go SDK's server are adapted before
// the first case: the case passes where, sent as the server wrote them,
// every request is refused; the run's first lines say so, and the summary
// holds the schema the model saw.
func TestSchemasAdaptedToTheProvider(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a server on the official Go SDK")
	}
	probe := gosdkprobe.Build(t, ".")
	stub := geminiStub()
	defer stub.Close()
	e := stubEnv(stub)
	e["EVAL_SERVER"], e["EVAL_MODEL"] = probe, "gemini-2.5-flash"

	r := runSuite(t, t.TempDir(), forecastsCase, e, "-v")
	require.NoError(t, r.err, r.output)
	assert.Equal(t, eval.Pass, r.records["forecasts"].Status, r.records["forecasts"].Reason)
	assert.Contains(t, r.output, "mcpeval: tool schemas adapted to what gemini accepts (chosen by the model name; EVAL_SCHEMA_DIALECT=none sends them as the servers wrote them), the judges' included: ")
	assert.Contains(t, r.output, "tools of the servers changed (additionalProperties, type list)")
	var sum eval.Summary
	readJSON(t, filepath.Join(r.out, eval.SummaryFile), &sum)
	var seen json.RawMessage
	for _, tool := range sum.Tools.Adapted {
		if tool.Name == "forecasts" {
			seen = tool.Parameters
		}
	}
	require.NotNil(t, seen, "the schema the model saw is recorded")
	assert.JSONEq(t, `{"type":"object","properties":{"cities":{"type":"array","nullable":true,"items":{"type":"string"},"description":"the cities to forecast"}},"required":["cities"]}`, string(seen))
	assert.Contains(t, sum.Tools.Dialect, "gemini")

	// Sent as the server wrote them, every request is refused.
	e["EVAL_SCHEMA_DIALECT"] = "none"
	r = runSuite(t, t.TempDir(), forecastsCase, e, "-v")
	require.Error(t, r.err)
	assert.Contains(t, r.output, "mcpeval: tool schemas sent as the servers wrote them (EVAL_SCHEMA_DIALECT=none), although gemini (chosen by the model name) refuses parts of JSON Schema")
	assert.Equal(t, eval.Error, r.records["forecasts"].Status)
	assert.Contains(t, r.records["forecasts"].Reason, "Proto field is not repeating, cannot start list")
}

// A schema that cannot be adapted (a definition that refers to itself, for
// a provider without references) stops the run before the first case,
// naming the tool.
func TestUnadaptableSchemaStopsTheRun(t *testing.T) {
	t.Parallel()
	s := server.NewMCPServer("trees", "1.0.0")
	recursive := json.RawMessage(`{"type":"object","properties":{"tree":{"$ref":"#/$defs/Node"}},"$defs":{"Node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}}}`)
	s.AddTool(mcp.NewToolWithRawSchema("plant", "Plants a tree.", recursive), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("planted"), nil
	})
	s.AddTool(mcp.NewTool("water", mcp.WithString("tree")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("watered"), nil
	})
	hs := httptest.NewServer(server.NewStreamableHTTPServer(s))
	defer hs.Close()
	stub := geminiStub()
	defer stub.Close()
	e := stubEnv(stub)
	e["EVAL_SERVER"], e["EVAL_MODEL"] = hs.URL+"/mcp", "google/gemini-2.5-pro"
	r := runSuite(t, t.TempDir(), forecastsCase, e)
	require.Error(t, r.err)
	assert.Contains(t, r.output, "the input schemas of 1 tool cannot be given to gemini (chosen by the model name), no case was run: plant: properties.tree: properties.children: items: #/$defs/Node refers to itself")
	assert.Contains(t, r.output, "EVAL_SCHEMA_DIALECT=none")
	assert.Zero(t, stub.Requests(), "no request was sent")
}
