package sampleserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/sampleserver"
)

// stdioExchange writes lines to a stdio transport, reads the replies it
// expects before the end of its input, then closes the input and returns
// every reply, once the transport has returned.
func stdioExchange(t *testing.T, serve func(ctx context.Context, in io.Reader, out io.Writer) error, lines []string, expect int) []string {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serve(context.Background(), inR, outW)
		outW.Close()
	}()
	go func() {
		for _, l := range lines {
			if _, err := io.WriteString(inW, l); err != nil {
				return
			}
		}
	}()
	var replies []string
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<24)
	for len(replies) < expect && sc.Scan() {
		replies = append(replies, sc.Text())
	}
	require.NoError(t, inW.Close())
	for sc.Scan() {
		replies = append(replies, sc.Text())
	}
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the transport did not return after its input ended")
	}
	return replies
}

// byID keys replies by their JSON-RPC id, as JSON.
func byID(t *testing.T, replies []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range replies {
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
		}
		require.NoError(t, json.Unmarshal([]byte(r), &msg), "not JSON-RPC: %s", r)
		require.Equal(t, "2.0", msg.JSONRPC, r)
		_, dup := out[string(msg.ID)]
		require.False(t, dup, "two replies with id %s", msg.ID)
		out[string(msg.ID)] = r
	}
	return out
}

func modernMeta(caps string) string {
	return `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}` + caps + `}`
}

// ServeStdio answers every request as mcp-go's StdioServer does over
// the same server: results, errors of the protocol and of the tools, on
// both protocol revisions, text that JSON escapes included.
func TestServeStdioAnswersAsMcpGoDoes(t *testing.T) {
	caps := `,"io.modelcontextprotocol/clientCapabilities":{}`
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_gene_by_symbol","arguments":{"gene_symbol":"NUTM2G"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_gene_by_symbol","arguments":{"gene_symbol":"TP53"},` + modernMeta(caps) + `}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"get_gene_by_symbol","arguments":{"gene_symbol":7}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_gene_by_symbol","arguments":{"gene_symbol":"<script>&\"\u2028é"}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"` + sampleserver.ExampleGenesURI + `"}}`,
		`{"jsonrpc":"2.0","id":9,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"ten","method":"no/such/method"}`,
		`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"get_gene_by_symbol","arguments":{"gene_symbol":"TP53"},` + modernMeta("") + `}}`,
		`{"jsonrpc":"1.0","id":12,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":13,"method":"server/discover",` + `"params":{` + modernMeta(caps) + `}}`,
		`{"jsonrpc":"2.0","id":99,"result":{}}`, // a client's answer to a request the server never sent
	}
	for i := range lines {
		lines[i] += "\n"
	}
	theirs := byID(t, stdioExchange(t, func(ctx context.Context, in io.Reader, out io.Writer) error {
		return server.NewStdioServer(sampleserver.New()).Listen(ctx, in, out)
	}, lines, 13))
	ours := byID(t, stdioExchange(t, func(ctx context.Context, in io.Reader, out io.Writer) error {
		return sampleserver.ServeStdio(ctx, sampleserver.New(), in, out, log.New(io.Discard, "", 0))
	}, lines, 13))
	require.Len(t, theirs, 13)
	require.Len(t, ours, 13)
	for id, want := range theirs {
		require.Contains(t, ours, id)
		assert.JSONEq(t, want, ours[id], "reply to request %s", id)
	}
	assert.Contains(t, ours[`7`], `\u003cscript\u003e\u0026`, "text is escaped as json.Marshal escapes it")
}

// A line that is not JSON gets a parse error with a null id; blank lines
// and answers to nothing get no reply; the last line needs no newline;
// calls in flight at once are each answered once.
func TestServeStdioLines(t *testing.T) {
	lines := []string{"\n", "  \r\n", "{\"jsonrpc\":\n"}
	const calls = 200
	for i := range calls {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_gene_by_symbol","arguments":{"gene_symbol":"NUTM2G"}}}`+"\n", i+1))
	}
	lines = append(lines, `{"jsonrpc":"2.0","id":"last","method":"ping"}`)
	replies := byID(t, stdioExchange(t, func(ctx context.Context, in io.Reader, out io.Writer) error {
		return sampleserver.ServeStdio(ctx, sampleserver.New(), in, out, log.New(io.Discard, "", 0))
	}, lines, calls+1))
	require.Len(t, replies, calls+2)
	assert.Contains(t, replies["null"], `"code":-32700`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":"last","result":{}}`, replies[`"last"`])
	for i := range calls {
		assert.Contains(t, replies[fmt.Sprint(i+1)], "Q5VZR4")
	}
}

// A handler that panics answers its request with an internal error and
// the server goes on; the end of the input cancels the requests still
// running, and ServeStdio returns once they have.
func TestServeStdioPanicsAndEndOfInput(t *testing.T) {
	s := server.NewMCPServer("t", "1")
	s.AddTool(mcp.NewTool("boom"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("boom")
	})
	started := make(chan struct{})
	var cancelled atomic.Bool
	s.AddTool(mcp.NewTool("wait"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(started)
		<-ctx.Done()
		cancelled.Store(true)
		return mcp.NewToolResultText("cancelled"), nil
	})
	var logged strings.Builder
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- sampleserver.ServeStdio(context.Background(), s, inR, outW, log.New(&logged, "", 0))
		outW.Close()
	}()
	replies := bufio.NewScanner(outR)
	send := func(line string) {
		_, err := io.WriteString(inW, line+"\n")
		require.NoError(t, err)
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom"}}`)
	require.True(t, replies.Scan())
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal panic: boom"}}`, replies.Text())
	send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	require.True(t, replies.Scan())
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":{}}`, replies.Text())
	assert.Contains(t, logged.String(), "panic recovered")

	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait"}}`)
	<-started
	require.NoError(t, inW.Close())
	go func() {
		for replies.Scan() {
		}
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
		assert.True(t, cancelled.Load(), "the request in flight saw its context end before ServeStdio returned")
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not return after its input ended")
	}
}

// A notification is served before the lines after it are read: a request
// that follows it sees what it did.
func TestServeStdioNotificationsComeFirst(t *testing.T) {
	s := server.NewMCPServer("t", "1")
	var marks atomic.Int64
	s.AddNotificationHandler("test/mark", func(context.Context, mcp.JSONRPCNotification) { marks.Add(1) })
	s.AddTool(mcp.NewTool("marks"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(fmt.Sprint(marks.Load())), nil
	})
	const pairs = 50
	var lines []string
	for i := range pairs {
		lines = append(lines, `{"jsonrpc":"2.0","method":"test/mark"}`+"\n",
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"marks"}}`+"\n", i+1))
	}
	replies := byID(t, stdioExchange(t, func(ctx context.Context, in io.Reader, out io.Writer) error {
		return sampleserver.ServeStdio(ctx, s, in, out, log.New(io.Discard, "", 0))
	}, lines, pairs))
	require.Len(t, replies, pairs)
	for i := range pairs {
		var reply struct {
			Result mcp.CallToolResult `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(replies[fmt.Sprint(i+1)]), &reply))
		require.Len(t, reply.Result.Content, 1)
		seen, err := strconv.Atoi(reply.Result.Content[0].(mcp.TextContent).Text)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, seen, i+1, "call %d ran before the notification sent before it", i+1)
	}
}
