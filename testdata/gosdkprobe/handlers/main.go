// Command handlers serves, on one address, the tools of the official Go
// SDK's example server examples/server/everything that ask the client
// something during a call (roots, elicit (form)), its greet tool and its
// embedded:info resource, through the SDK's other two HTTP handlers: the
// stateless streamable HTTP handler at /stateless and the SSE handler at
// /sse. The example itself serves its default streamable HTTP handler
// (-http) and stdio; its main package cannot be imported, so these are
// written again here as it writes them, with a tool that links to the
// resource (the example's links are data: URIs it cannot read).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type args struct {
	Name string `json:"name" jsonschema:"the name to say hi to"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()

	server := mcp.NewServer(&mcp.Implementation{Name: "everything"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "say hi"},
		func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hi " + a.Name}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "roots"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, nil, fmt.Errorf("listing roots failed: %v", err)
			}
			var all []string
			for _, r := range res.Roots {
				all = append(all, fmt.Sprintf("%s:%s", r.Name, r.URI))
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(all, ",")}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "elicit (form)"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ any) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
				Message:         "provide a random string",
				RequestedSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"random": {Type: "string"}}},
			})
			if err != nil {
				return nil, nil, fmt.Errorf("eliciting failed: %v", err)
			}
			random, _ := res.Content["random"].(string)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: random}}}, nil, nil
		})

	server.AddResource(&mcp.Resource{Name: "info", MIMEType: "text/plain", URI: "embedded:info"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			if req.Params.URI != "embedded:info" {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
				{URI: req.Params.URI, MIMEType: "text/plain", Text: "This is the hello example server."}}}, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "info link", Description: "links to the server's info"},
		func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{Name: "info", MIMEType: "text/plain", URI: "embedded:info"}}}, nil, nil
		})

	get := func(*http.Request) *mcp.Server { return server }
	mux := http.NewServeMux()
	mux.Handle("/stateless", mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true}))
	mux.Handle("/sse", mcp.NewSSEHandler(get, nil))
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s\n", ln.Addr()) // the test reads the address from the first line
	log.Fatal(http.Serve(ln, mux))
}
