package agent

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/llm"
	"github.com/mcpeval/mcpeval/internal/mcpconn"
	"github.com/mcpeval/mcpeval/internal/sampleserver"
)

// pandasServer serves the sample server's pandas tools over streamable
// HTTP, on the module's datasets. It skips the test when python3 cannot
// import pandas (a failure under CI).
func pandasServer(t *testing.T) *mcpconn.Set {
	t.Helper()
	if _, err := sampleserver.PythonWithPandas(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err.Error())
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "datasets"))
	require.NoError(t, err)
	s := server.NewMCPServer("pandas", "1", server.WithInputSchemaValidation())
	// No test here is about the time limit: a loaded machine (other tests,
	// other builds) can take more than the default 10 s to start Python and
	// import pandas, which must not turn a correct run into a timeout.
	cfg := sampleserver.PandasConfig{Datasets: dir, Timeout: 2 * time.Minute}
	s.AddTools(sampleserver.NewPandas(cfg).Tools()...)
	hs := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(hs.Close)
	set, err := mcpconn.ConnectAll(context.Background(), []string{hs.URL + "/mcp"}, mcpconn.Options{})
	require.NoError(t, err)
	t.Cleanup(set.Close)
	return set
}

// runCode runs code through run_pandas on the employees dataset.
func runCode(t *testing.T, tools *mcpconn.Set, code string) eval.Attempt {
	t.Helper()
	res, err := tools.Call(context.Background(), CodeTool, map[string]any{"code": code, "dataset": "employees"})
	require.NoError(t, err)
	return eval.Attempt{Code: code, Dataset: "employees", Output: res.Text, Failed: res.IsError}
}

const salaryQuestion = "What is the average salary per department in the employees dataset?"

func TestRecoverSendsTheLatestErrorAndCode(t *testing.T) {
	tools := pandasServer(t)
	failed := runCode(t, tools, "result = df.groupby('dept')['salary'].mean()")
	require.True(t, failed.Failed, failed.Output)

	model := &script{turns: []llm.Response{
		answer("```python\nresult = df.groupby('department_name')['salary'].mean()\n```"),
		answer("The column is called department:\n```python\nresult = df.groupby('department')['salary'].mean().round(2)\n```"),
	}}
	rec, err := recoverCode(context.Background(), model, tools, Config{Model: "m", Counter: counter(t)}, recoveryInput{
		Question: salaryQuestion, Schema: "employees (df): id int64, department object, salary int64",
		Failed: failed, MaxAttempts: 2,
	})
	require.NoError(t, err)

	require.Len(t, model.got, 2, "one request per attempt, stopping at the first success")
	for i, req := range model.got {
		require.Len(t, req.Messages, 1, "a fresh request, not the agent's conversation")
		assert.Equal(t, "user", req.Messages[0].Role)
		assert.Empty(t, req.Tools, "the model is asked for code, not tool calls")
		assert.Equal(t, rec.Prompts[i], req.Messages[0].Content)
		assert.Contains(t, req.Messages[0].Content, salaryQuestion)
		assert.Contains(t, req.Messages[0].Content, "employees (df): id int64")
	}
	first, second := model.got[0].Messages[0].Content, model.got[1].Messages[0].Content
	assert.Contains(t, first, "KeyError: 'dept'")
	assert.Contains(t, first, "groupby('dept')")
	assert.Contains(t, second, "KeyError: 'department_name'", "attempt 2 carries attempt 1's error")
	assert.Contains(t, second, "groupby('department_name')", "and attempt 1's code")
	assert.NotContains(t, second, "groupby('dept')")
	assert.NotContains(t, second, "KeyError: 'dept'")

	require.Len(t, rec.Attempts, 2)
	assert.True(t, rec.Attempts[0].Failed)
	assert.Equal(t, "result = df.groupby('department_name')['salary'].mean()", rec.Attempts[0].Code)
	assert.False(t, rec.Attempts[1].Failed, rec.Attempts[1].Output)
	assert.Contains(t, rec.Attempts[1].Output, "Engineering")
	assert.True(t, recovered(rec))

	// Every attempt is recorded: prompt, reply with the code as a
	// run_pandas call, tool result.
	var roles []string
	for _, m := range rec.Conversation {
		roles = append(roles, m.Role)
	}
	assert.Equal(t, []string{"user", "assistant", "tool", "user", "assistant", "tool"}, roles)
	require.Len(t, rec.ToolCalls, 2)
	for i, tc := range rec.ToolCalls {
		assert.Equal(t, CodeTool, tc.Name)
		var args map[string]string
		require.NoError(t, json.Unmarshal([]byte(tc.Arguments), &args))
		assert.Equal(t, map[string]string{"code": rec.Attempts[i].Code, "dataset": "employees"}, args)
		assert.Equal(t, tc.ID, rec.Conversation[3*i+1].ToolCalls[0].ID)
		assert.Equal(t, tc.ID, rec.Conversation[3*i+2].ToolCallID)
		assert.Equal(t, tc.Result, rec.Conversation[3*i+2].Content)
		assert.Positive(t, tc.DurationMS)
	}
	assert.True(t, rec.ToolCalls[0].IsError)
	assert.Equal(t, 2, rec.Usage.Requests)
}

