package suite_test

// The suite against a real inference server: Ollama, built from
// testdata/ollama, serving a tiny llama with hand-set weights
// (internal/tinyllama) through its own chat template, tool-call parser,
// sampler and usage, on both of its engines.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/tinyllama"
)

// tinyModel plays the agent and the judge of ollamaCases: asked about
// NUTM2G (CFTR) it calls get_gene_by_symbol, once a tool result is in the
// context it answers with the gene's Entrez id, and asked for a verdict it
// submits "yes". Its replies are fixed: they come from the weights, not
// from reading the tool result.
var tinyModel = tinyllama.Model{
	Specials: []string{"<|tools|>", "<|system|>", "<|user|>", "<|assistant|>", "<|tool|>", "<|end|>"},
	Start:    "<|assistant|>",
	Markers:  []string{"verdict", "<|tool|>", "CFTR"},
	Replies: []tinyllama.Reply{
		{Tokens: []string{`<tool_call>{"name": "get_gene_by_symbol", "arguments": {"gene_symbol": "NUTM2G"}}`, "</tool_call>"}},
		{When: []string{"CFTR"}, Tokens: []string{`<tool_call>{"name": "get_gene_by_symbol", "arguments": {"gene_symbol": "CFTR"}}`, "</tool_call>"}},
		{When: []string{"<|tool|>"}, Tokens: []string{"NUTM2G has the Entrez id 441457", ", as get_gene_by_symbol says."}},
		{When: []string{"<|tool|>", "CFTR"}, Tokens: []string{"CFTR has the Entrez id 1080", ", as get_gene_by_symbol says."}},
		{When: []string{"verdict"}, Tokens: []string{`<tool_call>{"name": "submit_verdict", `, `"arguments": {"verdict": "yes", "reason": "` + tinyReason + `"}}`, "</tool_call>"}},
	},
}

const tinyReason = "the answer gives the expected Entrez id"

// tinyTemplate is the model's chat template. Ollama takes the text after
// {{ if .ToolCalls }}, <tool_call>, for the tag that starts a tool call in
// the model's output.
const tinyTemplate = `{{- if .Tools }}<|tools|>{{ range .Tools }} {{ .Function.Name }}{{ end }}
{{ end }}
{{- range .Messages }}
{{- if eq .Role "system" }}<|system|>{{ .Content }}
{{- else if eq .Role "user" }}<|user|>{{ .Content }}
{{- else if eq .Role "assistant" }}<|assistant|>{{ .Content }}
{{- if .ToolCalls }}<tool_call>{{ range .ToolCalls }}{"name": "{{ .Function.Name }}", "arguments": {{ .Function.Arguments }}}{{ end }}</tool_call>{{ end }}<|end|>
{{- else if eq .Role "tool" }}<|tool|>{{ .Content }}
{{- end }}
{{- end }}<|assistant|>`

var ollamaCases = []struct {
	name, question, symbol, id, answer string
}{
	{"NUTM2G Entrez id", "What is the Entrez id of NUTM2G?", "NUTM2G", "441457", "NUTM2G has the Entrez id 441457, as get_gene_by_symbol says."},
	{"CFTR Entrez id", "What is the Entrez id of CFTR?", "CFTR", "1080", "CFTR has the Entrez id 1080, as get_gene_by_symbol says."},
}

func ollamaCaseFile() string {
	var b strings.Builder
	for _, c := range ollamaCases {
		fmt.Fprintf(&b, `
- case:
    name: %q
    category: "Gene and Variant Utilities"
    input: %q
    expected: %q
    checks: {contains: [%q]}
    tools:
      must_call: [get_gene_by_symbol]
      args:
        - {tool: get_gene_by_symbol, args: {gene_symbol: %s}}
`, c.name, c.question, "The Entrez id is "+c.id+".", c.id, c.symbol)
	}
	return b.String()
}

