package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitSpecs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		list string
		want []string
	}{
		{"", nil},
		{"python -m server", []string{"python -m server"}},
		{"a ; http://x/mcp;;sse:http://y/sse ", []string{"a", "http://x/mcp", "sse:http://y/sse"}},
		{`sh -c 'echo a; echo b'; other`, []string{`sh -c 'echo a; echo b'`, "other"}},
		{`sh -c "a; b"`, []string{`sh -c "a; b"`}},
		{`sh -c a\;b;c`, []string{`sh -c a\;b`, "c"}},
		{`sh -c 'it''s; x'`, []string{`sh -c 'it''s; x'`}},
		{`sh -c "a \"; b"`, []string{`sh -c "a \"; b"`}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, SplitSpecs(tt.list), tt.list)
	}
	spec, err := ParseSpec(`sh -c a\;b`)
	require.NoError(t, err)
	assert.Equal(t, []string{"-c", "a;b"}, spec.Args, "the backslash escapes the ';' for the shell-like split too")
}

func TestParseSpec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want Spec
	}{
		{"https://h/mcp", Spec{Name: "https://h/mcp", URL: "https://h/mcp"}},
		{"sse:http://h/sse", Spec{Name: "sse:http://h/sse", URL: "http://h/sse", SSE: true}},
		{`python -m "my server"`, Spec{Name: `python -m "my server"`, Command: "python", Args: []string{"-m", "my server"}}},
	}
	for _, tt := range tests {
		got, err := ParseSpec(tt.text)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got)
		assert.Equal(t, tt.text, got.Display())
	}
	spec, err := ParseSpec(`env SERVER_API_KEY=sk-cmdline-123 LOG=debug server --token=tok-456789`)
	require.NoError(t, err)
	assert.Equal(t, []string{"sk-cmdline-123", "tok-456789"}, spec.Secrets(), "secret-looking NAME=value words of a command line")
	_, err = ParseSpec(`python "unclosed`)
	assert.ErrorContains(t, err, "cannot parse command line")
}

// Credentials in a server's URL or command line are secrets, and the
// server's name in messages and summaries masks them however short.
func TestSpecCredentials(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text        string
		wantSecrets []string
		wantName    string
	}{
		{"https://alice:pw-8c1e77f2@mcp.example.org/mcp", []string{"pw-8c1e77f2"}, "https://alice:[REDACTED]@mcp.example.org/mcp"},
		{"https://alice:pw@h/mcp", []string{"pw"}, "https://alice:[REDACTED]@h/mcp"},
		{"https://tok-0a1b2c3d4e@h/mcp", []string{"tok-0a1b2c3d4e"}, "https://[REDACTED]@h/mcp"},
		{"http://h/mcp?api_key=key-7d6e5f4a&region=eu", []string{"key-7d6e5f4a"}, "http://h/mcp?api_key=[REDACTED]&region=eu"},
		{"sse:http://h/sse?token=tk-99887766", []string{"tk-99887766"}, "sse:http://h/sse?token=[REDACTED]"},
		{"server --key sk-two-words-1234 --verbose", []string{"sk-two-words-1234"}, "server --key [REDACTED] --verbose"},
		{"server --token tok-two-words-99 -v", []string{"tok-two-words-99"}, "server --token [REDACTED] -v"},
		{"server --api-key=k-12345678", []string{"k-12345678"}, "server --api-key=[REDACTED]"},
		{"npx mcp-remote https://u:remote-pw-55@h/mcp", []string{"remote-pw-55"}, "npx mcp-remote https://u:[REDACTED]@h/mcp"},
		{"server --log-level warning --port 8080", nil, "server --log-level warning --port 8080"},
	}
	for _, tt := range tests {
		spec, err := ParseSpec(tt.text)
		require.NoError(t, err)
		assert.Equal(t, tt.wantSecrets, spec.Secrets(), tt.text)
		assert.Equal(t, tt.wantName, spec.Name, tt.text)
		assert.Equal(t, tt.wantName, spec.Display(), tt.text)
	}
	file := Spec{Name: "remote", FromFile: true, URL: "https://bob:pw@h/mcp?token=t"}
	assert.Equal(t, "remote (https://bob:[REDACTED]@h/mcp?token=[REDACTED])", file.Display())
	cmd := Spec{Name: "local", FromFile: true, Command: "server", Args: []string{"--secret", "s3"}}
	assert.Equal(t, "local (server --secret [REDACTED])", cmd.Display())
}

