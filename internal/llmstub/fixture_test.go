package llmstub

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const echoFixture = `
provider: test
shape: 'a reasoning field and a tool call field that must come back'
sources: [https://example.org/doc]
models:
  status: 200
  body: '{"object":"list","data":[{"id":"m:latest"}]}'
steps:
  - response:
      status: 200
      headers: {Content-Type: application/json, X-Step: "0"}
      body: |
        {"choices":[{"message":{"role":"assistant","reasoning_content":"think","tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"},"extra_content":{"sig":"S1"}},{"id":"b","function":{"name":"g","arguments":{"x":1}}}]}}]}
  - require:
      - echo: reasoning_content
      - echo: tool_calls[].extra_content
      - field: temperature
        equals: 0
        refuse: {status: 500, body: 'temperature refused'}
    refuse:
      status: 400
      headers: {Content-Type: application/json}
      body: '[{"error":{"message":"missing"}}]'
    response:
      status: 200
      body: '{"choices":[{"message":{"role":"assistant","content":"done"}}]}'
expect: {status: pass}
`

func writeFixture(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// postRaw sends body to the stub's chat endpoint and returns the status,
// headers and body of the answer.
func postRaw(t *testing.T, s *Server, body string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Post(s.BaseURL()+"/chat/completions", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, string(b)
}

func TestFixtureServesEachStepByteForByte(t *testing.T) {
	f, err := LoadFixture(writeFixture(t, "test-echo.yaml", echoFixture))
	require.NoError(t, err)
	assert.Equal(t, "test-echo", f.Name)
	s := Start(f.Respond, f.Options())
	defer s.Close()

	status, h, body := postRaw(t, s, `{"model":"m","messages":[{"role":"user","content":"q"}]}`)
	assert.Equal(t, 200, status)
	assert.Equal(t, "0", h.Get("X-Step"))
	assert.Equal(t, f.Steps[0].Response.Body, body, "the recorded body, byte for byte")

	kept := `{"model":"m","temperature":0,"messages":[{"role":"user","content":"q"},
		{"role":"assistant","reasoning_content":"think","tool_calls":[
			{"id":"a","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":{"sig":"S1"}},
			{"id":"b","type":"function","function":{"name":"g","arguments":"{\"x\":1}"}}]},
		{"role":"tool","tool_call_id":"a","content":"r"},{"role":"tool","tool_call_id":"b","content":"r"}]}`
	status, _, body = postRaw(t, s, kept)
	assert.Equal(t, 200, status)
	assert.Equal(t, f.Steps[1].Response.Body, body)
	assert.Empty(t, f.Refusals())

	status, _, body = postRaw(t, s, `{"messages":[{"role":"assistant","content":"x"},{"role":"assistant","content":"y"}]}`)
	assert.Equal(t, http.StatusInternalServerError, status, "a request past the last step")
	assert.Contains(t, body, "fixture test-echo has 2 steps; this request carries 2 assistant messages")

	resp, err := http.Get(s.BaseURL() + "/models")
	require.NoError(t, err)
	defer resp.Body.Close()
	list, _ := io.ReadAll(resp.Body)
	assert.Equal(t, f.Models.Body, string(list), "the recorded model list")
}

func TestFixtureRefusesARequestThatBreaksARule(t *testing.T) {
	f, err := LoadFixture(writeFixture(t, "test-echo.yaml", echoFixture))
	require.NoError(t, err)
	s := Start(f.Respond, f.Options())
	defer s.Close()

	// The follow-up as a client keeping every field would send it, then
	// spoiled one way per row.
	followUp := func(edit func(assistant map[string]any, body map[string]any)) string {
		var body map[string]any
		require.NoError(t, json.Unmarshal([]byte(`{"model":"m","temperature":0,"messages":[{"role":"user","content":"q"},
			{"role":"assistant","reasoning_content":"think","tool_calls":[
				{"id":"a","function":{"name":"f","arguments":"{}"},"extra_content":{"sig":"S1"}},
				{"id":"b","function":{"name":"g","arguments":"{\"x\":1}"}}]}]}`), &body))
		edit(body["messages"].([]any)[1].(map[string]any), body)
		out, err := json.Marshal(body)
		require.NoError(t, err)
		return string(out)
	}
	calls := func(a map[string]any) []any { return a["tool_calls"].([]any) }
	tests := []struct {
		name       string
		edit       func(assistant, body map[string]any)
		wantStatus int
		wantBody   string
		why        string
	}{
		{"reasoning dropped", func(a, _ map[string]any) { delete(a, "reasoning_content") },
			400, `[{"error":{"message":"missing"}}]`, "step 1: messages[1].reasoning_content is missing"},
		{"reasoning changed", func(a, _ map[string]any) { a["reasoning_content"] = "other" },
			400, `[{"error":{"message":"missing"}}]`, `step 1: messages[1].reasoning_content is "other", not "think" as the provider sent it`},
		{"extra content dropped", func(a, _ map[string]any) { delete(calls(a)[0].(map[string]any), "extra_content") },
			400, `[{"error":{"message":"missing"}}]`, "step 1: messages[1].tool_calls[0].extra_content is missing"},
		{"a call dropped", func(a, _ map[string]any) { a["tool_calls"] = calls(a)[:1] },
			400, `[{"error":{"message":"missing"}}]`, "step 1: messages[1].tool_calls has 1 elements, the provider sent 2"},
		{"temperature not 0", func(_, b map[string]any) { b["temperature"] = 1.401298464324817e-45 },
			500, "temperature refused", "step 1: field temperature is 1.401298464324817e-45, want 0"},
		{"temperature missing", func(_, b map[string]any) { delete(b, "temperature") },
			500, "temperature refused", "step 1: field temperature is missing"},
		{"all kept", func(map[string]any, map[string]any) {}, 200, f.Steps[1].Response.Body, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(f.Refusals())
			status, _, body := postRaw(t, s, followUp(tt.edit))
			assert.Equal(t, tt.wantStatus, status)
			assert.Equal(t, tt.wantBody, body)
			got := f.Refusals()[before:]
			if tt.why == "" {
				assert.Empty(t, got)
			} else {
				assert.Equal(t, []string{tt.why}, got)
			}
		})
	}
}

func TestFixtureHTTPRules(t *testing.T) {
	f, err := LoadFixture(writeFixture(t, "azure.yaml", `
provider: azure
shape: s
sources: [https://example.org]
steps:
  - require:
      - path: /openai/deployments/d/chat/completions
      - query: api-version
        equals: "2024-10-21"
      - header: api-key
      - header: Authorization
        prefix: "Bearer "
    refuse: {status: 401, body: denied}
    response: {body: ok}
expect: {status: pass}
`))
	require.NoError(t, err)
	s := Start(f.Respond, Options{})
	defer s.Close()
	tests := []struct {
		name, path string
		header     map[string]string
		want       string
	}{
		{"all kept", "/openai/deployments/d/chat/completions?api-version=2024-10-21", map[string]string{"api-key": "k", "Authorization": "Bearer k"}, ""},
		{"other path", "/openai/deployments/e/chat/completions?api-version=2024-10-21", map[string]string{"api-key": "k", "Authorization": "Bearer k"},
			`step 0: path "/openai/deployments/e/chat/completions", want "/openai/deployments/d/chat/completions"`},
		{"no api-version", "/openai/deployments/d/chat/completions", map[string]string{"api-key": "k", "Authorization": "Bearer k"},
			"step 0: query parameter api-version is missing"},
		{"other api-version", "/openai/deployments/d/chat/completions?api-version=2023-05-15", map[string]string{"api-key": "k", "Authorization": "Bearer k"},
			`step 0: query parameter api-version is "2023-05-15", want "2024-10-21"`},
		{"no api-key", "/openai/deployments/d/chat/completions?api-version=2024-10-21", map[string]string{"Authorization": "Bearer k"},
			"step 0: header api-key is missing"},
		{"not a bearer", "/openai/deployments/d/chat/completions?api-version=2024-10-21", map[string]string{"api-key": "k", "Authorization": "Basic k"},
			`step 0: header Authorization does not start with "Bearer "`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(f.Refusals())
			req, err := http.NewRequest(http.MethodPost, s.URL+tt.path, bytes.NewBufferString(`{"messages":[]}`))
			require.NoError(t, err)
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if tt.want == "" {
				assert.Equal(t, "ok", string(body))
				assert.Len(t, f.Refusals(), before)
				return
			}
			assert.Equal(t, 401, resp.StatusCode)
			assert.Equal(t, "denied", string(body))
			assert.Equal(t, []string{tt.want}, f.Refusals()[before:])
		})
	}
}

