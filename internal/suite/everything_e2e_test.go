package suite_test

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// everythingVersion is the version of the MCP reference server
// @modelcontextprotocol/server-everything the tests install.
const everythingVersion = "2026.8.31"

// everythingCases call two of the reference server's tools; one call gives
// get-sum a string where its schema wants a number.
const everythingCases = `
- case:
    name: "echo"
    category: "Everything"
    input: "Call the echo tool."
    expected: "Echo: hello from mcpeval"
    checks: {contains: ["hello from mcpeval"]}
    reference:
      - {tool: echo, args: {message: "hello from mcpeval"}}
- case:
    name: "sum"
    category: "Everything"
    input: "What is 2 + 3?"
    expected: "5"
    checks: {contains: ["5"]}
    reference:
      - {tool: get-sum, args: {a: "two", b: 3}, expect_error: true}
      - {tool: get-sum, args: {a: 2, b: 3}}
`

// everythingServer returns the path of the reference server's entry point,
// installing it with npm into the user's cache once. Without npm the test
// is skipped, saying what to install.
func everythingServer(t *testing.T) string {
	return npmServer(t, "server-everything", everythingVersion)
}

// npmServer returns the path of the entry point of the MCP reference
// server @modelcontextprotocol/<name> at version, installing it with npm
// into the user's cache once. Without npm the test is skipped, saying what
// to install.
func npmServer(t *testing.T, name, version string) string {
	t.Helper()
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skipf("npm not found: install Node.js and npm (apt-get install nodejs npm) to test against @modelcontextprotocol/%s", name)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "mcpeval-test", name+"-"+version)
	entry := filepath.Join(dir, "node_modules", "@modelcontextprotocol", name, "dist", "index.js")
	if _, err := os.Stat(entry); err == nil {
		return entry
	}
	// Installed beside, then moved into place: a concurrent test run never
	// sees half an installation.
	require.NoError(t, os.MkdirAll(filepath.Dir(dir), 0o755))
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	require.NoError(t, err)
	defer os.RemoveAll(tmp)
	cmd := exec.Command(npm, "install", "--prefix", tmp, "--no-audit", "--no-fund", "--loglevel=error",
		"@modelcontextprotocol/"+name+"@"+version)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("npm could not install @modelcontextprotocol/%s@%s (is the npm registry reachable?): %v\n%s", name, version, err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		_, statErr := os.Stat(entry)
		require.NoError(t, statErr, "install: %v", err) // another run installed it first
	}
	return entry
}

// The reference server speaks to the suite over stdio and over streamable
// HTTP; either way the run records its whole tool surface, the coverage of
// its tools and the health of the two it called, the get-sum call whose
// argument does not match the schema counted as an error.
func TestToolStatsOnTheReferenceServer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("installs and runs an npm server")
	}
	entry := everythingServer(t)
	node, err := exec.LookPath("node")
	require.NoError(t, err, "npm without node")

	httpServer := func(t *testing.T) string { return everythingHTTP(t, node, entry) }
	hashes := map[string]string{}
	for _, tc := range []struct {
		transport string
		spec      func(t *testing.T) string
	}{
		{"stdio", func(*testing.T) string { return strconv.Quote(node) + " " + strconv.Quote(entry) + " stdio" }},
		{"streamable HTTP", httpServer},
	} {
		t.Run(tc.transport, func(t *testing.T) {
			r := runSuite(t, t.TempDir(), everythingCases, env{"EVAL_SERVER": tc.spec(t)}, "-v")
			require.NoError(t, r.err, r.output)
			var sum eval.Summary
			data, err := os.ReadFile(filepath.Join(r.out, eval.SummaryFile))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &sum))
			require.NotNil(t, sum.Tools)
			require.Len(t, sum.Tools.Servers, 1)
			srv := sum.Tools.Servers[0]
			assert.Contains(t, srv.Name, "everything", "the serverInfo name")
			assert.NotEmpty(t, srv.Version)
			assert.GreaterOrEqual(t, srv.Tools, 10, "the reference server offers a dozen tools or more")
			assert.Equal(t, 2, srv.Exercised)
			assert.Len(t, srv.NeverCalled, srv.Tools-2)
			assert.Contains(t, r.output, fmt.Sprintf("mcpeval: tools: 2 of %d exercised (%.1f%%) on ", srv.Tools, srv.Coverage))
			stats := map[string]eval.ToolStats{}
			for i, st := range srv.Stats {
				stats[st.Name] = st
				assert.Equal(t, srv.Surface[i].Name, st.Name)
			}
			echo, sumTool := stats["echo"], stats["get-sum"]
			assert.Equal(t, eval.ToolStats{Name: "echo", Calls: 1, Cases: 1, PassShare: 1,
				Parameters: []eval.ParameterUse{{Name: "message", Required: true, Calls: 1}}}, zeroMeasures(echo))
			assert.Positive(t, echo.ResultTokensMax)
			assert.Positive(t, echo.DefinitionTokens)
			assert.Equal(t, 2, sumTool.Calls)
			// A string where the schema wants a number, and the server said
			// no, as the case asks (expect_error): no error of the tool.
			assert.Equal(t, 1, sumTool.ExpectedErrors)
			assert.Zero(t, sumTool.Errors)
			assert.Zero(t, sumTool.ArgumentErrors+sumTool.Refused+sumTool.ErrorResults)
			assert.Zero(t, sumTool.ErrorRate)
			// Parameters count the calls the server accepted: a and b once,
			// of the second call; the refused call passes nothing.
			assert.Equal(t, []eval.ParameterUse{{Name: "a", Required: true, Calls: 1}, {Name: "b", Required: true, Calls: 1}}, sumTool.Parameters)
			assert.Equal(t, 3, srv.ParametersPassed, "message, a and b")
			hashes[tc.transport] = sum.Tools.Hash
		})
	}
	if len(hashes) == 2 {
		assert.Equal(t, hashes["stdio"], hashes["streamable HTTP"], "the same surface over either transport")
	}
}

// everythingHTTP starts the reference server over streamable HTTP and
// returns its endpoint.
func everythingHTTP(t *testing.T, node, entry string) string {
	port := freePort(t)
	cmd := exec.Command(node, entry, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	waitListening(t, addr)
	return "http://" + addr + "/mcp"
}

// waitListening waits until a server listens at addr.
func waitListening(t *testing.T, addr string) {
	t.Helper()
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, 30*time.Second, 50*time.Millisecond, "the server listens at %s", addr)
}

// zeroMeasures leaves out what a run measures (time, tokens) to compare
// the counts.
func zeroMeasures(st eval.ToolStats) eval.ToolStats {
	st.LatencyP50MS, st.LatencyP95MS, st.ResultTokensP50, st.ResultTokensMax, st.DefinitionTokens = 0, 0, 0, 0, 0
	return st
}

// freePort returns a loopback port nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
