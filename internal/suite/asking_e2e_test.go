package suite_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/gosdkprobe"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

// Servers nobody here wrote whose tools ask the client something during a
// call (its roots, the user's input), on every transport the suite
// offers: the official Go SDK's example server examples/server/everything
// (v1.8.0) over stdio and its default streamable HTTP handler, the same
// tools through the SDK's stateless and SSE handlers, and npm's
// server-everything over SSE.

// askingTool is the tool a stub model calls for each question of
// askingCases, by the server's name for it, with its arguments.
var askingTool = map[string][2]string{
	"Greet Ada.":                       {"greet", `{"name":"Ada"}`},
	"Which roots do I have?":           {"roots", `{}`},
	"Ask me for a random string.":      {"elicit (form)", `{}`},
	"List my roots.":                   {"get-roots-list", `{}`},
	"Ask me for my name, please.":      {"trigger-elicitation-request", `{}`},
	"What does the server's info say?": {"info link", `{}`},
}

// askingStub calls the question's tool under the name the suite offers
// for it, then answers with what the tool returned.
func askingStub() *llmstub.Server {
	return llmstub.Start(func(req llmstub.Request) llmstub.Reply {
		if req.ForcedTool() != "" {
			return llmstub.Verdict("yes", "ok")
		}
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" && strings.Contains(last.Content, `[resource link "info" <embedded:info>`) {
			return llmstub.Reply{ToolCalls: []llmstub.Call{{Name: "read_resource_link", Arguments: `{"uri":"embedded:info"}`}}}
		}
		if last.Role == "tool" {
			return llmstub.Reply{Content: "The tool says: " + last.Content}
		}
		want, ok := askingTool[req.Question()]
		if !ok {
			return llmstub.Reply{Content: "I do not know: " + strconv.Quote(req.Question())}
		}
		for _, t := range req.Tools {
			if offered := t.Function.Name; offered == want[0] || sameTool(offered, want[0]) {
				return llmstub.Reply{ToolCalls: []llmstub.Call{{Name: offered, Arguments: want[1]}}}
			}
		}
		return llmstub.Reply{Content: "No such tool: " + want[0]}
	}, llmstub.Options{})
}

// sameTool reports whether offered is the suite's provider-safe name for
// the server's tool name: the same letters and digits, in order, and a
// hash.
func sameTool(offered, name string) bool {
	offered = regexp.MustCompile(`_[0-9a-f]{8}$`).ReplaceAllString(offered, "")
	keep := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, strings.ToLower(s))
	}
	return keep(offered) == keep(name)
}

const goSDKAskingCases = `
- case:
    name: "greet"
    category: "Asking"
    input: "Greet Ada."
    expected: "Hi Ada"
    checks: {contains: ["Hi Ada"]}
- case:
    name: "roots"
    category: "Asking"
    input: "Which roots do I have?"
    expected: "the data directory"
    checks: {contains: ["file://"]}
- case:
    name: "elicit"
    category: "Asking"
    input: "Ask me for a random string."
    expected: "xyzzy"
    checks: {contains: ["xyzzy"]}
    elicitation:
      - {field: random, content: {random: "xyzzy"}}
- case:
    name: "info"
    category: "Asking"
    input: "What does the server's info say?"
    expected: "This is the hello example server."
    checks: {contains: ["hello example server"]}
`

// buildGoSDKServers builds the Go SDK's everything example and the
// handlers of testdata/gosdkprobe/handlers, from the module proxy.
func buildGoSDKServers(t *testing.T) (everything, handlers string) {
	t.Helper()
	return gosdkprobe.Build(t, "github.com/modelcontextprotocol/go-sdk/examples/server/everything"), gosdkprobe.Build(t, "./handlers")
}

// startHandlers starts the handlers server and returns its base URL.
func startHandlers(t *testing.T, bin string) string {
	t.Helper()
	cmd := exec.Command(bin)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, "the handlers server says where it listens")
	return strings.TrimSpace(line)
}

// startGoSDKHTTP starts the everything example on its default streamable
// HTTP handler (-http) and returns its URL.
func startGoSDKHTTP(t *testing.T, bin string) string {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cmd := exec.Command(bin, "-http", addr)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitListening(t, addr)
	return "http://" + addr
}