// The suite runs cases with tool calls and the judge against Ollama on its
// llama.cpp runner and on its own engine: every case passes with the tiny
// model's greedy replies, and the records' usage is what Ollama reported.
func TestOllama(t *testing.T) {
	bin := ollamaBinary(t)
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "tiny.gguf"))
	require.NoError(t, err)
	require.NoError(t, tinyModel.Write(f))
	require.NoError(t, f.Close())
	// tiny has room for the cases; tiny-short's context window of 512
	// tokens is too small for a long question, which Ollama cuts;
	// tiny-terse writes one token of each reply.
	models := map[string]string{}
	for name, params := range map[string]string{"tiny": "num_ctx 8192", "tiny-short": "num_ctx 512", "tiny-terse": "num_predict 1"} {
		models[name] = filepath.Join(dir, name+".Modelfile")
		require.NoError(t, os.WriteFile(models[name], []byte(fmt.Sprintf("FROM %s\nTEMPLATE \"\"\"%s\"\"\"\nPARAMETER %s\n", f.Name(), tinyTemplate, params)), 0o644))
	}
	// tiny-broken's template does not render tools: Ollama refuses every
	// request that offers some ("does not support tools").
	models["tiny-broken"] = filepath.Join(dir, "tiny-broken.Modelfile")
	require.NoError(t, os.WriteFile(models["tiny-broken"], []byte(fmt.Sprintf("FROM %s\nTEMPLATE \"\"\"{{ index .Messages 99 }}\"\"\"\n", f.Name())), 0o644))

	// The greedy reply to askCFTR, as the OpenAI-compatible endpoint
	// gives it.
	const greedyCall = `"name":"get_gene_by_symbol","arguments":"{\"gene_symbol\":\"CFTR\"}"`
	for _, engine := range []struct {
		name, env string
		runner    string // how the log shows the runner started for the model
	}{
		{"llama.cpp runner", "", " runner --model "},
		{"Ollama engine", "OLLAMA_NEW_ENGINE=1", " runner --ollama-engine --model "},
	} {
		t.Run(engine.name, func(t *testing.T) {
			base, logPath := startOllama(t, bin, models, engine.env)
			t.Run("temperature 0 gives the greedy reply", func(t *testing.T) {
				status, reply := askCFTR(t, base, 0)
				require.Equal(t, http.StatusOK, status, reply)
				assert.Contains(t, reply, greedyCall)
			})
			t.Run("temperature 1 does not", func(t *testing.T) {
				status, reply := askCFTR(t, base, 1)
				require.Equal(t, http.StatusOK, status, reply)
				assert.NotContains(t, reply, `"tool_calls"`, "a sample strays from the greedy reply")
				t.Logf("temperature 1: %s", reply)
			})
			t.Run("suite", func(t *testing.T) { runSuiteOnOllama(t, base) })
			t.Run("fail, cut, token limit and error", func(t *testing.T) { runOutcomesOnOllama(t, base) })
			if engine.env == "" {
				// The llama.cpp sampler takes the temperature as given:
				// a denormal one makes invalid probabilities and the
				// runner aborts. Only 0 means greedy.
				t.Run("temperature 1e-45 is not 0", func(t *testing.T) {
					status, reply := askCFTR(t, base, 1e-45)
					assert.True(t, status != http.StatusOK || !strings.Contains(reply, greedyCall),
						"the runner aborts, or samples: never the greedy reply of 0 (HTTP %d %s)", status, reply)
					t.Logf("temperature 1e-45: HTTP %d %s", status, reply)
				})
			}
			log, err := os.ReadFile(logPath)
			require.NoError(t, err)
			assert.Contains(t, string(log), engine.runner, "the model ran on the %s", engine.name)
		})
	}
}

// runSuiteOnOllama runs ollamaCases through a proxy that records what
// Ollama answered, and checks the records against it.
func runSuiteOnOllama(t *testing.T, base string) {
	proxy := &chatRecorder{target: base}
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	r := runSuite(t, t.TempDir(), ollamaCaseFile(), env{
		"OPENAI_BASE_URL": srv.URL + "/v1", "EVAL_MODEL": "tiny", "EVAL_MAX_RETRIES": "0",
	}, "-v")
	require.NoError(t, r.err, r.output)

	for _, c := range ollamaCases {
		rec := r.records[c.name]
		assert.Equal(t, eval.Pass, rec.Status, "%s: %s", c.name, rec.Reason)
		assert.Equal(t, c.answer, rec.Response, "the greedy answer")
		require.Len(t, rec.ToolCalls, 1, c.name)
		assert.Equal(t, "get_gene_by_symbol", rec.ToolCalls[0].Name)
		assert.JSONEq(t, fmt.Sprintf(`{"gene_symbol":%q}`, c.symbol), rec.ToolCalls[0].Arguments)
		assert.Contains(t, rec.ToolCalls[0].Result, c.id)
		assert.False(t, rec.ToolCalls[0].IsError)
		assert.Equal(t, "yes", rec.Verdict)
		require.Len(t, rec.Judges, 1)
		assert.Equal(t, eval.JudgeVerdict{Model: "tiny", Verdict: "yes", Reason: tinyReason}, rec.Judges[0], "the verdict of the tiny model")

		// Usage: two agent turns and the judge, as Ollama counted them.
		var want eval.Usage
		for _, ex := range proxy.exchanges() {
			if strings.Contains(ex.request, c.question) {
				want.PromptTokens += ex.usage.PromptTokens
				want.CompletionTokens += ex.usage.CompletionTokens
				want.Requests++
			}
		}
		assert.Equal(t, 3, want.Requests)
		assert.Positive(t, want.PromptTokens)
		assert.Equal(t, want.PromptTokens, rec.Usage.PromptTokens, "prompt tokens")
		assert.Equal(t, want.CompletionTokens, rec.Usage.CompletionTokens, "completion tokens")
		assert.Equal(t, want.Requests, rec.Usage.Requests)
		assert.False(t, rec.Usage.Estimated)
		t.Logf("%s: %s, %q, verdict %s (%s), %d requests, %d prompt and %d completion tokens as Ollama reported",
			c.name, rec.Status, rec.Response, rec.Verdict, rec.Reason, rec.Usage.Requests, rec.Usage.PromptTokens, rec.Usage.CompletionTokens)
	}
	for _, ex := range proxy.exchanges() {
		assert.Equal(t, http.StatusOK, ex.status, ex.reply)
		if assert.NotNil(t, ex.temperature, "a temperature is sent") {
			assert.Zero(t, *ex.temperature, "temperature 0 is sent as 0")
		}
	}
}

