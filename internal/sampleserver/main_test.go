package sampleserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/sampleserver"
)

// commandPath is the mcpeval binary built once by TestMain; serveArgs
// make it the sample server (mcpeval sample-server).
var (
	commandPath string
	serveArgs   = []string{"sample-server"}
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "marrvel-sample-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "create temp dir:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	commandPath = filepath.Join(dir, "mcpeval")
	build := exec.Command("go", "build", "-o", commandPath, "../../cmd/mcpeval")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build mcpeval:", err)
		return 1
	}
	return m.Run()
}

// transport connects a fresh, initialised client to the sample server.
type transport struct {
	name    string
	connect func(t *testing.T) *client.Client
}

var transports = []transport{
	{"stdio", connectStdio},
	{"http", connectHTTP},
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func initialize(t *testing.T, c *client.Client) {
	t.Helper()
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "sampleserver-test", Version: "1"}
	res, err := c.Initialize(testContext(t), req)
	require.NoError(t, err)
	require.Equal(t, sampleserver.Name, res.ServerInfo.Name)
}

// connectStdio runs the built command as a subprocess speaking stdio.
func connectStdio(t *testing.T) *client.Client {
	t.Helper()
	c, err := client.NewStdioMCPClientWithOptions(commandPath, nil, serveArgs)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	initialize(t, c)
	return c
}

// connectHTTP serves New() over streamable HTTP behind httptest.
func connectHTTP(t *testing.T) *client.Client {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(sampleserver.New()))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	c, err := client.NewStreamableHttpClient(ts.URL + "/mcp")
	require.NoError(t, err)
	require.NoError(t, c.Start(testContext(t)))
	t.Cleanup(func() { c.Close() })
	initialize(t, c)
	return c
}

// connectInProcess is for checks of the data itself, where the transport
// does not matter.
func connectInProcess(t *testing.T) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(sampleserver.New())
	require.NoError(t, err)
	require.NoError(t, c.Start(testContext(t)))
	t.Cleanup(func() { c.Close() })
	initialize(t, c)
	return c
}

func callTool(ctx context.Context, c *client.Client, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	return c.CallTool(ctx, req)
}

// call runs a tool and returns its result and text.
func call(t *testing.T, c *client.Client, tool string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := callTool(testContext(t), c, tool, args)
	require.NoError(t, err, "call %s", tool)
	return res, resultText(res)
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// callJSON runs a tool that must succeed and decodes its JSON text.
func callJSON(t *testing.T, c *client.Client, tool string, args map[string]any) map[string]any {
	t.Helper()
	res, text := call(t, c, tool, args)
	require.False(t, res.IsError, "%s returned an error: %s", tool, text)
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(text), &doc), "%s returned non-JSON text: %s", tool, text)
	return doc
}

// lookup follows a dotted path ("data.items.0.name") through decoded JSON.
func lookup(doc any, path string) (any, bool) {
	cur := doc
	for _, key := range strings.Split(path, ".") {
		switch node := cur.(type) {
		case map[string]any:
			next, ok := node[key]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(node) {
				return nil, false
			}
			cur = node[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func requirePath(t *testing.T, doc any, path string) any {
	t.Helper()
	v, ok := lookup(doc, path)
	require.True(t, ok, "path %s missing in %v", path, doc)
	return v
}
