package scoring_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/sampleserver"
	"github.com/mcpeval/mcpeval/scoring"
)

// trajectorySet is one case of testdata/tool_trajectories.yaml.
type trajectorySet struct {
	Case   string       `yaml:"case"`
	Flawed []trajectory `yaml:"flawed"`
}

type trajectory struct {
	Name  string         `yaml:"name"`
	Flaw  string         `yaml:"flaw"`
	Calls []eval.RefCall `yaml:"calls"`
}

// Understanding credits what the model reached through the tools: every
// bundled case's reference trajectory, right by construction, scores 1.0
// (genes looked up by their Entrez ids, variants whose gene the conversion
// names, phenotypes searched by name), and every labelled flawed
// trajectory, which looks up another entity or leaves one out, scores
// below it. The calls run on the bundled sample server, and the cases are
// scored with its real results.
func TestLabelledTrajectories(t *testing.T) {
	cases, err := evalcase.LoadPath(filepath.Join("..", "cases"))
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join("testdata", "tool_trajectories.yaml"))
	require.NoError(t, err)
	var set []trajectorySet
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	require.NoError(t, dec.Decode(&set))
	flawed := map[string][]trajectory{}
	for _, s := range set {
		flawed[s.Case] = s.Flawed
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	server, err := client.NewInProcessClient(sampleserver.New())
	require.NoError(t, err)
	defer server.Close()
	require.NoError(t, server.Start(ctx))
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	_, err = server.Initialize(ctx, init)
	require.NoError(t, err)

	understanding := func(t *testing.T, c eval.Case, steps []eval.RefCall) eval.UnderstandingMetric {
		rec := eval.Record{Question: c.Input, Response: c.Expected, Status: eval.Pass, ToolCalls: []eval.ToolCall{}}
		for _, s := range steps {
			rec.ToolCalls = append(rec.ToolCalls, run(ctx, t, server, s))
		}
		return scoring.ScoreTool(c, rec).PromptUnderstanding
	}
	tool, labelled := 0, 0
	for _, c := range cases {
		if c.Kind == eval.KindCode {
			continue
		}
		tool++
		t.Run(c.Name, func(t *testing.T) {
			ref := understanding(t, c, c.AllReference())
			require.False(t, ref.NotApplicable, "the question names what to look up")
			assert.Equal(t, 1.0, ref.Score, "the reference trajectory: missing %v", ref.ToolDetails.MissingEntities)
			for _, f := range flawed[c.Name] {
				labelled++
				u := understanding(t, c, f.Calls)
				assert.Contains(t, []string{"wrong entity", "missing entity"}, f.Flaw, f.Name)
				assert.Less(t, u.Score, ref.Score, "%s (%s): entities %+v", f.Name, f.Flaw, u.ToolDetails.Entities)
				assert.NotEmpty(t, u.ToolDetails.MissingEntities, f.Name)
				t.Logf("%s (%s): understanding %.2f, missing %v", f.Name, f.Flaw, u.Score, u.ToolDetails.MissingEntities)
			}
		})
	}
	assert.Equal(t, 84, tool, "every bundled tool case")
	assert.Equal(t, len(set), countCases(set, cases), "every labelled case is a bundled case")
	assert.GreaterOrEqual(t, labelled, 25)
}

// countCases counts the labelled cases that name a loaded case.
func countCases(set []trajectorySet, cases []eval.Case) int {
	n := 0
	for _, s := range set {
		for _, c := range cases {
			if c.Name == s.Case {
				n++
				break
			}
		}
	}
	return n
}

// run makes one call on the server and returns it as a record holds it.
func run(ctx context.Context, t *testing.T, c *client.Client, s eval.RefCall) eval.ToolCall {
	t.Helper()
	args, err := json.Marshal(s.Args)
	require.NoError(t, err)
	req := mcp.CallToolRequest{}
	req.Params.Name = s.Tool
	req.Params.Arguments = s.Args
	call := eval.ToolCall{Name: s.Tool, Arguments: string(args)}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		call.IsError, call.Result = true, err.Error()
		return call
	}
	var text []string
	for _, part := range res.Content {
		if tc, ok := part.(mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	call.IsError, call.Result = res.IsError, strings.Join(text, "\n")
	return call
}
