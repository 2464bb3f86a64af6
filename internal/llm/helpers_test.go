package llm

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const testKey = "sk-test-7f3a9c2e51d84b06"

// provider is an OpenAI-compatible test server that answers the n-th request
// with the n-th handler of its script (the last one repeats) and records
// every request it received.
type provider struct {
	*httptest.Server
	mu       sync.Mutex
	script   []http.HandlerFunc
	received []received
}

type received struct {
	method, path string
	header       http.Header
	body         []byte
	at           time.Time
}

func startProvider(t *testing.T, script ...http.HandlerFunc) *provider {
	t.Helper()
	require.NotEmpty(t, script)
	p := &provider{script: script}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		p.mu.Lock()
		n := len(p.received)
		p.received = append(p.received, received{method: r.Method, path: r.URL.Path, header: r.Header.Clone(), body: body, at: time.Now()})
		p.mu.Unlock()
		p.script[min(n, len(p.script)-1)](w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *provider) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.received)
}

func (p *provider) requests() []received {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]received(nil), p.received...)
}

// client returns a Client for p with a fast retry policy; edit adjusts the config.
func (p *provider) client(edit ...func(*Config)) *Client {
	cfg := Config{
		BaseURL: p.URL + "/v1",
		APIKey:  testKey,
		Timeout: 2 * time.Second,
		Retry:   RetryPolicy{MaxRetries: 3, Initial: time.Millisecond, Max: 4 * time.Millisecond, MaxWait: 200 * time.Millisecond},
	}
	for _, e := range edit {
		e(&cfg)
	}
	return New(cfg)
}

// reply answers with status, body and header pairs (name, value, ...).
func reply(status int, body string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// apiError answers with an OpenAI-style JSON error.
func apiError(status int, message string, header ...string) http.HandlerFunc {
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": "test_error"}})
	return reply(status, string(body), append([]string{"Content-Type", "application/json"}, header...)...)
}

// completion answers with a plain assistant message.
func completion(content string) http.HandlerFunc {
	return reply(http.StatusOK, fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion","model":"m",
		"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],
		"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`, content), "Content-Type", "application/json")
}

// hangUp closes the connection without answering; with reset it sends a TCP RST.
func hangUp(reset bool) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			panic(err)
		}
		if tc, ok := conn.(*net.TCPConn); ok && reset {
			tc.SetLinger(0)
		}
		conn.Close()
	}
}

// stall answers only after d, or not at all when the client goes away first.
func stall(d time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(d):
			completion("late")(w, r)
		}
	}
}
