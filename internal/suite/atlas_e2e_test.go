package suite_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/junit"
	"github.com/mcpeval/mcpeval/internal/llmstub"
	"github.com/mcpeval/mcpeval/internal/rundata"
)

// memoryVersion is the version of @modelcontextprotocol/server-memory the
// tests install, the one MCP-Atlas pins.
const memoryVersion = "2025.8.4"

// atlasTask is one MCP-Atlas task of ../shared/data/mcp-atlas/tasks.jsonl.
type atlasTask struct {
	ID      string   `json:"id"`
	Servers []string `json:"servers_needed"`
	Prompt  string   `json:"prompt"`
	Claims  []string `json:"claims"`
	Data    []string `json:"data"`
}

// atlas returns the public MCP-Atlas data directory and the tasks that run
// offline on server-filesystem and server-memory (those whose data files
// are all here), skipping the test when the data is absent.
func atlas(t *testing.T) (string, []atlasTask) {
	t.Helper()
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	dir := filepath.Join(root, "..", "shared", "data", "mcp-atlas")
	f, err := os.Open(filepath.Join(dir, "tasks.jsonl"))
	if err != nil {
		t.Skipf("MCP-Atlas's public tasks are not here (%v): they come with the project's shared data", err)
	}
	defer f.Close()
	var tasks []atlasTask
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var task atlasTask
		require.NoError(t, json.Unmarshal(sc.Bytes(), &task))
		offline := len(task.Data) > 0
		for _, s := range task.Servers {
			offline = offline && (s == "filesystem" || s == "memory")
		}
		for _, d := range task.Data {
			_, err := os.Stat(filepath.Join(dir, d))
			offline = offline && err == nil
		}
		// MCP-Atlas mounts its data as /data: a path the claims name must be here.
		for _, p := range dataPathRE.FindAllString(strings.Join(task.Claims, " "), -1) {
			_, err := os.Stat(filepath.Join(dir, strings.TrimPrefix(p, "/data/")))
			offline = offline && err == nil
		}
		if offline {
			tasks = append(tasks, task)
		}
	}
	require.NoError(t, sc.Err())
	return dir, tasks
}

// dataPathRE finds a path under MCP-Atlas's data mount.
var dataPathRE = regexp.MustCompile("/data/[^\\s`'\"]+")

// atlasCases writes MCP-Atlas tasks as cases graded by their claims, at
// MCP-Atlas's pass mark, each with a reference trajectory that lists the
// data directory and reads the task's files (and the memory graph).
func atlasCases(t *testing.T, dir string, tasks []atlasTask) string {
	t.Helper()
	var items []map[string]any
	for _, task := range tasks {
		ref := []map[string]any{{"tool": "list_directory", "args": map[string]any{"path": dir}}}
		for _, d := range task.Data {
			if strings.HasSuffix(d, ".json") {
				ref = append(ref, map[string]any{"tool": "read_graph", "args": map[string]any{}})
				continue
			}
			ref = append(ref, map[string]any{"tool": "read_text_file", "args": map[string]any{"path": filepath.Join(dir, d)}})
		}
		items = append(items, map[string]any{"case": map[string]any{
			"name": "atlas " + task.ID, "category": "MCP-Atlas", "input": task.Prompt,
			"claims": task.Claims, "pass_coverage": 0.75, "reference": ref,
		}})
	}
	data, err := yaml.Marshal(items)
	require.NoError(t, err)
	return string(data)
}

// atlasServers writes a servers file with server-filesystem started on
// the data directory and server-memory on a copy of MCP-Atlas's memory
// file, which the server rewrites, each case with a fresh copy of its own.
func atlasServers(t *testing.T, dir, work string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found: install Node.js and npm to run MCP-Atlas's tasks")
	}
	fs := npmServer(t, "server-filesystem", filesystemVersion)
	memory := npmServer(t, "server-memory", memoryVersion)
	graph, err := os.ReadFile(filepath.Join(dir, "memories-for-mcp.json"))
	require.NoError(t, err)
	memoryFile := filepath.Join(work, "memories-for-mcp.json")
	require.NoError(t, os.WriteFile(memoryFile, graph, 0o644))
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"filesystem": map[string]any{"command": node, "args": []string{fs, dir}},
		"memory": map[string]any{"command": node, "args": []string{memory}, "env": map[string]string{"MEMORY_FILE_PATH": memoryFile},
			"isolation": "case", "state": []string{memoryFile}},
	}})
	require.NoError(t, err)
	path := filepath.Join(work, "mcp.json")
	require.NoError(t, os.WriteFile(path, cfg, 0o644))
	return path
}

