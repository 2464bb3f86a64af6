package suite

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/settings"
)

func server(name string, tools, exercised int, never ...string) eval.ServerTools {
	return eval.ServerTools{Server: name, Tools: tools, Exercised: exercised, Coverage: 100 * float64(exercised) / float64(tools), NeverCalled: never}
}

func TestToolGates(t *testing.T) {
	sum := eval.Summary{Tools: &eval.ToolSummary{Servers: []eval.ServerTools{
		server("genes-server", 4, 3, "get_unused"),
		server("http://127.0.0.1:9/mcp", 2, 2),
	}}}
	for _, tc := range []struct {
		min  float64
		want []string
	}{
		{0, nil},
		{50, nil},
		{75, nil},
		{75.1, []string{"tool coverage of genes-server is below the minimum 75.1%: 3 of 4 exercised (75.0%); never called: get_unused"}},
		{100, []string{"tool coverage of genes-server is below the minimum 100%: 3 of 4 exercised (75.0%); never called: get_unused"}},
	} {
		st := settings.Settings{MinToolCoverage: tc.min}
		assert.Equal(t, tc.want, toolGates(sum, st), "minimum %g", tc.min)
		assert.Equal(t, tc.want, Gates(sum, st), "Gates holds the tool gate")
	}
	assert.Nil(t, toolGates(eval.Summary{}, settings.Settings{MinToolCoverage: 100}), "no tool summary, no gate")
	hostile := eval.Summary{Tools: &eval.ToolSummary{Servers: []eval.ServerTools{server("s", 2, 0, "ok_name", "bad\x1b[2Jname")}}}
	assert.Equal(t, []string{`tool coverage of s is below the minimum 10%: 0 of 2 exercised (0.0%); never called: ok_name, "bad\x1b[2Jname"`},
		toolGates(hostile, settings.Settings{MinToolCoverage: 10}))
}

func TestFormatTools(t *testing.T) {
	var many []string
	for i := range maxListed + 5 {
		many = append(many, fmt.Sprintf("t%02d", i))
	}
	var b strings.Builder
	formatTools(&b, &eval.ToolSummary{
		TokenLimit: 1000, Encoding: "o200k_base", DefinitionTokens: 1320,
		Servers: []eval.ServerTools{
			{Server: "big-server", Tools: maxListed + 6, Exercised: 1, Coverage: 100.0 / float64(maxListed+6), NeverCalled: many, DefinitionTokens: 1200,
				Stats: []eval.ToolStats{{Name: "dump", Calls: 3, NotRun: 1, OverLimit: 1, ResultTokensMax: 4000, DefinitionTokens: 1200}}},
			{Server: "small", Tools: 2, Exercised: 2, Coverage: 100, DefinitionTokens: 120, Parameters: 3, ParametersPassed: 2, ParameterCoverage: 200.0 / 3,
				Stats: []eval.ToolStats{
					{Name: "a", Calls: 4, Errors: 3, ErrorRate: 0.75, DefinitionTokens: 50, Unscripted: 2,
						OutputErrors: 2, OutputProblems: []string{"structuredContent does not match the output schema: at /n: got string, want number"},
						Parameters: []eval.ParameterUse{{Name: "id", Required: true, Calls: 4}, {Name: "limit"}}},
					{Name: "b", Calls: 2, Errors: 2, ErrorRate: 1, DefinitionTokens: 70, Parameters: []eval.ParameterUse{{Name: "q", Calls: 2}}}}},
		},
		Unknown: []eval.ToolStats{{Name: "made\nup", Calls: 2}},
		Changes: &eval.ToolChanges{Since: "20261124T084601Z-a1b2c3", Changed: []eval.ToolChange{{ToolRef: eval.ToolRef{Tool: "a"}, DescriptionChanged: true}}},
	})
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	assert.Equal(t, []string{
		"mcpeval: tools: 1 of 66 exercised (1.5%) on big-server",
		"mcpeval: never called: " + strings.Join(many[:maxListed], ", ") + ", … 5 more (see summary.json)",
		"mcpeval: tool definitions: 1,200 tokens (o200k_base) with every request on big-server; largest: dump (1,200)",
		"mcpeval: tools: 2 of 2 exercised (100.0%) on small",
		"mcpeval: parameters: 2 of 3 passed (66.7%) on small",
		"mcpeval: parameters of called tools never passed: a.limit",
		"mcpeval: tool definitions: 120 tokens (o200k_base) with every request on small; largest: b (70), a (50)",
		"mcpeval: tool definitions in all: 1,320 tokens (o200k_base) with every request",
		"mcpeval: tool calls that failed: b 2 of 2 calls (100.0%), a 3 of 4 calls (75.0%)",
		"mcpeval: results that break their tool's output schema: a 2 of 4 results (structuredContent does not match the output schema: at /n: got string, want number)",
		"mcpeval: elicitations no case scripted a reply to (declined): a 2",
		"mcpeval: tool results over the token limit of 1000: dump 1 of 2 results (largest 4000 tokens)",
		`mcpeval: calls to tools no server offers: "made\nup" 2`,
		"mcpeval: the tool surface changed since run 20261124T084601Z-a1b2c3 (1 changed; shown at the start)",
	}, lines)

	b.Reset()
	formatTools(&b, nil)
	assert.Empty(t, b.String(), "a summary without tools (an older run's) prints nothing")
}

func TestFormatToolChanges(t *testing.T) {
	ch := &eval.ToolChanges{Since: "20261124T084601Z-a1b2c3", InvalidatedPasses: 7,
		Removed: []eval.ToolRef{{Tool: "old_tool", Server: "genes"}}}
	assert.Equal(t, `mcpeval: the tool surface changed since run 20261124T084601Z-a1b2c3: 1 removed
mcpeval:   removed: old_tool (genes)
mcpeval: the change invalidated 7 cached passes of the loaded cases: the tool surface is part of the cache key, so they run again`,
		FormatToolChanges(ch, false))
	assert.Equal(t, `mcpeval: the tool surface changed since run 20261124T084601Z-a1b2c3: 1 removed
mcpeval:   removed: old_tool (genes)`, FormatToolChanges(ch, true), "a reference run uses no cache")
}

// -max-tool-tokens refuses a surface above it before any case, naming the
// three largest tools.
func TestLargestTools(t *testing.T) {
	ts := eval.ToolSummary{Servers: []eval.ServerTools{
		{Stats: []eval.ToolStats{{Name: "a", DefinitionTokens: 50}, {Name: "b", DefinitionTokens: 1200}}},
		{Stats: []eval.ToolStats{{Name: "c", DefinitionTokens: 70}, {Name: "d", DefinitionTokens: 70}}},
	}}
	assert.Equal(t, "b (1,200), c (70), d (70)", largestTools(ts, 3), "ties by name")
	assert.Equal(t, "b (1,200)", largestTools(ts, 1))
	assert.Empty(t, largestTools(eval.ToolSummary{}, 3))
}
