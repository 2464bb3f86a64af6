package suite_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// filesystemVersion is the version of @modelcontextprotocol/server-filesystem
// the tests install.
const filesystemVersion = "2026.8.31"

// currentFeatureCases exercise what the reference server shows of the
// protocol beyond plain calls: elicitations the case answers (accepted,
// declined, or not scripted and so declined), structured output, a
// resource link the agent follows, and a tool that runs as a task and asks
// for input while it runs.
const currentFeatureCases = `
- case:
    name: "elicit accept"
    category: "Everything"
    input: "Ask me for my name."
    expected: "Ada Lovelace"
    checks: {contains: ["Ada Lovelace"]}
    elicitation:
      - content: {name: "Ada Lovelace", check: true, email: "ada@example.org"}
    tools:
      elicited: [{tool: trigger-elicitation-request, action: accept}]
    reference:
      - {tool: trigger-elicitation-request, args: {}}
- case:
    name: "elicit decline"
    category: "Everything"
    input: "Ask me for my name; I will not say."
    expected: "The user declined."
    checks: {contains: ["declined"]}
    elicitation:
      - action: decline
    tools:
      elicited: [{tool: trigger-elicitation-request, action: decline}]
    reference:
      - {tool: trigger-elicitation-request, args: {}}
- case:
    name: "elicit unscripted"
    category: "Everything"
    input: "Ask me for my name."
    expected: "The user declined."
    checks: {contains: ["declined"]}
    reference:
      - {tool: trigger-elicitation-request, args: {}}
- case:
    name: "structured"
    category: "Everything"
    input: "What is the weather in Chicago?"
    expected: "Drizzle in Chicago."
    checks: {contains: ["drizzle"]}
    reference:
      - {tool: get-structured-content, args: {location: Chicago}}
- case:
    name: "link"
    category: "Everything"
    input: "Read the second resource."
    expected: "A plaintext resource."
    checks: {contains: ["plaintext resource"]}
    tools:
      must_read: ["demo://resource/dynamic/text/*"]
    reference:
      - {tool: get-resource-links, args: {count: 2}}
      - {tool: read_resource_link, args: {uri: "demo://resource/dynamic/text/2"}}
- case:
    name: "task"
    category: "Everything"
    input: "Research python."
    expected: "A Research Report on python, the programming language."
    checks: {contains: ["Research Report", "programming"]}
    elicitation:
      - {field: interpretation, content: {interpretation: programming}}
    tools:
      elicited: [{tool: simulate-research-query, action: accept}]
    reference:
      - {tool: simulate-research-query, args: {topic: python, ambiguous: true}}
`