// The offline reference run on MCP-Atlas's tasks, whose answers are
// computed from CSV files: each claim is decided by the facts the
// reference trajectory's results hold, found as written or computed from
// them (an average over the first five weeks, over the assaults from 2017
// to 2020, a difference of two such facts), and every task passes.
func TestReferenceRunOnMCPAtlasTasksComputedFromTheData(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("installs and runs npm servers")
	}
	dir, tasks := atlas(t)
	require.GreaterOrEqual(t, len(tasks), 7, "MCP-Atlas's seven offline tasks")
	work := t.TempDir()
	servers := atlasServers(t, dir, work)
	r := runSuite(t, work, atlasCases(t, dir, tasks), env{"EVAL_SERVERS_FILE": servers, "EVAL_REFERENCE": "1"}, "-v")
	require.NoError(t, r.err, r.output)
	computed := 0
	for _, task := range tasks {
		rec := r.records["atlas "+task.ID]
		assert.Equal(t, eval.Pass, rec.Status, "%s: %s\n%s", task.ID, rec.Reason, strings.Join(eval.ClaimLines(rec.Claims), "\n"))
		require.Len(t, rec.Claims, len(task.Claims), task.ID)
		for _, f := range rec.Facts {
			if f.Status == eval.FactComputed {
				computed++
			}
		}
	}
	assert.GreaterOrEqual(t, computed, 5, "averages, shares and differences computed from the CSV files")
	pet := r.records["atlas 5c6d7e8f9a"]
	require.NotEmpty(t, pet.Facts)
	assert.Equal(t, eval.Fact{Fact: "6,446.20", Status: eval.FactComputed, How: "the mean of Weekly Profits over the first 5 rows"}, pet.Facts[0])

	// A stale claim is caught: the same run with a claim the data does not
	// support fails it, and says which fact is missing.
	stale := []atlasTask{tasks[0]}
	stale[0].Claims = append([]string{}, stale[0].Claims...)
	stale[0].Claims[0] = strings.Replace(stale[0].Claims[0], "6,446.20", "6,466.20", 1)
	r = runSuite(t, t.TempDir(), atlasCases(t, dir, stale), env{"EVAL_SERVERS_FILE": servers, "EVAL_REFERENCE": "1"}, "-v")
	rec := r.records["atlas "+stale[0].ID]
	require.Len(t, rec.Claims, len(stale[0].Claims))
	assert.Equal(t, eval.ClaimNot, rec.Claims[0].Verdict)
	assert.Contains(t, rec.Claims[0].Reason, "6,466.20")
	assert.Equal(t, eval.Fail, rec.Status, "two of three claims: coverage 0.67, below 0.75")
}

