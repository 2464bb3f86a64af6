// Command hostileserver is an MCP server whose tool schemas are built to
// make checking them exponential, for the tests that show a run still
// ends within its case timeout with every record written. Its tools:
//
//	deep_input(id)  its input schema is a chain of 40 levels that each
//	                name the next twice by anchor (allOf of two $refs):
//	                checking any arguments against it applies the last
//	                level 2^40 times. Answers "ok <id>".
//	deep_output()   its output schema applies itself twice at every level
//	                of a nested array, and its structuredContent is an
//	                array nested 40 deep: checking it is 2^40 steps.
//
// It serves stdio.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// levels is the depth of both constructions.
const levels = 40

// doublingInput is the input schema of deep_input: an object whose id is
// checked by a chain whose every level names the next twice.
func doublingInput() json.RawMessage {
	defs := []string{fmt.Sprintf(`"d%d":{"$anchor":"d%d","type":"string"}`, levels, levels)}
	for i := range levels {
		defs = append(defs, fmt.Sprintf(`"d%d":{"$anchor":"d%d","allOf":[{"$ref":"#d%d"},{"$ref":"#d%d"}]}`, i, i, i+1, i+1))
	}
	return json.RawMessage(`{"type":"object","properties":{"id":{"$ref":"#d0"}},"required":["id"],"$defs":{` + strings.Join(defs, ",") + `}}`)
}

// nestingOutput is the output schema of deep_output: an object whose
// value is a nested array, checked by a schema that applies itself twice
// at every level.
const nestingOutput = `{"type":"object","properties":{"value":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"array","items":{"allOf":[{"$ref":"#/$defs/n"},{"$ref":"#/$defs/n"}]}}}}`

func main() {
	s := server.NewMCPServer("hostileserver", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewToolWithRawSchema("deep_input", "Looks up an item by id.", doublingInput()),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok " + r.GetString("id", "")), nil
		})
	out := mcp.NewTool("deep_output", mcp.WithDescription("Returns a nested value."))
	out.RawOutputSchema = json.RawMessage(nestingOutput)
	s.AddTool(out, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var value any = []any{}
		for range levels - 1 {
			value = []any{value}
		}
		return mcp.NewToolResultStructured(map[string]any{"value": value}, "a nested value"), nil
	})
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, "hostileserver:", err)
		os.Exit(1)
	}
}