func TestLoadFixtureSaysWhatIsWrong(t *testing.T) {
	valid := "provider: p\nshape: s\nsources: [https://example.org]\nexpect: {status: pass}\n"
	tests := []struct{ name, text, want string }{
		{"unknown field", valid + "steps: [{response: {body: x}}]\ncolour: red\n", "field colour not found"},
		{"no sources", "provider: p\nshape: s\nsteps: [{response: {body: x}}]\nexpect: {status: pass}\n", "sources: name at least one public source"},
		{"source not a URL", "provider: p\nshape: s\nsources: [my notes]\nsteps: [{response: {body: x}}]\nexpect: {status: pass}\n", `sources: "my notes" is not an https URL`},
		{"no steps", valid, "steps: at least one response is required"},
		{"empty body", valid + "steps: [{response: {status: 200}}]\n", "steps[0].response.body is empty"},
		{"bad status", "provider: p\nshape: s\nsources: [https://x.org]\nsteps: [{response: {body: x}}]\nexpect: {status: ok}\n", `expect.status "ok": want pass, fail, error, cut or token_limit`},
		{"rule without refusal", valid + "steps: [{response: {body: x}}, {require: [{echo: content}], response: {body: y}}]\n",
			"steps[1].require[0]: no refuse"},
		{"echo on the first step", valid + "steps: [{require: [{echo: content}], refuse: {body: r}, response: {body: y}}]\n",
			"steps[0].require[0]: echo needs a previous step"},
		{"two kinds in a rule", valid + "steps: [{require: [{field: a, header: b}], refuse: {body: r}, response: {body: y}}]\n",
			"steps[0].require[0]: set exactly one of echo, field, header, query and path"},
		{"prefix on a field", valid + "steps: [{require: [{field: a, prefix: b}], refuse: {body: r}, response: {body: y}}]\n",
			"steps[0].require[0]: prefix applies to header and query only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFixture(t, "bad.yaml", tt.text)
			_, err := LoadFixture(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), path)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// The corpus itself: every fixture loads, cites its sources and records
// JSON bodies, and the tool calls it records are the ones the end-to-end
// test expects.
func TestProviderCorpus(t *testing.T) {
	fixtures, err := LoadFixtures(filepath.Join("..", "..", "testdata", "providers"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(fixtures), 20)
	providers := map[string]bool{}
	for _, f := range fixtures {
		providers[f.Provider] = true
		t.Run(f.Name, func(t *testing.T) {
			assert.True(t, strings.HasPrefix(f.Name, strings.ReplaceAll(f.Provider, ".", "")+"-"), "file named <provider>-<shape>.yaml")
			assert.NotEmpty(t, f.Notes)
			var bodies []string
			for _, s := range f.Steps {
				bodies = append(bodies, s.Response.Body)
				if s.Refuse != nil {
					bodies = append(bodies, s.Refuse.Body)
				}
				for _, r := range s.Require {
					if r.Refuse != nil {
						bodies = append(bodies, r.Refuse.Body)
					}
				}
			}
			for i, b := range bodies {
				assert.True(t, json.Valid([]byte(b)), "body %d is not JSON: %s", i, b)
			}
			var names []string
			for _, c := range f.Calls() {
				names = append(names, c.Name)
				assert.True(t, json.Valid([]byte(c.Arguments)), "arguments %q", c.Arguments)
			}
			if f.Expect.ToolCalls != nil {
				assert.Equal(t, f.Expect.ToolCalls, names, "expect.tool_calls are the recorded calls")
			}
		})
	}
	for _, p := range []string{"openai", "openrouter", "gemini", "deepseek", "mistral", "groq", "ollama", "vllm", "llama.cpp", "lmstudio", "azure"} {
		assert.True(t, providers[p], "the corpus covers %s", p)
	}
}