// A case graded by claims, against a model and a judge: one judge request
// returns a verdict per claim; the case passes when their mean reaches
// pass_coverage; each claim's verdict is in the terminal, the record, the
// JUnit message and the report.
func TestClaimsGradedOneByOne(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("installs and runs npm servers")
	}
	dir, tasks := atlas(t)
	var pet atlasTask
	for _, task := range tasks {
		if task.ID == "5c6d7e8f9a" {
			pet = task
		}
	}
	require.NotEmpty(t, pet.ID, "the pet store task")
	work := t.TempDir()
	servers := atlasServers(t, dir, work)
	cases := atlasCases(t, dir, []atlasTask{pet})
	// The model reads the file, then answers with the first two claims
	// only; the judge finds a claim fulfilled when the answer holds its
	// numbers, partly when it holds some of them.
	numberRE := regexp.MustCompile(`\d[\d,]*\.\d+`)
	answer := pet.Claims[0] + " " + pet.Claims[1]
	stub := llmstub.Start(func(req llmstub.Request) llmstub.Reply {
		if req.ForcedTool() == llmstub.ClaimsTool {
			var verdicts []string
			for _, claim := range req.Claims() {
				held, numbers := 0, numberRE.FindAllString(claim, -1)
				for _, n := range numbers {
					if strings.Contains(req.GradedAnswer(), n) {
						held++
					}
				}
				verdicts = append(verdicts, map[bool]string{true: "fulfilled", false: "not"}[held == len(numbers)])
			}
			return llmstub.ClaimVerdicts(req, verdicts...)
		}
		for _, m := range req.Messages {
			if m.Role == "tool" {
				return llmstub.Reply{Content: answer}
			}
		}
		return llmstub.Reply{ToolCalls: []llmstub.Call{{Name: "read_text_file", Arguments: fmt.Sprintf(`{"path":%q}`, filepath.Join(dir, pet.Data[0]))}}}
	}, llmstub.Options{})
	defer stub.Close()
	r := runSuite(t, work, cases, env{"EVAL_SERVERS_FILE": servers, "OPENAI_BASE_URL": stub.BaseURL(), "EVAL_MODEL": "stub"}, "-v")
	require.Error(t, r.err, "two of three claims: 0.67, below 0.75")
	rec := r.records["atlas "+pet.ID]
	assert.Equal(t, eval.Fail, rec.Status, rec.Reason)
	require.Len(t, rec.Claims, 3)
	assert.Equal(t, []string{eval.ClaimFulfilled, eval.ClaimFulfilled, eval.ClaimNot}, []string{rec.Claims[0].Verdict, rec.Claims[1].Verdict, rec.Claims[2].Verdict})
	require.NotNil(t, rec.Coverage)
	assert.InDelta(t, 2.0/3, *rec.Coverage, 1e-9)
	assert.Contains(t, rec.Reason, "claim 1 fulfilled, claim 2 fulfilled, claim 3 not; coverage 0.67 of 3 claims, 0.75 needed")
	assert.Contains(t, r.output, "claim 3 not: "+pet.Claims[2], "the terminal names each claim's verdict")
	assert.Equal(t, 1, countJudgeRequests(stub), "one judge request for all the claims")
	assert.Contains(t, rec.JudgeReply, `"quote":`, "the judge's reply is kept")
	assert.Contains(t, rec.JudgePrompt, pet.Claims[2], "and what it was asked")

	// The report holds each claim; its JUnit file names them.
	data, err := rundata.Load(r.out, nil)
	require.NoError(t, err)
	var shown *eval.Record
	for _, c := range data.Cases {
		if c.Name == "atlas "+pet.ID && c.Record != nil {
			shown = c.Record
		}
	}
	require.NotNil(t, shown, "the report holds the case's record")
	require.Len(t, shown.Claims, 3)
	var junitFile strings.Builder
	require.NoError(t, junit.Write(&junitFile, data, r.out))
	assert.Contains(t, junitFile.String(), "claim 3 not: "+pet.Claims[2])

	// At a lower pass mark the same answer passes.
	lower := strings.Replace(cases, "pass_coverage: 0.75", "pass_coverage: 0.6", 1)
	r = runSuite(t, t.TempDir(), lower, env{"EVAL_SERVERS_FILE": servers, "OPENAI_BASE_URL": stub.BaseURL(), "EVAL_MODEL": "stub"}, "-v")
	require.NoError(t, r.err, r.output)
	assert.Equal(t, eval.Pass, r.records["atlas "+pet.ID].Status)
}

// countJudgeRequests counts the requests that forced the claims tool.
func countJudgeRequests(stub *llmstub.Server) int {
	n := 0
	for _, req := range stub.Received() {
		if req.ForcedTool() == llmstub.ClaimsTool {
			n++
		}
	}
	return n
}
