package mcpconn

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The test server's tools that ask for input, check their output, run as
// tasks or return resources. Those that ask are written as the current
// revision has it (input_required); mcp-go's server asks a client of the
// initialize era with requests of its own instead.

// weatherSchema is the output schema of the weather tool.
const weatherSchema = `{"type":"object","properties":{"temperature":{"type":"number"},"conditions":{"type":"string"}},"required":["temperature","conditions"]}`

// docURI is the resource the link tool links to.
const docURI = "test://docs/readme.txt"

func addInputTools(s *server.MCPServer) {
	s.AddTool(mcp.NewTool("ask", mcp.WithDescription("Asks the user for a field and says what they answered."),
		mcp.WithString("field", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if answer := server.ElicitationResponse(req.Params.InputResponses, "q"); answer != nil {
				content, _ := json.Marshal(answer.Content)
				return mcp.NewToolResultText(fmt.Sprintf("%s %s", answer.Action, content)), nil
			}
			field := req.GetString("field", "name")
			return server.NewInputRequestBuilder("").Elicit("q", mcp.ElicitationParams{
				Message: "What is your " + field + "?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
					field: map[string]any{"type": "string"}, "remember": map[string]any{"type": "boolean"}}},
			}).ToolResult(), nil
		})
	s.AddTool(mcp.NewTool("whereami", mcp.WithDescription("Returns the client's roots.")),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if roots := server.RootsResponse(req.Params.InputResponses, "r"); roots != nil {
				uris := make([]string, len(roots.Roots))
				for i, r := range roots.Roots {
					uris[i] = r.URI
				}
				return mcp.NewToolResultText(strings.Join(uris, " ")), nil
			}
			return server.NewInputRequestBuilder("").Roots("r").ToolResult(), nil
		})
	s.AddTool(mcp.NewTool("weather", mcp.WithDescription("Returns the weather, structured."),
		mcp.WithBoolean("broken", mcp.Description("return a temperature that is text")),
		mcp.WithRawOutputSchema(json.RawMessage(weatherSchema))),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			w := map[string]any{"temperature": 21.5, "conditions": "sunny"}
			if req.GetBool("broken", false) {
				w["temperature"] = "warm"
			}
			b, _ := json.Marshal(w)
			return mcp.NewToolResultStructured(w, string(b)), nil
		})
	s.AddTool(mcp.NewTool("research", mcp.WithDescription("Researches a topic, as a task."),
		mcp.WithString("topic", mcp.Required()), mcp.WithTaskSupport(mcp.TaskSupportRequired)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// mcp-go's server ends a task's context with the request that
			// started it, on stdio and SSE: the work does not watch it.
			time.Sleep(time.Duration(req.GetInt("ms", 30)) * time.Millisecond)
			return mcp.NewToolResultText("report on " + req.GetString("topic", "")), nil
		})
	s.AddTool(mcp.NewTool("link", mcp.WithDescription("Links to the readme.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				mcp.NewTextContent("See the readme."),
				mcp.NewResourceLink(docURI, "readme", "the project's readme", "text/plain"),
			}}, nil
		})
	s.AddResource(mcp.NewResource(docURI, "readme", mcp.WithMIMEType("text/plain")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: docURI, MIMEType: "text/plain", Text: "Read me first."}}, nil
		})
	s.AddTool(mcp.NewTool("archive", mcp.WithDescription("Returns a binary resource.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			blob := base64.StdEncoding.EncodeToString([]byte("PK\x03\x04 zip bytes"))
			return &mcp.CallToolResult{Content: []mcp.Content{
				mcp.NewEmbeddedResource(mcp.BlobResourceContents{URI: "test://files/data.zip", MIMEType: "application/zip", Blob: blob}),
			}}, nil
		})
}

// refuseDiscover makes a server of the initialize era: it refuses
// server/discover.
func refuseDiscover() server.ServerOption {
	hooks := &server.Hooks{}
	hooks.AddOnRequestInitialization(func(_ context.Context, _ any, message any) error {
		if raw, ok := message.(json.RawMessage); ok && strings.Contains(string(raw), `"server/discover"`) {
			return errors.New("method not found")
		}
		return nil
	})
	return server.WithHooks(hooks)
}

// serveLegacy serves the test tools over stdio as a server of the
// initialize era: server/discover is refused as an unknown method
// (modeLegacy) or never answered (modeLegacySilent).
func serveLegacy(mode string) int {
	in, feed := io.Pipe()
	out := &lockedWriter{w: os.Stdout}
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(sc.Bytes(), &msg) == nil && msg.Method == string(mcp.MethodServerDiscover) {
				if mode == modeLegacy {
					fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`+"\n", msg.ID)
				}
				continue
			}
			feed.Write(append(sc.Bytes(), '\n'))
		}
		feed.Close()
	}()
	stdio := server.NewStdioServer(newTestServer(mode, true))
	if err := stdio.Listen(context.Background(), in, out); err != nil && err != io.EOF {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
	return 0
}

// lockedWriter writes whole lines from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
