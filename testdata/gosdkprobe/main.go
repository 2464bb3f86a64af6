// Command gosdkprobe is an MCP server on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk), served over stdio, that the
// suite's tests evaluate as a server no one here wrote would be: its
// forecast tool returns structured content that matches its output
// schema, broken_forecast returns structured content that does not (a
// temperature given as text), and summary_only declares an output schema
// but returns text alone; forecasts takes a list, which the SDK's schema
// gives the type list ["null", "array"]. A module of its own keeps the SDK out of
// mcpeval's go.mod.
package main

import (
	"context"
	"encoding/json"
	"log"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// forecast is the structured output the tools declare.
type forecast struct {
	Temperature float64 `json:"temperature" jsonschema:"degrees Celsius"`
	Conditions  string  `json:"conditions" jsonschema:"the sky, in words"`
}

type places struct {
	Cities []string `json:"cities" jsonschema:"the cities to forecast"`
}

type place struct {
	City string `json:"city" jsonschema:"the city to forecast"`
}

// outputSchema is forecast's schema, as broken_forecast and summary_only
// declare it.
const outputSchema = `{"type":"object","properties":{"temperature":{"type":"number"},"conditions":{"type":"string"}},"required":["temperature","conditions"]}`

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "gosdk-probe", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "forecast", Description: "Tomorrow's weather in a city, structured."},
		func(_ context.Context, _ *mcp.CallToolRequest, in place) (*mcp.CallToolResult, forecast, error) {
			return nil, forecast{Temperature: 21.5, Conditions: "sunny in " + in.City}, nil
		})
	placeSchema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)
	s.AddTool(&mcp.Tool{Name: "broken_forecast", Description: "Tomorrow's weather in a city, structured (the temperature comes as text).",
		InputSchema: placeSchema, OutputSchema: json.RawMessage(outputSchema)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			out := map[string]any{"temperature": "warm", "conditions": "sunny"}
			text, _ := json.Marshal(out)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}, StructuredContent: out}, nil
		})
	s.AddTool(&mcp.Tool{Name: "summary_only", Description: "Tomorrow's weather in a city, in words only.",
		InputSchema: placeSchema, OutputSchema: json.RawMessage(outputSchema)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "mild and sunny"}}}, nil
		})
	// The SDK gives a slice the type list ["null", "array"].
	mcp.AddTool(s, &mcp.Tool{Name: "forecasts", Description: "Tomorrow's weather in several cities."},
		func(_ context.Context, _ *mcp.CallToolRequest, in places) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "mild in " + strings.Join(in.Cities, " and ")}}}, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
