package llm

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closedURL returns the base URL of a port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "http://" + addr + "/v1"
}

func models(ids ...string) http.HandlerFunc {
	body := `{"object":"list","data":[`
	for i, id := range ids {
		if i > 0 {
			body += ","
		}
		body += `{"id":"` + id + `","object":"model"}`
	}
	return reply(http.StatusOK, body+`]}`, "Content-Type", "application/json")
}

func manyModels(n int) []string {
	var ids []string
	for i := 1; i <= n; i++ {
		ids = append(ids, fmt.Sprintf("model-%02d", i))
	}
	return ids
}

func TestCheckUnreachable(t *testing.T) {
	for name, url := range map[string]string{
		"connection refused":    closedURL(t),
		"name does not resolve": "http://no-such-provider.invalid/v1",
	} {
		t.Run(name, func(t *testing.T) {
			c := New(Config{BaseURL: url, APIKey: testKey})
			err := c.Check(context.Background(), "m")
			var unreachable *UnreachableError
			require.ErrorAs(t, err, &unreachable)
			assert.Contains(t, err.Error(), "the provider at "+url+" cannot be reached: ")
			assert.NotContains(t, err.Error(), testKey)
		})
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		script []http.HandlerFunc
		models []string
		// want is the error's type and text, "" for none; requests are the
		// paths asked, in order.
		want     string
		requests []string
	}{
		{name: "listed", script: []http.HandlerFunc{models("m", "judge")}, models: []string{"m", "judge"},
			requests: []string{"/v1/models"}},
		{name: "not listed, but served", script: []http.HandlerFunc{models("other"), completion("OK")}, models: []string{"m"},
			requests: []string{"/v1/models", "/v1/chat/completions"}},
		{name: "not served: 404", script: []http.HandlerFunc{models("other"), apiError(404, "The model `m` does not exist")}, models: []string{"m"},
			want:     `the provider does not serve the model "m" (provider error (HTTP 404): The model ` + "`m`" + ` does not exist); it serves other`,
			requests: []string{"/v1/models", "/v1/chat/completions"}},
		{name: "misspelt: the nearest listed model is suggested", script: []http.HandlerFunc{models("openai/gpt-4.1-mini", "openai/gpt-4o"), apiError(404, "not found")},
			models:   []string{"openai/gpt-4.1-mnii"},
			want:     `the provider does not serve the model "openai/gpt-4.1-mnii" (did you mean openai/gpt-4.1-mini?) (provider error (HTTP 404): not found); it serves openai/gpt-4.1-mini, openai/gpt-4o`,
			requests: []string{"/v1/models", "/v1/chat/completions"}},
		{name: "not served: a long list is cut", script: []http.HandlerFunc{models(manyModels(25)...), apiError(404, "not found")}, models: []string{"m"},
			want:     `; it serves model-01, model-02, model-03, model-04, model-05, model-06, model-07, model-08, model-09, model-10, model-11, model-12, model-13, model-14, model-15, model-16, model-17, model-18, model-19, model-20 and 5 more`,
			requests: []string{"/v1/models", "/v1/chat/completions"}},
		{name: "not served: invalid model id", script: []http.HandlerFunc{models("other"), apiError(400, "x/y is not a valid model ID")}, models: []string{"x/y"},
			want: `the provider does not serve the model "x/y"`, requests: []string{"/v1/models", "/v1/chat/completions"}},
		{name: "the judge not served", script: []http.HandlerFunc{models("m"), apiError(404, "model judge not found")}, models: []string{"m", "judge"},
			want: `the provider does not serve the model "judge"`, requests: []string{"/v1/models", "/v1/chat/completions"}},
		{name: "key refused", script: []http.HandlerFunc{apiError(401, "Incorrect API key provided: "+testKey)}, models: []string{"m"},
			want: "the provider rejected the API key (HTTP 401: Incorrect API key provided: [redacted])", requests: []string{"/v1/models"}},
		{name: "listed with its tag", script: []http.HandlerFunc{models("qwen3:latest", "judge")}, models: []string{"qwen3", "judge:latest"},
			requests: []string{"/v1/models"}},
		{name: "no list: every model asked", script: []http.HandlerFunc{apiError(404, "not found"), completion("OK"), completion("OK")}, models: []string{"m", "judge"},
			requests: []string{"/v1/models", "/v1/chat/completions", "/v1/chat/completions"}},
		{name: "no list: not served", script: []http.HandlerFunc{apiError(404, "not found"), apiError(404, "model m not found, try pulling it first")}, models: []string{"m"},
			want: `the provider does not serve the model "m"`, requests: []string{"/v1/models", "/v1/chat/completions"}},
		{name: "list fails", script: []http.HandlerFunc{apiError(503, "busy"), completion("OK")}, models: []string{"m"},
			requests: []string{"/v1/models", "/v1/chat/completions"}},
		{name: "another 400 is for the cases to meet", script: []http.HandlerFunc{models(), apiError(400, "messages: too short")}, models: []string{"m"},
			requests: []string{"/v1/models", "/v1/chat/completions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startProvider(t, tt.script...)
			err := p.client().Check(context.Background(), tt.models...)
			if tt.want == "" {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.want)
			}
			var paths []string
			for _, r := range p.requests() {
				paths = append(paths, r.path)
				assert.Equal(t, "Bearer "+testKey, r.header.Get("Authorization"))
				if r.method == http.MethodPost {
					w := decodeWire(t, r.body)
					assert.Equal(t, 1, w.MaxTokens, "the check's question is capped at one output token")
				}
			}
			assert.Equal(t, tt.requests, paths)
		})
	}
}
