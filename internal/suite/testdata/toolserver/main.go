// Command toolserver is a small MCP server for the tests of tool coverage,
// tool health and changes of the tool surface. Its tools:
//
//	lookup_item(id)  {"id": ..., "name": "item <id>"}; an error result for an id that is not a string
//	fail_always()    always an error result
//	refuse()         always a protocol error: the server answers with an error instead of a result
//	big(words)       a result of that many words
//	unused_tool(x)   never called by the tests
//	items.count()    {"server": <label>, "count": 42}; only with -dotted (a name with a dot, which MCP allows)
//	extra_<n>()      -extra N adds N tools that return "extra <n>"
//
// With -variant 2, lookup_item has another description and a second
// required argument, source ("local" or "remote"), and fails without it.
// -legacy 1 adds legacy_lookup(id), {"id": ..., "name": "legacy <id>"};
// -legacy 2 adds it with a description that says not to use it, -legacy 3
// with another description that does not. -data 2
// changes the data behind lookup_item: item d is withdrawn.
// -label names the server in the results of items.count. It serves stdio.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	variant := flag.Int("variant", 1, "1, or 2: lookup_item changes its description and schema")
	dotted := flag.Bool("dotted", false, "offer items.count, a tool whose name has a dot")
	label := flag.String("label", "toolserver", "the server's name in the results of items.count")
	extra := flag.Int("extra", 0, "offer this many more tools, extra_1 to extra_N")
	legacy := flag.Int("legacy", 0, "1: offer legacy_lookup; 2: offer it deprecated; 3: offer it with another description")
	data := flag.Int("data", 1, "1, or 2: item d is withdrawn")
	flag.Parse()
	s := newServer(*variant, *data)
	if *legacy > 0 {
		description := "Look up an item in the legacy index."
		switch *legacy {
		case 2:
			description = "Deprecated: do not use. " + description
		case 3:
			description = "Look up an item in the legacy index, an archive kept read-only."
		}
		s.AddTool(mcp.NewTool("legacy_lookup", mcp.WithDescription(description), mcp.WithString("id", mcp.Required())),
			func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(fmt.Sprintf(`{"id":%q,"name":"legacy %s"}`, r.GetString("id", ""), r.GetString("id", ""))), nil
			})
	}
	if *dotted {
		s.AddTool(mcp.NewTool("items.count", mcp.WithDescription("Counts the items of this server.")),
			func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(fmt.Sprintf(`{"server":%q,"count":42}`, *label)), nil
			})
	}
	for i := 1; i <= *extra; i++ {
		s.AddTool(mcp.NewTool(fmt.Sprintf("extra_%d", i), mcp.WithDescription("An extra tool.")),
			func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(fmt.Sprintf("extra %d", i)), nil
			})
	}
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func newServer(variant, data int) *server.MCPServer {
	s := server.NewMCPServer("toolserver", "1.0", server.WithToolCapabilities(false))
	lookup := mcp.NewTool("lookup_item",
		mcp.WithDescription("Look up an item by its id."),
		mcp.WithString("id", mcp.Required(), mcp.Description("the item's id")))
	if variant == 2 {
		lookup = mcp.NewTool("lookup_item",
			mcp.WithDescription("Look up an item by its id in one of the item sources."),
			mcp.WithString("id", mcp.Required(), mcp.Description("the item's id")),
			mcp.WithString("source", mcp.Required(), mcp.Enum("local", "remote"), mcp.Description("where to look")))
	}
	s.AddTool(lookup, func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := r.GetArguments()
		id, ok := args["id"].(string)
		if !ok {
			return mcp.NewToolResultError("id must be a string"), nil
		}
		if _, given := args["source"]; variant == 2 && !given {
			return mcp.NewToolResultError("source is required: local or remote"), nil
		}
		if data == 2 && id == "d" {
			return mcp.NewToolResultText(`{"id":"d","name":"withdrawn"}`), nil
		}
		return mcp.NewToolResultText(fmt.Sprintf(`{"id":%q,"name":"item %s"}`, id, id)), nil
	})
	s.AddTool(mcp.NewTool("fail_always", mcp.WithDescription("Always fails.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("the backend said no"), nil
		})
	s.AddTool(mcp.NewTool("refuse", mcp.WithDescription("Always refused.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("refused: the backend is down")
		})
	s.AddTool(mcp.NewTool("big", mcp.WithDescription("Returns many words."), mcp.WithNumber("words", mcp.Required())),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(strings.Repeat("word ", r.GetInt("words", 0))), nil
		})
	s.AddTool(mcp.NewTool("unused_tool", mcp.WithDescription("Never called."), mcp.WithString("x")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("unused"), nil
		})
	return s
}