// Against the reference server, over stdio and streamable HTTP: each
// elicitation gets the case's reply (or, unscripted, a decline) and is
// recorded with it; structuredContent is checked against the output schema;
// a resource link is read through the suite's tool; a tool that requires
// tasks runs as one and its question reaches the case that made the call.
func TestCurrentProtocolFeaturesOnTheReferenceServer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("installs and runs an npm server")
	}
	entry := everythingServer(t)
	node, err := exec.LookPath("node")
	require.NoError(t, err, "npm without node")
	for _, tc := range []struct {
		transport string
		spec      func(t *testing.T) string
	}{
		{"stdio", func(*testing.T) string { return strconv.Quote(node) + " " + strconv.Quote(entry) + " stdio" }},
		{"streamable HTTP", func(t *testing.T) string { return everythingHTTP(t, node, entry) }},
	} {
		t.Run(tc.transport, func(t *testing.T) {
			r := runSuite(t, t.TempDir(), currentFeatureCases, env{"EVAL_SERVER": tc.spec(t)}, "-v")
			require.NoError(t, r.err, r.output)
			for _, name := range []string{"elicit accept", "elicit decline", "elicit unscripted", "structured", "link", "task"} {
				require.Equal(t, eval.Pass, r.records[name].Status, "%s: %s", name, r.records[name].Reason)
			}

			accepted := r.records["elicit accept"].ToolCalls[0]
			require.Len(t, accepted.Elicitations, 1)
			e := accepted.Elicitations[0]
			assert.Equal(t, "Please provide inputs for the following fields:", e.Message)
			assert.Contains(t, e.Fields, "name")
			assert.Equal(t, eval.ElicitAccept, e.Action)
			assert.True(t, e.Scripted)
			assert.Equal(t, "Ada Lovelace", e.Content["name"])
			assert.Contains(t, r.records["elicit accept"].Checks, eval.CheckResult{Check: "elicited trigger-elicitation-request accept", Passed: true})

			assert.Equal(t, eval.ElicitDecline, r.records["elicit decline"].ToolCalls[0].Elicitations[0].Action)
			unscripted := r.records["elicit unscripted"].ToolCalls[0].Elicitations
			require.Len(t, unscripted, 1)
			assert.Equal(t, eval.ElicitDecline, unscripted[0].Action)
			assert.False(t, unscripted[0].Scripted, "recorded as not scripted")

			structured := r.records["structured"].ToolCalls[0]
			assert.Empty(t, structured.OutputError, "the reference server's structured content matches its output schema")

			link := r.records["link"].ToolCalls
			require.Len(t, link, 2)
			assert.Len(t, link[0].Links, 2)
			assert.Equal(t, eval.ReadResourceTool, link[1].Name)
			assert.Equal(t, "demo://resource/dynamic/text/2", link[1].Resource)
			assert.Contains(t, link[1].Result, "[resource 2 <demo://resource/dynamic/text/2>, text/plain")

			task := r.records["task"].ToolCalls[0]
			require.NotNil(t, task.Task, "simulate-research-query requires to run as a task")
			assert.Equal(t, "completed", task.Task.Status)
			assert.Positive(t, task.Task.Polls)
			require.Len(t, task.Elicitations, 1, "the task's question reached the case")
			assert.Equal(t, []string{"interpretation"}, task.Elicitations[0].Fields)

			var sum eval.Summary
			data, err := os.ReadFile(filepath.Join(r.out, eval.SummaryFile))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &sum))
			srv := sum.Tools.Servers[0]
			assert.Equal(t, "2025-11-25", srv.Protocol, "the reference server speaks the initialize era")
			assert.Equal(t, 1, srv.ResourceReads)
			assert.Positive(t, srv.DefinitionTokens)
			stats := map[string]eval.ToolStats{}
			for _, st := range srv.Stats {
				stats[st.Name] = st
			}
			assert.Equal(t, 3, stats["trigger-elicitation-request"].Elicitations)
			assert.Equal(t, 1, stats["trigger-elicitation-request"].Unscripted)
			assert.Equal(t, []eval.ParameterUse{{Name: "location", Required: true, Calls: 1}}, stats["get-structured-content"].Parameters)
			assert.Contains(t, r.output, "mcpeval: elicitations no case scripted a reply to (declined): trigger-elicitation-request 1")
		})
	}
}

// server-filesystem started without directories takes the client's roots:
// the servers file's cwd, or EVAL_ROOTS. Offered the wrong root it denies
// the call, and the failure shows the server's stderr.
func TestFilesystemServerWorksThroughRoots(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("installs and runs an npm server")
	}
	entry := npmServer(t, "server-filesystem", filesystemVersion)
	node, err := exec.LookPath("node")
	require.NoError(t, err, "npm without node")
	data := t.TempDir()
	notes := filepath.Join(data, "notes.txt")
	require.NoError(t, os.WriteFile(notes, []byte("the tide turns at noon"), 0o644))
	dir := t.TempDir()
	serversFile := filepath.Join(dir, "mcp.json")
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"files": map[string]any{"command": node, "args": []string{entry}, "cwd": data},
	}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(serversFile, cfg, 0o644))
	cases := `
- case:
    name: "notes"
    category: "Files"
    input: "When does the tide turn?"
    expected: "At noon."
    checks: {contains: ["noon"]}
    reference:
      - {tool: read_text_file, args: {path: ` + strconv.Quote(notes) + `}}
`
	r := runSuite(t, dir, cases, env{"EVAL_SERVERS_FILE": serversFile}, "-v")
	require.NoError(t, r.err, r.output)
	assert.Equal(t, eval.Pass, r.records["notes"].Status, r.records["notes"].Reason)

	elsewhere := t.TempDir()
	r = runSuite(t, dir, cases, env{"EVAL_SERVERS_FILE": serversFile, "EVAL_ROOTS": elsewhere}, "-v")
	require.Error(t, r.err)
	call := r.records["notes"].ToolCalls[0]
	assert.True(t, call.IsError)
	assert.Contains(t, call.Result, "Access denied")
	assert.Contains(t, call.Stderr, "waiting for client to provide roots")
	assert.Contains(t, r.output, "stderr of files when read_text_file failed: ")
	assert.Contains(t, r.output, "Started without allowed directories - waiting for client to provide roots via MCP protocol")
}