// An ordinary value of a server's environment is data; a value is secret
// by its name, by being a header, or by being a credential.
func TestSpecEnvSecrets(t *testing.T) {
	t.Parallel()
	spec := Spec{Command: "server", Env: []string{
		"GENOME_BUILD=GRCh38", "LOG_LEVEL=warning", "DATA_DIR=/srv/data/genomes",
		"NCBI_API_KEY=ncbi-1234567", "DATABASE_URL=postgres://app:db-pass-42@db/marrvel",
		"UPSTREAM=ghp_0123456789abcdefghij",
	}, Headers: map[string]string{"Authorization": "Basic " + "YWxpY2U6YmFzaWMtcHctOTk=", "X-Api-Key": "xk-12345678",
		"X-Region": "europe-west", "Accept-Language": "en-GB", "X-Upstream": "Bearer upstream-tok-77"}}
	// X-Region and Accept-Language are data: a replay of the run must see
	// them as they were.
	assert.ElementsMatch(t, []string{"ncbi-1234567", "db-pass-42", "ghp_0123456789abcdefghij",
		"Basic YWxpY2U6YmFzaWMtcHctOTk=", "YWxpY2U6YmFzaWMtcHctOTk=", "basic-pw-99", "xk-12345678",
		"Bearer upstream-tok-77", "upstream-tok-77"}, spec.Secrets())
}

// A value the servers file takes from a variable whose name looks secret
// is a secret wherever it lands, even under a name that says nothing; a
// value from any other variable is data.
func TestServersFileInterpolatedSecrets(t *testing.T) {
	t.Parallel()
	env := map[string]string{"UPSTREAM_TOKEN": "plain-looking-value", "REGION": "europe-west", "PROXY": "https://u:proxy-pw-1@proxy"}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	path := writeServersFile(t, `{"mcpServers": {"s": {"command": "server", "args": ["--upstream", "${UPSTREAM_TOKEN}"],
  "env": {"SETTING": "${UPSTREAM_TOKEN}", "AREA": "${REGION}", "VIA": "${PROXY}"}}}}`)
	f, err := LoadServersFile(path, lookup)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"plain-looking-value", "plain-looking-value", "https://u:proxy-pw-1@proxy"}, f.Secrets)
	assert.NotContains(t, f.Secrets, "europe-west")
}

func writeServersFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".mcp.json")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func TestLoadServersFile(t *testing.T) {
	t.Parallel()
	env := map[string]string{"MARRVEL_KEY": "mk-123456789", "EMPTY": ""}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	path := writeServersFile(t, `{
  "mcpServers": {
    "marrvel": {
      "command": "uv",
      "args": ["run", "--directory", "${SERVER_DIR:-../server}", "marrvel-mcp"],
      "env": {"MARRVEL_API_KEY": "${MARRVEL_KEY}", "LOG_LEVEL": "debug"},
      "cwd": "server",
      "autoApprove": ["get_gene"]
    },
    "remote": {"type": "http", "url": "https://mcp.example.org/mcp", "headers": {"Authorization": "Bearer ${MARRVEL_KEY}"}},
    "legacy": {"type": "sse", "url": "http://localhost:8000/sse", "disabled": true}
  }
}`)
	f, err := LoadServersFile(path, lookup)
	require.NoError(t, err)
	assert.Equal(t, []string{"marrvel", "remote", "legacy"}, f.Names(), "the file's order")
	assert.Equal(t, Spec{
		Name: "marrvel", FromFile: true, Command: "uv", Args: []string{"run", "--directory", "../server", "marrvel-mcp"},
		Env: []string{"LOG_LEVEL=debug", "MARRVEL_API_KEY=mk-123456789"}, Dir: filepath.Join(filepath.Dir(path), "server"),
	}, f.Servers[0])
	assert.Equal(t, "marrvel (uv run --directory ../server marrvel-mcp)", f.Servers[0].Display(), "no env in the display")
	assert.Equal(t, []string{"mk-123456789"}, f.Servers[0].Secrets(), "LOG_LEVEL=debug is data, not a secret")
	assert.Equal(t, Spec{Name: "remote", FromFile: true, URL: "https://mcp.example.org/mcp", Headers: map[string]string{"Authorization": "Bearer mk-123456789"}}, f.Servers[1])
	assert.Equal(t, []string{"Bearer mk-123456789", "mk-123456789"}, f.Servers[1].Secrets(), "the header and its bare token")
	assert.True(t, f.Servers[2].SSE)

	all, err := f.Select(nil)
	require.NoError(t, err)
	assert.Len(t, all, 2, "a disabled server is left out unless named")
	named, err := f.Select([]string{"legacy", "marrvel"})
	require.NoError(t, err)
	assert.Equal(t, "legacy", named[0].Name)
	_, err = f.Select([]string{"marvel"})
	assert.ErrorContains(t, err, `has no server "marvel"; its servers: marrvel, remote, legacy`)

	// The suite's own keys: roots, and how a stateful server's cases are
	// kept apart.
	ext := writeServersFile(t, `{"mcpServers": {
  "files": {"command": "srv", "args": ["/data"], "roots": ["data", "file:///srv/x"]},
  "memory": {"command": "mem", "cwd": "work", "env": {"MEMORY_FILE_PATH": "memory.json"}, "isolation": "case", "state": ["memory.json", "/abs/db"]},
  "shared": {"url": "http://localhost:9/mcp", "reset": "curl -X POST http://localhost:9/reset", "protocol": "handshake"},
  "pinned": {"command": "srv", "protocol": "2025-06-18"}
}}`)
	f, err = LoadServersFile(ext, lookup)
	require.NoError(t, err)
	base := filepath.Dir(ext)
	assert.Equal(t, []string{filepath.Join(base, "data"), "file:///srv/x"}, f.Servers[0].Roots, "relative roots are from the file's directory")
	assert.Equal(t, Isolation{PerCase: true, State: []string{"memory.json", "/abs/db"},
		Paths: []string{filepath.Join(base, "work", "memory.json"), "/abs/db"}}, f.Servers[1].Isolation, "relative state is from the cwd")
	assert.Equal(t, Isolation{Reset: "curl -X POST http://localhost:9/reset"}, f.Servers[2].Isolation)
	assert.Equal(t, []string{"", "", "2025-11-25", "2025-06-18"}, []string{f.Servers[0].Protocol, f.Servers[1].Protocol, f.Servers[2].Protocol, f.Servers[3].Protocol},
		`"protocol": a revision, or "handshake" for the newest that starts with it`)

	vscode := writeServersFile(t, `{"servers": {"s": {"command": "srv"}}}`)
	f, err = LoadServersFile(vscode, lookup)
	require.NoError(t, err)
	assert.Equal(t, []string{"s"}, f.Names(), `VS Code's "servers" key`)
}