// unloadModels asks Ollama to unload every model it has loaded
// (keep_alive 0) and waits until none is.
func unloadModels(t *testing.T, base string) {
	t.Helper()
	loaded := func() []string {
		resp, err := http.Get(base + "/api/ps")
		require.NoError(t, err)
		defer resp.Body.Close()
		var ps struct {
			Models []struct{ Name string } `json:"models"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&ps))
		var names []string
		for _, m := range ps.Models {
			names = append(names, m.Name)
		}
		return names
	}
	for _, name := range loaded() {
		body, err := json.Marshal(map[string]any{"model": name, "keep_alive": 0})
		require.NoError(t, err)
		resp, err := http.Post(base+"/api/generate", "application/json", bytes.NewReader(body))
		require.NoError(t, err)
		resp.Body.Close()
	}
	require.Eventually(t, func() bool { return len(loaded()) == 0 }, 30*time.Second, 50*time.Millisecond, "Ollama unloads its models")
}

// runOutcomesOnOllama runs cases that do not pass against the real server
// and checks each ends as it should: an answer the checks refuse fails, a
// reply cut at the output limit is cut, a question longer than the
// model's context window, which Ollama cuts silently, is a token limit
// that names num_ctx, and a request Ollama refuses (tools for a model
// whose template has none) is an error quoting it.
func runOutcomesOnOllama(t *testing.T, base string) {
	// The tiny model answers 441457 for NUTM2G; the case expects another id.
	wrong := strings.Replace(ollamaCaseFile(), `contains: ["441457"]`, `contains: ["441458"]`, 1)
	wrong = strings.Replace(wrong, "The Entrez id is 441457.", "The Entrez id is 441458.", 1)
	r := runSuite(t, t.TempDir(), wrong, env{"OPENAI_BASE_URL": base + "/v1", "EVAL_MODEL": "tiny", "EVAL_MAX_RETRIES": "0"}, "-run", "/NUTM2G")
	require.Error(t, r.err, r.output)
	rec := r.records["NUTM2G Entrez id"]
	assert.Equal(t, eval.Fail, rec.Status, rec.Reason)
	assert.Contains(t, rec.Reason, "441458")

	// One output token (num_predict 1): the tool call's first token, then
	// Ollama stops with finish_reason length.
	r = runSuite(t, t.TempDir(), ollamaCaseFile(), env{"OPENAI_BASE_URL": base + "/v1", "EVAL_MODEL": "tiny-terse", "EVAL_MAX_RETRIES": "0"}, "-run", "/CFTR")
	require.Error(t, r.err, r.output)
	rec = r.records["CFTR Entrez id"]
	assert.Equal(t, eval.Cut, rec.Status, rec.Reason)
	assert.Contains(t, rec.Reason, "length")

	// A question of about 2,400 tokens (cl100k_base) and 9,600 of the
	// tiny model's bytes, in a context window of 512. The runners of the
	// same weights with a larger window are unloaded first: Ollama may
	// otherwise answer with one of them, which cuts nothing. Ollama's
	// own engine sometimes breaks such a reply off under CPU load (null
	// finish_reason, zero usage): the suite retries it as it would any
	// unfinished reply.
	unloadModels(t, base)
	long := strings.Replace(ollamaCaseFile(), "What is the Entrez id of CFTR?", strings.Repeat("The patient's exome shows a variant of uncertain significance. ", 150)+"What is the Entrez id of CFTR?", 1)
	r = runSuite(t, t.TempDir(), long, env{"OPENAI_BASE_URL": base + "/v1", "EVAL_MODEL": "tiny-short", "EVAL_MAX_RETRIES": "3"}, "-run", "/CFTR")
	require.Error(t, r.err, r.output)
	rec = r.records["CFTR Entrez id"]
	assert.Equal(t, eval.TokenLimit, rec.Status, rec.Reason)
	assert.Contains(t, rec.Reason, "the provider cut the prompt to fit the model's context window: it counted ")
	assert.Contains(t, rec.Reason, "Ollama: num_ctx")
	assert.Equal(t, 1, rec.Usage.Requests, "the case stops at the cut request")
	assert.LessOrEqual(t, rec.Usage.PromptTokens, 512, "Ollama's count: what it kept")

	r = runSuite(t, t.TempDir(), ollamaCaseFile(), env{"OPENAI_BASE_URL": base + "/v1", "EVAL_MODEL": "tiny-broken", "EVAL_MAX_RETRIES": "0", "EVAL_JUDGE_MODEL": "tiny"}, "-run", "/CFTR")
	require.Error(t, r.err, r.output)
	rec = r.records["CFTR Entrez id"]
	assert.Equal(t, eval.Error, rec.Status, rec.Reason)
	assert.Contains(t, rec.Reason, "provider error (HTTP 400): ")
	assert.Contains(t, rec.Reason, "does not support tools")
}

// askCFTR asks Ollama's OpenAI-compatible endpoint the CFTR question at a
// temperature, with a fixed seed and at most 8 tokens, and returns the
// status and body of the reply.
func askCFTR(t *testing.T, base string, temperature float64) (int, string) {
	t.Helper()
	body, err := json.Marshal(map[string]any{
		"model": "tiny", "temperature": temperature, "seed": 1, "max_tokens": 8,
		"messages": []any{map[string]string{"role": "user", "content": ollamaCases[1].question}},
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{
			"name": "get_gene_by_symbol", "parameters": json.RawMessage(`{"type":"object","properties":{"gene_symbol":{"type":"string"}}}`),
		}}},
	})
	require.NoError(t, err)
	resp, err := http.Post(base+"/v1/chat/completions", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(reply)
}

// chatRecorder passes requests on to target and records every chat
// completion.
type chatRecorder struct {
	target string
	mu     sync.Mutex
	log    []exchange
}

// exchange is one chat completion: the request, its temperature, and the
// reply with the usage the server reported.
type exchange struct {
	request, reply string
	status         int
	temperature    *float64
	usage          struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	}
}

func (c *chatRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, c.target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if r.URL.Path == "/v1/chat/completions" {
		ex := exchange{request: string(body), reply: string(reply), status: resp.StatusCode}
		var sent struct {
			Temperature *float64 `json:"temperature"`
		}
		var got struct {
			Usage *json.RawMessage `json:"usage"`
		}
		if json.Unmarshal(body, &sent) == nil && json.Unmarshal(reply, &got) == nil && got.Usage != nil {
			_ = json.Unmarshal(*got.Usage, &ex.usage)
		}
		ex.temperature = sent.Temperature
		c.mu.Lock()
		c.log = append(c.log, ex)
		c.mu.Unlock()
	}
	maps.Copy(w.Header(), resp.Header)
	w.WriteHeader(resp.StatusCode)
	w.Write(reply)
}

func (c *chatRecorder) exchanges() []exchange {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]exchange(nil), c.log...)
}

// ollamaBinary returns the Ollama to test: MCPEVAL_OLLAMA names it, or is
// "build" to build it from testdata/ollama (make test-ollama); unset, the
// test is skipped.
func ollamaBinary(t *testing.T) string {
	return binaryUnderTest(t, "MCPEVAL_OLLAMA", buildOllama, "the test against a real Ollama runs under make test-ollama, "+
		"which builds Ollama from testdata/ollama (minutes the first time); MCPEVAL_OLLAMA=/path/to/ollama runs it with an Ollama of your own")
}

// binaryUnderTest returns the program a test of a real server runs: the
// file the variable names, or what build builds when it says "build"; the
// test is skipped with why when it is unset.
func binaryUnderTest(t *testing.T, variable string, build func(*testing.T) string, why string) string {
	t.Helper()
	switch bin := os.Getenv(variable); bin {
	case "":
		t.Skip(why)
	case "build":
		return build(t)
	default:
		_, err := os.Stat(bin)
		require.NoError(t, err, "%s names no file", variable)
		return bin
	}
	return ""
}

// buildOllama builds Ollama from testdata/ollama into the user's cache;
// the Go build cache makes a second build quick. Without a C++ compiler or
// the headers of llama.cpp's third-party libraries, which the module
// download lacks, the test fails, saying what to install: make
// test-ollama asked for the real server, and CI must not pass without it.
func buildOllama(t *testing.T) string {
	t.Helper()
	var missing []string
	if _, err := exec.LookPath("g++"); err != nil {
		missing = append(missing, "g++")
	}
	for pkg, header := range map[string]string{"nlohmann-json3-dev": "/usr/include/nlohmann/json.hpp", "libstb-dev": "/usr/include/stb/stb_image.h"} {
		if _, err := os.Stat(header); err != nil {
			missing = append(missing, pkg)
		}
	}
	if len(missing) > 0 { // make test-ollama asked for it: not running it is a failure, not a skip
		t.Fatalf("building Ollama needs a C++ compiler and two libraries' headers: apt-get install g++ nlohmann-json3-dev libstb-dev (missing: %s)", strings.Join(missing, ", "))
	}
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	module := filepath.Join(root, "testdata", "ollama")
	download := exec.Command("go", "mod", "download")
	download.Dir = module
	if out, err := download.CombinedOutput(); err != nil {
		t.Fatalf("the Go module proxy did not give Ollama's modules (is it reachable?): %v\n%s", err, out)
	}
	out, err := exec.Command("go", "list", "-C", module, "-m", "-f", "{{.Version}}", "github.com/ollama/ollama").Output()
	require.NoError(t, err, "the version of Ollama in testdata/ollama/go.mod")
	version := strings.TrimSpace(string(out))
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	bin := filepath.Join(cache, "mcpeval-test", "ollama-"+version)
	start := time.Now()
	cmd := exec.Command("go", "build", "-C", module, "-o", bin,
		"-ldflags=-X=github.com/ollama/ollama/version.Version="+strings.TrimPrefix(version, "v"), "github.com/ollama/ollama")
	// The stand-in for miniaudio.h; the other headers are Debian's.
	cmd.Env = append(os.Environ(), "CPATH="+strings.Trim(filepath.Join(module, "include")+":"+os.Getenv("CPATH"), ":"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building Ollama %s: %v\n%s", version, err, out)
	}
	t.Logf("built Ollama %s in %s: %s", version, time.Since(start).Round(time.Second), bin)
	return bin
}

// startOllama starts ollama serve on a free loopback port, with its models
// and home in temporary directories and extra (NAME=value) in its
// environment, creates the models (name: Modelfile) and returns the
// server's URL and the path of its log.
func startOllama(t *testing.T, bin string, models map[string]string, extra string) (base, logPath string) {
	t.Helper()
	home := t.TempDir()
	host := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "OLLAMA_HOST=" + host, "OLLAMA_MODELS=" + filepath.Join(home, "models")}
	if extra != "" {
		environ = append(environ, extra)
	}
	logPath = filepath.Join(home, "serve.log")
	logFile, err := os.Create(logPath)
	require.NoError(t, err)
	serve := exec.Command(bin, "serve")
	serve.Env, serve.Stdout, serve.Stderr = environ, logFile, logFile
	require.NoError(t, serve.Start())
	exited := make(chan struct{})
	go func() { serve.Wait(); close(exited) }()
	t.Cleanup(func() {
		serve.Process.Signal(os.Interrupt) // Ollama stops its runners
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			serve.Process.Kill()
			<-exited
		}
		logFile.Close()
		if t.Failed() {
			data, _ := os.ReadFile(logPath)
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			t.Logf("ollama serve's log ends:\n%s", strings.Join(lines[max(0, len(lines)-40):], "\n"))
		}
	})
	base = "http://" + host
	require.Eventually(t, func() bool {
		resp, err := http.Get(base + "/api/version")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusOK
	}, 30*time.Second, 50*time.Millisecond, "ollama serve answers")

	for name, modelfile := range models {
		create := exec.Command(bin, "create", name, "-f", modelfile)
		create.Env = environ
		out, err := create.CombinedOutput()
		require.NoError(t, err, "ollama create %s: %s", name, out)
	}
	return base, logPath
}