// server-filesystem started with its own directory keeps it: no roots are
// configured, so the suite declares none and the server reads there (the
// suite's working directory never replaces it).
func TestFilesystemServerKeepsItsOwnDirectory(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("installs and runs an npm server")
	}
	entry := npmServer(t, "server-filesystem", filesystemVersion)
	node, err := exec.LookPath("node")
	require.NoError(t, err, "npm without node")
	data := t.TempDir()
	notes := filepath.Join(data, "notes.txt")
	require.NoError(t, os.WriteFile(notes, []byte("the tide turns at noon"), 0o644))
	dir := t.TempDir()
	serversFile := filepath.Join(dir, "mcp.json")
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"files": map[string]any{"command": node, "args": []string{entry, data}},
	}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(serversFile, cfg, 0o644))
	cases := `
- case:
    name: "notes"
    category: "Files"
    input: "When does the tide turn?"
    expected: "At noon."
    checks: {contains: ["noon"]}
    reference:
      - {tool: list_allowed_directories}
      - {tool: read_text_file, args: {path: ` + strconv.Quote(notes) + `}}
`
	r := runSuite(t, dir, cases, env{"EVAL_SERVERS_FILE": serversFile}, "-v")
	require.NoError(t, r.err, r.output)
	rec := r.records["notes"]
	assert.Equal(t, eval.Pass, rec.Status, rec.Reason)
	require.Len(t, rec.ToolCalls, 2)
	assert.Contains(t, rec.ToolCalls[0].Result, data, "its own directory")
	assert.NotContains(t, rec.ToolCalls[0].Result, dir, "not the suite's")
	assert.NotContains(t, r.output, "roots offered to files")

	// A misspelt reference tool stops the run before any case.
	bad := strings.Replace(cases, "{tool: read_text_file", "{tool: read_txt_file", 1)
	r = runSuite(t, t.TempDir(), bad, env{"EVAL_SERVERS_FILE": serversFile})
	require.Error(t, r.err)
	assert.Contains(t, r.output, `case "notes": reference[1]: no server offers the tool "read_txt_file" (did you mean read_text_file?)`)
	assert.Empty(t, r.records, "no case ran")
}

// A stateful server isolated per case: each case gets a fresh process and
// a fresh copy of the memory file, so what one case writes no later case
// sees, and the file the servers file names is left as it was; without
// isolation the write persists into the next run.
func TestMemoryServerCasesAreKeptApart(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("installs and runs an npm server")
	}
	entry := npmServer(t, "server-memory", memoryVersion)
	node, err := exec.LookPath("node")
	require.NoError(t, err, "npm without node")
	dir := t.TempDir()
	memoryFile := filepath.Join(dir, "memory.json")
	seed := `{"type":"entity","name":"Alice","entityType":"person","observations":["likes tea"]}` + "\n"
	cases := `
- case:
    name: "write"
    category: "Memory"
    input: "Remember Bob."
    expected: "Bob is remembered."
    checks: {contains: [Bob]}
    reference:
      - {tool: create_entities, args: {entities: [{name: Bob, entityType: person, observations: [likes coffee]}]}}
- case:
    name: "read"
    category: "Memory"
    input: "Whom do you remember?"
    expected: "Alice."
    checks: {contains: [Alice]}
    reference:
      - {tool: read_graph}
`
	for _, isolated := range []bool{true, false} {
		require.NoError(t, os.WriteFile(memoryFile, []byte(seed), 0o644))
		server := map[string]any{"command": node, "args": []string{entry}, "env": map[string]string{"MEMORY_FILE_PATH": memoryFile}}
		if isolated {
			server["isolation"], server["state"] = "case", []string{memoryFile}
		}
		cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"memory": server}})
		require.NoError(t, err)
		serversFile := filepath.Join(dir, "mcp.json")
		require.NoError(t, os.WriteFile(serversFile, cfg, 0o644))
		e := env{"EVAL_SERVERS_FILE": serversFile}

		r := runSuite(t, dir, cases, e, "-run", "Memory/write")
		require.NoError(t, r.err, r.output)
		r = runSuite(t, dir, cases, e, "-run", "Memory/read")
		require.NoError(t, r.err, r.output)
		read := r.records["read"]
		require.Len(t, read.ToolCalls, 1)
		assert.Contains(t, read.ToolCalls[0].Result, "Alice")
		kept, err := os.ReadFile(memoryFile)
		require.NoError(t, err)
		if isolated {
			assert.NotContains(t, read.ToolCalls[0].Result, "Bob", "another case's write is unseen")
			assert.Equal(t, seed, string(kept), "the memory file is left as it was")
			assert.Contains(t, r.output, "mcpeval: memory: cases kept apart: a fresh process per case, with a fresh copy of "+memoryFile)
		} else {
			assert.Contains(t, read.ToolCalls[0].Result, "Bob", "without isolation the write persists")
			assert.Contains(t, string(kept), "Bob")
		}
	}
}
