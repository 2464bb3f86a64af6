package suite_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

// countOf calls the count tool of the server the question names, as the
// model is offered it, then answers from its result.
func countOf(req llmstub.Request) llmstub.Reply {
	server := strings.Fields(req.Question())[4] // "How many items does <server> hold?"
	var result string
	for _, m := range req.Messages {
		if m.Role == "tool" {
			result = m.Content
		}
	}
	if result == "" {
		for _, t := range req.Tools {
			if strings.HasPrefix(t.Function.Name, server) && strings.Contains(t.Function.Name, "items_count") {
				return llmstub.Reply{ToolCalls: []llmstub.Call{{Name: t.Function.Name, Arguments: "{}"}}}
			}
		}
		return llmstub.Reply{Content: "no such tool"}
	}
	var got struct {
		Server string
		Count  int
	}
	json.Unmarshal([]byte(result), &got)
	return llmstub.Reply{Content: fmt.Sprintf("%s holds %d items.", got.Server, got.Count)}
}

const toolNameCases = `
- case:
    name: "alpha"
    category: "Tool names"
    input: "How many items does alpha hold?"
    expected: "alpha holds 42 items"
    checks: {contains: ["alpha holds 42"]}
    tools: {must_call: [items.count]}
- case:
    name: "beta"
    category: "Tool names"
    input: "How many items does beta hold?"
    expected: "beta holds 42 items"
    checks: {contains: ["beta holds 42"]}
    tools: {must_call: [items.count]}
`

// MCP allows tool names that OpenAI-style APIs refuse (a dot), and two
// servers may offer the same name: both are offered, under names the
// provider accepts, each call reaches its own server, and the records name
// the server's own tool. A surface larger than the provider takes stops the
// run before its first request, naming the way out.
func TestToolNamesProvidersAccept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin, err := testServer("toolserver")
	require.NoError(t, err)
	servers := func(extra int) string {
		file := filepath.Join(dir, fmt.Sprintf("servers-%d.json", extra))
		config := fmt.Sprintf(`{"mcpServers": {
			"alpha": {"command": %q, "args": ["-dotted", "-label", "alpha", "-extra", "%d"]},
			"beta":  {"command": %q, "args": ["-dotted", "-label", "beta"]}}}`, bin, extra, bin)
		require.NoError(t, os.WriteFile(file, []byte(config), 0o644))
		return file
	}
	// The stub refuses, as OpenAI does, tool names that are not
	// ^[a-zA-Z0-9_-]{1,64}$, more than 128 tools, and missing or repeated
	// tool-call ids.
	stub := llmstub.Start(countOf, llmstub.Options{Strict: true})
	defer stub.Close()
	e := env{"OPENAI_BASE_URL": stub.BaseURL(), "EVAL_MODEL": "stub-model", "OPENAI_API_KEY": "sk-test-secret-key-123456",
		"EVAL_JUDGE_MODEL": "none"}

	t.Run("dotted and shared names", func(t *testing.T) {
		e["EVAL_SERVERS_FILE"] = servers(0)
		r := runSuite(t, t.TempDir(), toolNameCases, e)
		require.NoError(t, r.err, r.output)
		for _, name := range []string{"alpha", "beta"} {
			rec := r.records[name]
			require.Equal(t, eval.Pass, rec.Status, rec.Reason)
			require.Len(t, rec.ToolCalls, 1)
			assert.Equal(t, "items.count", rec.ToolCalls[0].Name, "the server's own name")
			assert.Equal(t, name, rec.ToolCalls[0].Server)
			assert.Contains(t, rec.ToolCalls[0].Result, `"server":"`+name+`"`, "the call reached its own server")
		}
	})

	t.Run("a tool named with its server", func(t *testing.T) {
		e["EVAL_SERVERS_FILE"] = servers(0)
		qualified := strings.ReplaceAll(toolNameCases, "must_call: [items.count]", "must_call: [alpha/items.count]")
		r := runSuite(t, t.TempDir(), qualified, e)
		require.Error(t, r.err, "beta's case called beta's tool, not alpha's")
		assert.Equal(t, eval.Pass, r.records["alpha"].Status, r.records["alpha"].Reason)
		assert.Equal(t, eval.Fail, r.records["beta"].Status)
		assert.Contains(t, r.records["beta"].Reason, "must_call alpha/items.count")
		assert.Contains(t, r.output, "tools: beta/items.count({})", "the call named with its server")

		unknown := strings.Replace(toolNameCases, "must_call: [items.count]", "must_call: [gamma/items.count]", 1)
		r = runSuite(t, t.TempDir(), unknown, e)
		require.Error(t, r.err)
		assert.Contains(t, r.output, `tools.must_call: no server offers the tool "gamma/items.count" (did you mean alpha/items.count?)`)
	})

	t.Run("more tools than the provider accepts", func(t *testing.T) {
		e["EVAL_SERVERS_FILE"] = servers(200)
		before := stub.Requests()
		r := runSuite(t, t.TempDir(), toolNameCases, e)
		require.Error(t, r.err)
		assert.Contains(t, r.output, "the servers offer 212 tools (alpha: 206, beta: 6), more than the 128 a provider accepts in one request")
		assert.Contains(t, r.output, "EVAL_TOOLS")
		assert.Contains(t, r.output, "EVAL_MAX_TOOLS")
		assert.Equal(t, before, stub.Requests(), "no request was sent")
		assert.Empty(t, r.records)

		e["EVAL_TOOLS"] = "*/items.count,*/lookup_item"
		r = runSuite(t, t.TempDir(), toolNameCases, e)
		delete(e, "EVAL_TOOLS")
		require.NoError(t, r.err, r.output)
		assert.Equal(t, eval.Pass, r.records["alpha"].Status, r.records["alpha"].Reason)
	})
}
