// Command progress is an MCP server on the official Go SDK, served over
// stdio, that says what a tool call brought it: its echo tool returns the
// text it was given and the call's _meta (the protocol's metadata of
// revision 2026-07-28, a progress token), and reports progress once to a
// call that gave a token. mcpconn's tests check with it that the tool
// calls the suite sends are ones a server no one here wrote accepts.
package main

import (
	"context"
	"encoding/json"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type input struct {
	Text string `json:"text" jsonschema:"the text to return"`
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "gosdk-progress", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns its text and the call's _meta."},
		func(ctx context.Context, req *mcp.CallToolRequest, in input) (*mcp.CallToolResult, any, error) {
			if token := req.Params.GetProgressToken(); token != nil {
				err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1, Total: 1, Message: "echoed"})
				if err != nil {
					return nil, nil, err
				}
			}
			out, err := json.Marshal(map[string]any{"text": in.Text, "meta": req.Params.GetMeta()})
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}}, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