func TestRecoverStopsAtTheBudget(t *testing.T) {
	tools := pandasServer(t)
	failed := runCode(t, tools, "result = df['dept'].value_counts()")
	wrong := answer("```python\nresult = df['dept'].value_counts()\n```")

	model := &script{turns: []llm.Response{wrong, wrong, wrong}}
	rec, err := recoverCode(context.Background(), model, tools, Config{Model: "m"}, recoveryInput{
		Question: "Which dept has the most employees?", Failed: failed, MaxAttempts: 2})
	require.NoError(t, err)
	assert.Len(t, model.got, 2)
	require.Len(t, rec.Attempts, 2)
	assert.False(t, recovered(rec))
	for _, a := range rec.Attempts {
		assert.True(t, a.Failed)
		assert.Contains(t, a.Output, "KeyError: 'dept'")
	}

	none := &script{turns: []llm.Response{wrong}}
	rec, err = recoverCode(context.Background(), none, tools, Config{Model: "m"}, recoveryInput{Failed: failed, MaxAttempts: 0})
	require.NoError(t, err)
	assert.Empty(t, none.got, "no budget, no request")
	assert.Empty(t, rec.Attempts)
	assert.False(t, recovered(rec))
}

func TestRecoverProviderError(t *testing.T) {
	model := &script{err: errors.New("503 service unavailable")}
	rec, err := recoverCode(context.Background(), model, nil, Config{Model: "m"}, recoveryInput{
		Failed: eval.Attempt{Code: "result = df['x']", Dataset: "employees", Output: "KeyError: 'x'", Failed: true}, MaxAttempts: 2})
	require.EqualError(t, err, "503 service unavailable")
	assert.Len(t, model.got, 1)
	assert.Empty(t, rec.Attempts)
}

func TestExtractCode(t *testing.T) {
	tests := []struct {
		name, reply, want string
	}{
		{"python block", "Here:\n```python\nresult = df.head()\n```\nDone.", "result = df.head()"},
		{"plain block", "```\nresult = 1\n```", "result = 1"},
		{"python block preferred", "```text\nnot code\n```\n```py\nresult = 2\n```", "result = 2"},
		{"no fence", "  result = df['age'].mean()\n", "result = df['age'].mean()"},
		{"unclosed fence", "```python\nresult = 3\nx = 4", "result = 3\nx = 4"},
		{"longer fence holds backticks", "````python\ns = '```'\nresult = s\n````", "s = '```'\nresult = s"},
		{"indented fence", "  ```python\n  result = 5\n  ```", "result = 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, extractCode(tt.reply))
		})
	}
}

func TestRecoveryPromptFencesUntrustedText(t *testing.T) {
	code := "s = '```'\nresult = df[s]"
	prompt := recoveryPrompt("Q?", "", eval.Attempt{Code: code, Dataset: "employees", Output: "KeyError: '```'"})
	assert.Contains(t, prompt, "````python\n"+code+"\n````", "the fence is longer than the backticks inside")
	assert.Contains(t, prompt, "````\nKeyError: '```'\n````")
	assert.NotContains(t, prompt, "Datasets:", "no schema, no schema section")
	assert.Contains(t, prompt, `dataset "employees"`)
	assert.True(t, strings.HasSuffix(prompt, "must assign the answer to result."))
}

func TestExecutions(t *testing.T) {
	calls := []eval.ToolCall{
		{Name: "list_datasets", Result: "{}"},
		{Name: CodeTool, Arguments: `{"code":"result = df['dept']","dataset":"employees"}`, Result: "KeyError: 'dept'", IsError: true, DurationMS: 1500},
		{Name: CodeTool, Arguments: `not json`, Result: "invalid JSON arguments", IsError: true},
		{Name: CodeTool, Arguments: `{"code":"result = 1","dataset":"sales"}`, Result: "1"},
	}
	assert.Equal(t, []eval.Attempt{
		{Code: "result = df['dept']", Dataset: "employees", Output: "KeyError: 'dept'", Failed: true, Seconds: 1.5},
		{Output: "invalid JSON arguments", Failed: true},
		{Code: "result = 1", Dataset: "sales", Output: "1"},
	}, attempts(calls))
}

// recovered reports whether the last attempt of a recovery succeeded.
func recovered(r *recoveryRun) bool {
	return len(r.Attempts) > 0 && !r.Attempts[len(r.Attempts)-1].Failed
}