func TestLoadServersFileErrors(t *testing.T) {
	t.Parallel()
	lookup := func(name string) (string, bool) { return "", false }
	tests := []struct {
		name, content, want string
	}{
		{"syntax error has its line", "{\n\"mcpServers\": {\n  \"a\": {\"command\": \"x\",}\n}}", ".mcp.json:3: invalid character '}'"},
		{"no mcpServers", `{"servers2": {}}`, `no "mcpServers" object`},
		{"not an object", `{"mcpServers": ["a"]}`, "must be an object of servers by name"},
		{"empty", `{"mcpServers": {}}`, "holds no server"},
		{"duplicate", `{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}`, `server "a" is defined twice`},
		{"both", `{"mcpServers": {"a": {"command": "x", "url": "http://h"}}}`, `server "a": has both a command and a url`},
		{"neither", `{"mcpServers": {"a": {"args": ["x"]}}}`, `server "a": has neither a command nor a url`},
		{"bad type", `{"mcpServers": {"a": {"type": "websocket", "url": "ws://h"}}}`, `type "websocket" is not one of stdio, http, sse`},
		{"bad url", `{"mcpServers": {"a": {"url": "ftp://h"}}}`, `url "ftp://h" is not an http(s) URL`},
		{"headers on a command", `{"mcpServers": {"a": {"command": "x", "headers": {"A": "b"}}}}`, "headers apply to a url"},
		{"env value not a string", `{"mcpServers": {"a": {"command": "x", "env": {"N": 1}}}}`, "cannot unmarshal number"},
		{"unset variable", `{"mcpServers": {"a": {"command": "x", "env": {"K": "${SERVER_TOKEN}"}}}}`, `server "a": ${SERVER_TOKEN} is not set: set SERVER_TOKEN`},
		{"unknown isolation", `{"mcpServers": {"a": {"command": "x", "isolation": "run"}}}`, `"isolation" "run": the one kind is "case"`},
		{"a process per case of a url", `{"mcpServers": {"a": {"url": "http://h", "isolation": "case"}}}`, `needs a command, not a url`},
		{"state without isolation", `{"mcpServers": {"a": {"command": "x", "state": ["db"]}}}`, `"state" is copied for each case of "isolation": "case"`},
		{"isolation and reset", `{"mcpServers": {"a": {"command": "x", "isolation": "case", "reset": "y"}}}`, `not both`},
		{"unknown protocol", `{"mcpServers": {"a": {"command": "x", "protocol": "2025-13-01"}}}`, `server "a": "protocol": "2025-13-01" is not a protocol revision: give one of 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, or "handshake" (2025-11-25)`},
		{"an empty state path", `{"mcpServers": {"a": {"command": "x", "isolation": "case", "state": [" "]}}}`, `"state" holds an empty path`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadServersFile(writeServersFile(t, tt.content), lookup)
			assert.ErrorContains(t, err, tt.want)
		})
	}
	_, err := LoadServersFile(filepath.Join(t.TempDir(), "missing.json"), lookup)
	assert.ErrorContains(t, err, "read servers file")
}

// headerRecorder records the method and Authorization header of every
// request.
type headerRecorder struct {
	mu   sync.Mutex
	seen []string
	next http.Handler
}

func (h *headerRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Method+" "+r.Header.Get("Authorization"))
	h.mu.Unlock()
	h.next.ServeHTTP(w, r)
}

func TestHeadersReachHTTPServers(t *testing.T) {
	t.Parallel()
	for _, sse := range []bool{false, true} {
		var handler http.Handler = server.NewStreamableHTTPServer(newTestServer(modeTools, false), server.WithStateful(true))
		path := "/mcp"
		if sse {
			handler, path = server.NewSSEServer(newTestServer(modeTools, false)), "/sse"
		}
		rec := &headerRecorder{next: handler}
		hs := httptest.NewServer(rec)
		t.Cleanup(hs.Close)
		spec := Spec{Name: "remote", URL: hs.URL + path, SSE: sse, Headers: map[string]string{"Authorization": "Bearer tok-123456"}}
		set, err := ConnectSpecs(context.Background(), []Spec{spec}, Options{})
		require.NoError(t, err)
		assert.Equal(t, Result{Text: "ab"}, call(t, set, "echo", map[string]any{"text": "ab"}))
		set.Close()
		rec.mu.Lock()
		assert.NotEmpty(t, rec.seen)
		for _, h := range rec.seen {
			if strings.HasPrefix(h, "DELETE ") {
				continue // mcp-go ends a streamable HTTP session without the custom headers
			}
			assert.Regexp(t, `^(GET|POST) Bearer tok-123456$`, h, "sse=%v", sse)
		}
		rec.mu.Unlock()
	}
}

// A part of an error the client library says twice is said once.
func TestDescribe(t *testing.T) {
	err := fmt.Errorf("server remote: start: transport error: %w", fmt.Errorf("failed to send request: %w", fmt.Errorf("failed to send request: %w", errors.New(`Post "http://127.0.0.1:9/mcp": dial tcp 127.0.0.1:9: connect: connection refused`))))
	assert.Equal(t, `server remote: start: transport error: failed to send request: Post "http://127.0.0.1:9/mcp": dial tcp 127.0.0.1:9: connect: connection refused`, Describe(err))
}
