package sampleserver_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCommandStdio drives mcpeval sample-server with raw JSON-RPC: stdout carries only
// protocol messages, stderr exactly one start-up line, and closing stdin
// ends the process cleanly.
func TestCommandStdio(t *testing.T) {
	cmd := exec.Command(commandPath, serveArgs...)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	requests := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + mcp.LATEST_LEGACY_PROTOCOL_VERSION + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_gene_by_symbol","arguments":{"gene_symbol":"NUTM2G"}}}`,
	}
	for _, r := range requests {
		_, err := io.WriteString(stdin, r+"\n")
		require.NoError(t, err)
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 0, 1<<20), 1<<24)
	replies := map[float64]map[string]any{} // by JSON-RPC id; calls may finish out of order
	for len(replies) < 2 && lines.Scan() {
		var msg map[string]any
		require.NoError(t, json.Unmarshal(lines.Bytes(), &msg), "stdout line is not JSON-RPC: %s", lines.Text())
		require.Equal(t, "2.0", msg["jsonrpc"])
		id, ok := msg["id"].(float64)
		require.True(t, ok, "reply without id: %s", lines.Text())
		replies[id] = msg
	}
	require.Len(t, replies, 2)
	assert.Equal(t, "marrvel-sample", requirePath(t, replies[1], "result.serverInfo.name"))
	content := requirePath(t, replies[2], "result.content.0.text").(string)
	assert.Contains(t, content, `"uniprotKBId": "Q5VZR4"`)

	require.NoError(t, stdin.Close())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("server did not exit after stdin closed")
	}
	assert.False(t, lines.Scan(), "unexpected extra stdout: %s", lines.Text())
	assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "stderr: %q", stderr.String())
	assert.Contains(t, stderr.String(), "stdio")
}

var startupURL = regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)\n$`)

// TestCommandHTTP runs mcpeval sample-server with -http on a free port and talks to it
// with the streamable HTTP client.
func TestCommandHTTP(t *testing.T) {
	cmd := exec.Command(commandPath, append(serveArgs, "-http", "127.0.0.1:0")...)
	stderrPipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	stderr := bufio.NewReader(stderrPipe)
	line, err := stderr.ReadString('\n')
	require.NoError(t, err)
	m := startupURL.FindStringSubmatch(line)
	require.NotNil(t, m, "start-up line: %q", line)

	c, err := client.NewStreamableHttpClient(m[1])
	require.NoError(t, err)
	require.NoError(t, c.Start(testContext(t)))
	defer c.Close()
	initialize(t, c)
	doc := callJSON(t, c, "get_clinvar_counts_by_entrez_id", map[string]any{"entrez_id": "441457"})
	assert.EqualValues(t, 99, requirePath(t, doc, "data.clinvarCountsByEntrezId.all"))
	require.NoError(t, c.Close())

	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	rest, err := io.ReadAll(stderr)
	require.NoError(t, err)
	assert.Empty(t, string(rest), "stderr after start-up line")
	require.NoError(t, cmd.Wait())
}