func TestServersThatAskTheClient(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds servers on the official Go SDK")
	}
	everything, handlers := buildGoSDKServers(t)
	base := startHandlers(t, handlers)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	require.NoError(t, os.Mkdir(data, 0o755))
	servers := filepath.Join(dir, "servers.json")
	file := map[string]any{"mcpServers": map[string]any{
		// Its tools call ListRoots and Elicit while serving the call,
		// which revision 2026-07-28 refuses, and over stdio and SSE the
		// SDK speaks 2026-07-28: held to the handshake. Its default HTTP
		// handler refuses 2026-07-28 after discovery: the suite falls
		// back to the handshake by itself.
		"stdio":     map[string]any{"command": everything, "roots": []string{data}, "protocol": "handshake"},
		"http":      map[string]any{"url": startGoSDKHTTP(t, everything), "roots": []string{data}},
		"stateless": map[string]any{"url": base + "/stateless", "roots": []string{data}},
		"sse":       map[string]any{"type": "sse", "url": base + "/sse", "roots": []string{data}, "protocol": "handshake"},
	}}
	raw, err := json.Marshal(file)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(servers, raw, 0o644))
	stub := askingStub()
	defer stub.Close()

	for _, tc := range []struct {
		server string
		// asks: the server's own requests reach the client (the roots and
		// elicit cases pass); notice: what the closing lines say of the
		// server.
		asks   bool
		notice string
		// links: the server has a tool that links to a resource of its
		// own (the handlers' servers).
		links bool
	}{
		{server: "stdio", asks: true},
		{server: "http", asks: true, notice: "spoken to on revision 2025-11-25, after the handshake: on 2026-07-28 it answered server/discover, then refused the revision"},
		{server: "stateless", links: true},
		{server: "sse", asks: true, links: true},
	} {
		t.Run(tc.server, func(t *testing.T) {
			e := stubEnv(stub)
			e["EVAL_SERVERS_FILE"], e["EVAL_SERVER"], e["EVAL_TOOL_TIMEOUT"] = servers, tc.server, "60s"
			r := runSuite(t, t.TempDir(), goSDKAskingCases, e, "-v")
			assert.Equal(t, eval.Pass, r.records["greet"].Status, r.records["greet"].Reason)
			if info := r.records["info"]; tc.links {
				assert.Equal(t, eval.Pass, info.Status, "a linked resource is read: %s (%s)", info.Reason, info.Response)
				require.Len(t, info.ToolCalls, 2)
				assert.Equal(t, "read_resource_link", info.ToolCalls[1].Name)
			}
			for _, name := range []string{"roots", "elicit"} {
				rec := r.records[name]
				require.Len(t, rec.ToolCalls, 1, "%s: %s", name, r.output)
				call := rec.ToolCalls[0]
				assert.Less(t, call.DurationMS, 10_000.0, "%s: no call waits for a timeout", name)
				if tc.asks {
					assert.Equal(t, eval.Pass, rec.Status, "%s: %s", name, rec.Reason)
					assert.False(t, call.IsError, call.Result)
				} else {
					// A stateless server has no session to ask through: the
					// tool fails at once, saying so.
					assert.Equal(t, eval.Fail, rec.Status, rec.Reason)
					assert.True(t, call.IsError, call.Result)
					assert.Contains(t, call.Result, "failed")
				}
			}
			if tc.asks {
				assert.Contains(t, r.records["roots"].ToolCalls[0].Result, "file://"+filepath.ToSlash(data))
				assert.Equal(t, "xyzzy", r.records["elicit"].ToolCalls[0].Result)
				require.Len(t, r.records["elicit"].ToolCalls[0].Elicitations, 1)
				assert.True(t, r.records["elicit"].ToolCalls[0].Elicitations[0].Scripted)
			}
			if tc.notice != "" {
				assert.Contains(t, r.output, tc.notice)
			}
		})
	}
}

const npmAskingCases = `
- case:
    name: "roots"
    category: "Asking"
    input: "List my roots."
    expected: "the data directory"
    checks: {contains: ["file://"]}
- case:
    name: "elicit"
    category: "Asking"
    input: "Ask me for my name, please."
    expected: "Ada Lovelace"
    checks: {contains: ["Ada Lovelace"]}
    elicitation:
      - {field: name, content: {name: "Ada Lovelace", check: true}}
`

// npm's server-everything over SSE asks the client for its roots and the
// user's input; the suite answers both, and no call waits for a timeout.
func TestReferenceServerAsksOverSSE(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("installs and runs an npm server")
	}
	entry := everythingServer(t)
	node, err := exec.LookPath("node")
	require.NoError(t, err, "npm without node")
	port := freePort(t)
	cmd := exec.Command(node, entry, "sse")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	waitListening(t, addr)

	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	require.NoError(t, os.Mkdir(data, 0o755))
	stub := askingStub()
	defer stub.Close()
	e := stubEnv(stub)
	e["EVAL_SERVER"], e["EVAL_ROOTS"], e["EVAL_TOOL_TIMEOUT"] = "sse:http://"+addr+"/sse", data, "60s"
	r := runSuite(t, dir, npmAskingCases, e, "-v")
	require.NoError(t, r.err, r.output)
	for _, name := range []string{"roots", "elicit"} {
		rec := r.records[name]
		assert.Equal(t, eval.Pass, rec.Status, "%s: %s", name, rec.Reason)
		require.Len(t, rec.ToolCalls, 1)
		assert.Less(t, rec.ToolCalls[0].DurationMS, 10_000.0, "%s: no call waits for a timeout", name)
	}
	assert.Contains(t, r.records["roots"].ToolCalls[0].Result, "file://"+filepath.ToSlash(data))
	require.Len(t, r.records["elicit"].ToolCalls[0].Elicitations, 1)
	assert.Equal(t, eval.ElicitAccept, r.records["elicit"].ToolCalls[0].Elicitations[0].Action)
}
