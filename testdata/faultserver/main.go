// Command faultserver is an MCP stdio server that misbehaves on request, for
// the suite's fault tests: its tools crash the process, hang, or return
// huge, binary or invalid UTF-8 content. Its tool environment shows the
// environment it was started with.
package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	if os.Getenv("FAULTSERVER_FAIL_START") != "" {
		fmt.Fprintln(os.Stderr, "faultserver: cannot open database: permission denied")
		os.Exit(2)
	}
	fmt.Fprintf(os.Stderr, "faultserver: started pid %d\n", os.Getpid())
	s := server.NewMCPServer("faultserver", "1", server.WithInputSchemaValidation())
	text := func(f func(mcp.CallToolRequest) string) server.ToolHandlerFunc {
		return func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(f(r)), nil
		}
	}
	s.AddTool(mcp.NewTool("lookup", mcp.WithDescription("Look up an id."), mcp.WithString("id", mcp.Required())),
		text(func(r mcp.CallToolRequest) string {
			return fmt.Sprintf(`{"id": %q, "value": "value-of-%s", "pid": %d}`, r.GetString("id", ""), r.GetString("id", ""), os.Getpid())
		}))
	s.AddTool(mcp.NewTool("slow", mcp.WithDescription("Answers after a second.")),
		text(func(mcp.CallToolRequest) string { time.Sleep(time.Second); return "slow answer" }))
	s.AddTool(mcp.NewTool("crash", mcp.WithDescription("Crashes the server.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "faultserver: panic: index out of range [7] with length 3")
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(mcp.NewTool("hang", mcp.WithDescription("Never answers.")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {}
		})
	s.AddTool(mcp.NewTool("binary", mcp.WithDescription("Returns bytes that are not UTF-8.")),
		text(func(mcp.CallToolRequest) string { return "ok \xff\xfe\x00\x01 binary \xc3\x28 end" }))
	s.AddTool(mcp.NewTool("huge", mcp.WithDescription("Returns about 3 MB.")),
		text(func(mcp.CallToolRequest) string { return strings.Repeat("lorem ipsum dolor ", 170_000) }))
	s.AddTool(mcp.NewTool("environment", mcp.WithDescription("Returns the server's environment, one NAME=value a line, sorted.")),
		text(func(mcp.CallToolRequest) string {
			env := os.Environ()
			slices.Sort(env)
			return strings.Join(env, "\n")
		}))
	if err := server.ServeStdio(s, server.WithWorkerPoolSize(16)); err != nil {
		fmt.Fprintln(os.Stderr, "faultserver:", err)
		os.Exit(1)
	}
}
