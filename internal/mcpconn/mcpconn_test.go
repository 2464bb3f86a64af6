package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// connect connects to specs and closes the set when the test ends.
func connect(t *testing.T, specs []string, opts Options) *Set {
	t.Helper()
	set, err := ConnectAll(context.Background(), specs, opts)
	require.NoError(t, err)
	t.Cleanup(set.Close)
	return set
}

// connectStdio connects to the test binary serving mode over stdio.
func connectStdio(t *testing.T, mode string, opts Options) *Set {
	t.Helper()
	spec, opts := stdioSpec(t, mode, opts)
	return connect(t, []string{spec}, opts)
}

func call(t *testing.T, set *Set, name string, args map[string]any) Result {
	t.Helper()
	res, err := set.Call(context.Background(), name, args)
	require.NoError(t, err)
	return res
}

func toolNames(tools []eval.Tool) []string {
	names := make([]string, len(tools))
	for i, tool := range tools {
		names[i] = tool.Name
	}
	return names
}

// testTransport is one way to reach the test server.
type testTransport struct {
	name string
	spec string
	opts Options
}

// allTransports serves the test tools over stdio, streamable HTTP and SSE.
func allTransports(t *testing.T) []testTransport {
	stdio, stdioOpts := stdioSpec(t, modeTools, Options{})
	streamable, _ := streamableSpec(t)
	return []testTransport{
		{"stdio", stdio, stdioOpts},
		{"streamable HTTP", streamable, Options{}},
		{"SSE", sseSpec(t), Options{}},
	}
}

func TestTransports(t *testing.T) {
	t.Parallel()
	for _, tt := range allTransports(t) {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			set := connect(t, []string{tt.spec}, tt.opts)

			names := toolNames(set.Tools())
			assert.Subset(t, names, []string{"args", "binary", "echo", "fail", "image", "slow"})
			assert.IsNonDecreasing(t, names)
			require.Len(t, set.Servers, 1)
			assert.Equal(t, tt.spec, set.Servers[0].Spec)
			name, version := set.Servers[0].Info()
			assert.Equal(t, "mcpconn-test", name)
			assert.Equal(t, "1.0.0", version)

			var echo eval.Tool
			for _, tool := range set.Tools() {
				if tool.Name == "echo" {
					echo = tool
				}
			}
			assert.Equal(t, "Returns the text it is given.", echo.Description)
			var schema struct {
				Type       string                    `json:"type"`
				Properties map[string]map[string]any `json:"properties"`
				Required   []string                  `json:"required"`
			}
			require.NoError(t, json.Unmarshal(echo.Parameters, &schema))
			assert.Equal(t, "object", schema.Type)
			assert.Equal(t, "string", schema.Properties["text"]["type"])
			assert.Equal(t, "text to return", schema.Properties["text"]["description"])
			assert.Equal(t, "number", schema.Properties["repeat"]["type"])
			assert.Equal(t, []string{"text"}, schema.Required)

			res := call(t, set, "echo", map[string]any{"text": "ab", "repeat": 3})
			assert.Equal(t, Result{Text: "ababab"}, res)
		})
	}
}

func TestConcurrentCallsShareOneSession(t *testing.T) {
	t.Parallel()
	for _, tt := range allTransports(t) {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			set := connect(t, []string{tt.spec}, tt.opts)
			const n = 50
			var wg sync.WaitGroup
			results := make([]Result, n)
			errs := make([]error, n)
			for i := range n {
				wg.Go(func() {
					results[i], errs[i] = set.Call(context.Background(), "echo", map[string]any{"text": fmt.Sprintf("call %d", i)})
				})
			}
			wg.Wait()
			for i := range n {
				require.NoError(t, errs[i], "call %d", i)
				assert.Equal(t, fmt.Sprintf("call %d", i), results[i].Text)
			}
			assert.Zero(t, set.Restarts())
		})
	}
}

func TestResultContent(t *testing.T) {
	t.Parallel()
	set := connectStdio(t, modeTools, Options{})
	tests := []struct {
		tool    string
		want    string
		isError bool
	}{
		{tool: "fail", want: "no such record", isError: true},
		{tool: "image", want: "[image image/png, 32 base64 bytes]"},
		// JSON turns the invalid bytes into U+FFFD on the wire; the control
		// characters are replaced here.
		{tool: "binary", want: "start\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD[31mend"},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			res := call(t, set, tt.tool, nil)
			assert.Equal(t, Result{Text: tt.want, IsError: tt.isError}, res)
		})
	}
}

func TestResultTextSanitises(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		res  *mcp.CallToolResult
		want string
	}{
		{
			name: "invalid UTF-8",
			res:  mcp.NewToolResultText("caf\xc3 ok \xff\xfe\xfd end"),
			want: "caf\uFFFD ok \uFFFD end",
		},
		{
			name: "control characters, tabs and newlines kept",
			res:  mcp.NewToolResultText("a\x00b\x07c\td\ne\r\nf\x7f"),
			want: "a\uFFFDb\uFFFDc\td\ne\r\nf\uFFFD",
		},
		{
			name: "text, image and binary resource joined",
			res: &mcp.CallToolResult{Content: []mcp.Content{
				mcp.NewTextContent("first"),
				mcp.NewImageContent("aGVsbG8=", "image/jpeg"),
				mcp.NewEmbeddedResource(mcp.BlobResourceContents{URI: "file:///data/x.png", MIMEType: "image/png", Blob: "AAAA"}),
				mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "file:///y", Text: "resource text"}),
			}},
			want: "first\n[image image/jpeg, 8 base64 bytes]\n[resource x.png <file:///data/x.png>, image/png, 3 bytes, binary, not shown]\n" +
				"[resource y <file:///y>, 13 bytes]\nresource text",
		},
		{
			name: "a resource link keeps its URI, name, MIME type, size and description",
			res: &mcp.CallToolResult{Content: []mcp.Content{
				mcp.ResourceLink{Type: "resource_link", URI: "demo://resource/text/2", Name: "Text Resource 2", MIMEType: "text/plain",
					Description: "a plaintext resource", Size: ptr(int64(2048))},
			}},
			want: `[resource link "Text Resource 2" <demo://resource/text/2>, text/plain, 2048 bytes: a plaintext resource]`,
		},
		{
			name: "a blob without padding and a large one",
			res: &mcp.CallToolResult{Content: []mcp.Content{
				mcp.NewEmbeddedResource(mcp.BlobResourceContents{URI: "mem://a", Blob: "YWI"}),
				mcp.NewEmbeddedResource(mcp.BlobResourceContents{URI: "mem://b/", Blob: strings.Repeat("AAAA", 1000) + "YQ=="}),
			}},
			want: "[resource a <mem://a>, 2 bytes, binary, not shown]\n[resource b <mem://b/>, 3001 bytes, binary, not shown]",
		},
		{
			name: "structured content when there is no content",
			res:  &mcp.CallToolResult{StructuredContent: map[string]any{"n": 1}},
			want: `{"n":1}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := resultText(tt.res)
			assert.True(t, utf8.ValidString(got))
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestConnectErrors(t *testing.T) {
	t.Parallel()
	crash, crashOpts := stdioSpec(t, modeCrashAtStart, Options{})
	empty, emptyOpts := stdioSpec(t, modeNoTools, Options{})
	slow, slowOpts := stdioSpec(t, modeSlowStart, Options{StartTimeout: 300 * time.Millisecond})
	tests := []struct {
		name    string
		spec    string
		opts    Options
		wantErr []string
	}{
		{
			name:    "command not found",
			spec:    "mcpconn-no-such-command --flag",
			wantErr: []string{"mcpconn-no-such-command"},
		},
		{
			name:    "unbalanced quote",
			spec:    `server "--name=unterminated`,
			wantErr: []string{"cannot parse command line", "unterminated"},
		},
		{
			name:    "exits at start-up",
			spec:    crash,
			opts:    crashOpts,
			wantErr: []string{crash, startupCrashMessage},
		},
		{
			name:    "lists no tools",
			spec:    empty,
			opts:    emptyOpts,
			wantErr: []string{empty, "lists no tools"},
		},
		{
			name:    "start slower than StartTimeout",
			spec:    slow,
			opts:    slowOpts,
			wantErr: []string{slow, "timed out after 300ms"},
		},
		{
			name:    "HTTP server not listening",
			spec:    "http://127.0.0.1:1/mcp",
			wantErr: []string{"http://127.0.0.1:1/mcp"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			set, err := ConnectAll(context.Background(), []string{tt.spec}, tt.opts)
			require.Error(t, err)
			assert.Nil(t, set)
			for _, want := range tt.wantErr {
				assert.Contains(t, err.Error(), want)
			}
			// The slow server sleeps a minute before it serves.
			assert.Less(t, time.Since(start), 30*time.Second)
		})
	}
}

// Two servers offering one tool name are both offered, under names
// qualified by their servers, and each call reaches its own server.
func TestDuplicateToolNames(t *testing.T) {
	t.Parallel()
	spec, opts := stdioSpec(t, modeTools, Options{})
	streamable, _ := streamableSpec(t)
	set, err := ConnectAll(context.Background(), []string{spec, streamable}, opts)
	require.NoError(t, err)
	t.Cleanup(set.Close)
	assert.Equal(t, []string{"mcpconn-test", "mcpconn-test-2"}, set.ServerNames())
	offered := map[string]bool{}
	for _, tool := range set.Tools() {
		offered[tool.Name] = true
	}
	assert.True(t, offered["mcpconn-test__echo"])
	assert.True(t, offered["mcpconn-test-2__echo"])
	assert.False(t, offered["echo"], "an ambiguous name is not offered bare")
	assert.True(t, offered["pid"], "a name one server offers stays as it is")

	for _, name := range []string{"mcpconn-test__echo", "mcpconn-test-2__echo", "mcpconn-test-2/echo"} {
		tool, ok := set.Lookup(name)
		require.True(t, ok, name)
		assert.Equal(t, "echo", tool.Name)
		res, err := set.Call(context.Background(), name, map[string]any{"text": name})
		require.NoError(t, err)
		assert.Equal(t, name, res.Text)
	}
	_, ok := set.Lookup("echo")
	assert.False(t, ok, "two servers offer echo: the bare name names neither")
}

func TestHash(t *testing.T) {
	t.Parallel()
	base := connectStdio(t, modeTools, Options{}).Hash()
	assert.Len(t, base, 64)
	tests := []struct {
		name     string
		mode     string
		wantSame bool
	}{
		{name: "same tools, same server", mode: modeTools, wantSame: true},
		{name: "changed schema", mode: modeSchemaV2},
		{name: "another server with the same tools", mode: modeRenamed},
		{name: "another version of the server", mode: modeVersion2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			set := connectStdio(t, tt.mode, Options{})
			if tt.wantSame {
				assert.Equal(t, base, set.Hash())
			} else {
				assert.NotEqual(t, base, set.Hash())
			}
		})
	}
}

func TestServerInfo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mode        string
		wantName    string
		wantVersion string
	}{
		{modeTools, "mcpconn-test", "1.0.0"},
		{modeRenamed, "other-test-server", "1.0.0"},
		{modeVersion2, "mcpconn-test", "2.0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			name, version := connectStdio(t, tt.mode, Options{}).Servers[0].Info()
			assert.Equal(t, tt.wantName, name)
			assert.Equal(t, tt.wantVersion, version)
		})
	}
}

// TestStdioServersGetAnAllowListEnvironment cannot run in parallel: it
// sets this process's environment, which stdio servers would inherit.
func TestStdioServersGetAnAllowListEnvironment(t *testing.T) {
	t.Setenv("OPENROUTER_API_KEY", "sk-or-inherited")
	t.Setenv("OPENAI_API_KEY", "sk-inherited")
	t.Setenv("GITHUB_TOKEN", "ghp-inherited")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws-inherited")
	t.Setenv("MCPCONN_TEST_PLAIN", "plain value")
	t.Setenv("LANG", "en_US.UTF-8")
	t.Setenv("LC_TIME", "C")
	t.Setenv("HOME", "/home/eval")
	names := []string{"OPENROUTER_API_KEY", "OPENAI_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "MCPCONN_TEST_PLAIN", "LANG", "LC_TIME", "HOME", "SERVER_KEY"}
	base := map[string]string{"LANG": "en_US.UTF-8", "LC_TIME": "C", "HOME": "/home/eval"}
	with := func(extra map[string]string) map[string]string {
		want := map[string]string{}
		for _, n := range names {
			want[n] = base[n]
		}
		for k, v := range extra {
			want[k] = v
		}
		return want
	}
	tests := []struct {
		name      string
		env, spec []string
		want      map[string]string
	}{
		{
			name: "only the allow-list is inherited",
			want: with(nil),
		},
		{
			name: "Options.Env and the spec's env are given",
			env:  []string{"OPENAI_API_KEY", "MCPCONN_TEST_PLAIN"},
			spec: []string{"SERVER_KEY=from-config", "HOME=/srv/server"},
			want: with(map[string]string{"OPENAI_API_KEY": "sk-inherited", "MCPCONN_TEST_PLAIN": "plain value", "SERVER_KEY": "from-config", "HOME": "/srv/server"}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exe, opts := stdioSpec(t, modeTools, Options{Env: tt.env})
			spec, err := ParseSpec(exe)
			require.NoError(t, err)
			spec.Env = tt.spec
			set, err := ConnectSpecs(context.Background(), []Spec{spec}, opts)
			require.NoError(t, err)
			t.Cleanup(set.Close)
			res := call(t, set, "env", map[string]any{"names": strings.Join(names, ",")})
			var got map[string]string
			require.NoError(t, json.Unmarshal([]byte(res.Text), &got))
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSpecIsSplitLikeAShell(t *testing.T) {
	t.Parallel()
	exe, opts := stdioSpec(t, modeTools, Options{})
	spec := exe + ` --name "hello world" 'single quoted' escaped\ space "it's"`
	set := connect(t, []string{spec}, opts)
	res := call(t, set, "args", nil)
	var args []string
	require.NoError(t, json.Unmarshal([]byte(res.Text), &args))
	assert.Equal(t, []string{"--name", "hello world", "single quoted", "escaped space", "it's"}, args)
}

func TestUnknownTool(t *testing.T) {
	t.Parallel()
	set := connectStdio(t, modeTools, Options{})
	assert.False(t, set.Has("nope"))
	assert.True(t, set.Has("echo"))

	_, err := set.Call(context.Background(), "nope", nil)
	require.ErrorContains(t, err, `unknown tool "nope"`)

	// A server that answers with a protocol error is not at fault.
	_, err = set.Servers[0].Call(context.Background(), "nope", nil)
	require.Error(t, err)
	var serverErr *ServerError
	assert.False(t, errors.As(err, &serverErr), "%v", err)
	assert.Zero(t, set.Restarts())
	assert.Equal(t, "x", call(t, set, "echo", map[string]any{"text": "x"}).Text)
}

func TestCallAfterClose(t *testing.T) {
	t.Parallel()
	spec, opts := stdioSpec(t, modeTools, Options{})
	srv, err := Connect(context.Background(), spec, opts)
	require.NoError(t, err)
	require.NoError(t, srv.Close())
	require.NoError(t, srv.Close(), "closing twice")
	_, err = srv.Call(context.Background(), "echo", map[string]any{"text": "x"})
	require.ErrorContains(t, err, "is closed")
}

func TestCallerCancelIsNotAServerFault(t *testing.T) {
	t.Parallel()
	set := connectStdio(t, modeTools, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := set.Call(ctx, "slow", map[string]any{"ms": 2000})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	var serverErr *ServerError
	assert.False(t, errors.As(err, &serverErr))
	assert.Zero(t, set.Restarts())
}

// pid returns the process id of the server behind set.
func pid(t *testing.T, set *Set) string {
	t.Helper()
	res := call(t, set, "pid", nil)
	require.NotEmpty(t, res.Text)
	return res.Text
}

func TestCrashRestartsServer(t *testing.T) {
	t.Parallel()
	set := connectStdio(t, modeTools, Options{})
	spec := set.Servers[0].Spec
	before := pid(t, set)

	_, err := set.Call(context.Background(), "exit", nil)
	var serverErr *ServerError
	require.ErrorAs(t, err, &serverErr)
	assert.Equal(t, spec, serverErr.Spec)
	assert.Contains(t, serverErr.Stderr, crashMessage)
	assert.Contains(t, err.Error(), spec)
	assert.Contains(t, err.Error(), crashMessage)
	assert.Contains(t, set.Servers[0].Stderr(), crashMessage)
	assert.Equal(t, 1, set.Restarts())

	after := pid(t, set)
	assert.NotEqual(t, before, after, "a new process serves after the crash")
	assert.Equal(t, "ok", call(t, set, "echo", map[string]any{"text": "ok"}).Text)
	assert.Equal(t, 1, set.Servers[0].Restarts())
}

func TestConcurrentCallsDuringCrashRestartOnce(t *testing.T) {
	t.Parallel()
	set := connectStdio(t, modeTools, Options{})
	srv := set.Servers[0]
	before := pid(t, set)

	const hanging = 9
	errs := make(chan error, hanging+1)
	for range hanging {
		go func() {
			_, err := set.Call(context.Background(), "hang", nil)
			errs <- err
		}()
	}
	// Crash only once every hanging call is inside the server.
	require.Eventually(t, func() bool {
		return strings.Count(srv.Stderr(), hangMessage) == hanging
	}, 5*time.Second, 10*time.Millisecond)
	_, err := set.Call(context.Background(), "exit", nil)
	errs <- err

	for range hanging + 1 {
		var serverErr *ServerError
		require.ErrorAs(t, <-errs, &serverErr)
		assert.Contains(t, serverErr.Stderr, crashMessage)
	}
	assert.Equal(t, 1, set.Restarts())
	assert.NotEqual(t, before, pid(t, set))
	assert.Equal(t, 1, set.Restarts())
}

func TestHungServerTimesOutAndRestarts(t *testing.T) {
	if !canStopSelf {
		t.Skip("no SIGSTOP here to freeze the server with")
	}
	t.Parallel()
	// Long enough for any call to a live server, even on a busy machine.
	set := connectStdio(t, modeTools, Options{CallTimeout: 2 * time.Second})
	before := pid(t, set)

	start := time.Now()
	_, err := set.Call(context.Background(), "freeze", nil)
	var serverErr *ServerError
	require.ErrorAs(t, err, &serverErr)
	assert.Contains(t, err.Error(), "tool freeze timed out after 2s, and the server failed a ping")
	assert.Contains(t, serverErr.Stderr, freezeMessage)
	// A frozen process never ends: one waited for would hold the call.
	assert.Less(t, time.Since(start), 30*time.Second, "the hung process is killed, not waited for")
	assert.Equal(t, 1, set.Restarts())

	assert.NotEqual(t, before, pid(t, set))
	assert.Equal(t, "slept", call(t, set, "slow", map[string]any{"ms": 10}).Text)
}

func TestSlowCallFailsAloneAndKeepsTheServer(t *testing.T) {
	t.Parallel()
	// The sibling call has timeout/2 to answer once released: long enough
	// on a busy machine.
	const timeout = 4 * time.Second
	set := connectStdio(t, modeTools, Options{CallTimeout: timeout})
	srv := set.Servers[0]
	before := pid(t, set)
	release := filepath.Join(t.TempDir(), "release")

	slow := make(chan error, 1)
	go func() {
		_, err := set.Call(context.Background(), "slow", map[string]any{"ms": 60_000})
		slow <- err
	}()
	// A sibling call that is in flight when the slow one times out, and
	// answers within its own time once released.
	time.Sleep(timeout / 2)
	type answer struct {
		res Result
		err error
	}
	sibling := make(chan answer, 1)
	go func() {
		res, err := set.Call(context.Background(), "await", map[string]any{"path": release})
		sibling <- answer{res, err}
	}()

	err := <-slow
	assert.EqualError(t, err, "tool slow timed out after 4s")
	var serverErr *ServerError
	assert.False(t, errors.As(err, &serverErr), "a slow tool is not a server fault")
	require.Eventually(t, func() bool { return strings.Contains(srv.Stderr(), slowCancelledMessage) },
		5*time.Second, time.Millisecond, "the server is told to cancel the timed-out call")
	require.NoError(t, os.WriteFile(release, nil, 0o600))
	got := <-sibling
	require.NoError(t, got.err)
	assert.Equal(t, "released", got.res.Text)

	assert.Zero(t, set.Restarts())
	assert.Equal(t, before, pid(t, set), "the same process serves on")
}

func TestRestartCountIsResetBySuccessfulCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		successes     int
		wantRestarted bool
	}{
		{name: "too few successful calls between crashes", successes: successesToForgiveRestarts - 1},
		{name: "enough successful calls between crashes", successes: successesToForgiveRestarts, wantRestarted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			set := connectStdio(t, modeTools, Options{MaxRestarts: 1})
			var serverErr *ServerError
			_, err := set.Call(context.Background(), "exit", nil)
			require.ErrorAs(t, err, &serverErr)
			for range tt.successes {
				call(t, set, "echo", map[string]any{"text": "x"})
			}
			_, err = set.Call(context.Background(), "exit", nil)
			require.ErrorAs(t, err, &serverErr)

			res, err := set.Call(context.Background(), "echo", map[string]any{"text": "after"})
			if tt.wantRestarted {
				require.NoError(t, err)
				assert.Equal(t, "after", res.Text)
				assert.Equal(t, 2, set.Restarts())
			} else {
				require.ErrorIs(t, err, ErrRestartsExhausted)
				assert.Equal(t, 1, set.Restarts())
			}
		})
	}
}

func TestToolDroppedByRestartIsNotSent(t *testing.T) {
	t.Parallel()
	set := connectOnce(t, modeRestartDrops, Options{})
	hash := set.Hash()

	_, err := set.Call(context.Background(), "exit", nil)
	var serverErr *ServerError
	require.ErrorAs(t, err, &serverErr)

	_, err = set.Call(context.Background(), "echo", map[string]any{"text": "x"})
	require.ErrorAs(t, err, &serverErr)
	assert.Contains(t, err.Error(), "tool echo is no longer offered by the restarted server")
	assert.Equal(t, 1, set.Restarts(), "a dropped tool does not restart the server")

	// The tool box of the run stays as it was connected.
	assert.Contains(t, toolNames(set.Tools()), "echo")
	assert.Contains(t, toolNames(set.Servers[0].Tools()), "echo")
	assert.Equal(t, hash, set.Hash())
	assert.Equal(t, "[]", call(t, set, "args", nil).Text, "the other tools still work")
}

func TestRestartsAreBounded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		maxRestarts  int
		wantRestarts int
	}{
		{"one restart", 1, 1},
		{"restarts off", -1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			set := connectStdio(t, modeTools, Options{MaxRestarts: tt.maxRestarts})
			for range tt.wantRestarts + 1 {
				_, err := set.Call(context.Background(), "exit", nil)
				var serverErr *ServerError
				require.ErrorAs(t, err, &serverErr)
			}
			_, err := set.Call(context.Background(), "echo", map[string]any{"text": "x"})
			var serverErr *ServerError
			require.ErrorAs(t, err, &serverErr)
			require.ErrorIs(t, err, ErrRestartsExhausted)
			assert.Contains(t, err.Error(), "restarts exhausted")
			assert.Contains(t, err.Error(), crashMessage[:10], "names the last failure")
			assert.Equal(t, tt.wantRestarts, set.Restarts())
		})
	}
}

func TestHTTPServerLostSessionReconnects(t *testing.T) {
	t.Parallel()
	spec, replace := streamableSpec(t)
	set := connect(t, []string{spec}, Options{})
	assert.Equal(t, "a", call(t, set, "echo", map[string]any{"text": "a"}).Text)

	replace() // the server restarted and forgot the session
	_, err := set.Call(context.Background(), "echo", map[string]any{"text": "b"})
	var serverErr *ServerError
	require.ErrorAs(t, err, &serverErr)
	assert.Equal(t, spec, serverErr.Spec)
	assert.Equal(t, 1, set.Restarts())

	assert.Equal(t, "c", call(t, set, "echo", map[string]any{"text": "c"}).Text)
}

// connectOnce connects to a server in mode that tells a first start from
// later ones.
func connectOnce(t *testing.T, mode string, opts Options) *Set {
	t.Helper()
	opts.Env = append(opts.Env, markerEnv+"="+filepath.Join(t.TempDir(), "started"))
	return connectStdio(t, mode, opts)
}

func TestCallsDuringRestartWaitForIt(t *testing.T) {
	t.Parallel()
	set := connectOnce(t, modeRestartSlow, Options{})
	before := pid(t, set)

	crashed := make(chan error, 1)
	go func() {
		_, err := set.Call(context.Background(), "exit", nil)
		crashed <- err
	}()
	require.Eventually(t, func() bool { return set.Restarts() == 1 }, 5*time.Second, time.Millisecond)

	start := time.Now()
	after := pid(t, set) // arrives while the new process is starting
	assert.Greater(t, time.Since(start), restartDelay/5, "the call waited for the restart")
	assert.NotEqual(t, before, after)
	var serverErr *ServerError
	require.ErrorAs(t, <-crashed, &serverErr)
	assert.Equal(t, 1, set.Restarts())
}

func TestFailedRestartIsRetriedWithinTheBound(t *testing.T) {
	t.Parallel()
	set := connectOnce(t, modeRestartFails, Options{MaxRestarts: 3})

	_, err := set.Call(context.Background(), "exit", nil)
	var serverErr *ServerError
	require.ErrorAs(t, err, &serverErr)
	assert.Contains(t, serverErr.Stderr, crashMessage)
	assert.Equal(t, 1, set.Restarts(), "restarted once, and that failed")

	// Each later call tries one more restart while the bound allows.
	_, err = set.Call(context.Background(), "echo", map[string]any{"text": "x"})
	require.ErrorAs(t, err, &serverErr)
	assert.Contains(t, err.Error(), "restart")
	assert.Contains(t, err.Error(), restartFailMessage)
	assert.NotErrorIs(t, err, ErrRestartsExhausted)
	assert.Equal(t, 2, set.Restarts())

	for range 2 {
		_, err = set.Call(context.Background(), "echo", map[string]any{"text": "x"})
		require.ErrorAs(t, err, &serverErr)
		require.ErrorIs(t, err, ErrRestartsExhausted)
		assert.Contains(t, err.Error(), restartFailMessage)
		assert.Equal(t, 3, set.Restarts())
	}
}

func TestCloseDuringRestart(t *testing.T) {
	t.Parallel()
	spec, opts := stdioSpec(t, modeRestartSlow, Options{})
	opts.Env = append(opts.Env, markerEnv+"="+filepath.Join(t.TempDir(), "started"))
	srv, err := Connect(context.Background(), spec, opts)
	require.NoError(t, err)

	crashed := make(chan error, 1)
	go func() {
		_, err := srv.Call(context.Background(), "exit", nil)
		crashed <- err
	}()
	require.Eventually(t, func() bool { return srv.Restarts() == 1 }, 5*time.Second, time.Millisecond)
	require.NoError(t, srv.Close())
	var serverErr *ServerError
	require.ErrorAs(t, <-crashed, &serverErr)
	_, err = srv.Call(context.Background(), "echo", map[string]any{"text": "x"})
	require.ErrorContains(t, err, "is closed")
}

// awayServer serves the test tools over streamable HTTP on a fixed address
// and can go away and come back there, as a restarted or redeployed server
// does: the new one forgets every session.
type awayServer struct {
	t    *testing.T
	addr string
	mu   sync.Mutex
	srv  *http.Server
}

func startAwayServer(t *testing.T) *awayServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	a := &awayServer{t: t, addr: ln.Addr().String()}
	a.serve(ln)
	t.Cleanup(a.down)
	return a
}

func (a *awayServer) spec() string { return "http://" + a.addr + "/mcp" }

func (a *awayServer) serve(ln net.Listener) {
	srv := &http.Server{Handler: server.NewStreamableHTTPServer(newTestServer(modeTools, false), server.WithStateful(true))}
	a.mu.Lock()
	a.srv = srv
	a.mu.Unlock()
	go srv.Serve(ln)
}

// down closes the listener and every connection.
func (a *awayServer) down() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.srv != nil {
		a.srv.Close()
		a.srv = nil
	}
}

// up listens on the same address again.
func (a *awayServer) up() {
	var ln net.Listener
	var err error
	for range 50 { // the port may take a moment to be free again
		if ln, err = net.Listen("tcp", a.addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	require.NoError(a.t, err)
	a.serve(ln)
}

// An HTTP server away for 3 s: the calls made while it is away wait for it
// to come back, and every later call succeeds; the restarts are not used
// up by the refused connections.
func TestHTTPServerAwayForSecondsIsReconnected(t *testing.T) {
	t.Parallel()
	away := startAwayServer(t)
	set := connect(t, []string{away.spec()}, Options{ReconnectFor: time.Minute})
	assert.Equal(t, "a", call(t, set, "echo", map[string]any{"text": "a"}).Text)

	away.down()
	back := make(chan struct{})
	go func() {
		time.Sleep(3 * time.Second)
		away.up()
		close(back)
	}()
	// The first call meets the closed server: a server fault, like a call
	// in flight when a server crashes.
	_, err := set.Call(context.Background(), "echo", map[string]any{"text": "b"})
	var serverErr *ServerError
	require.ErrorAs(t, err, &serverErr)

	// Calls made while it is away wait for it.
	const waiting = 8
	errs := make(chan error, waiting)
	for i := range waiting {
		go func() {
			res, err := set.Call(context.Background(), "echo", map[string]any{"text": fmt.Sprint(i)})
			if err == nil && res.Text != fmt.Sprint(i) {
				err = fmt.Errorf("call %d answered %q", i, res.Text)
			}
			errs <- err
		}()
	}
	for range waiting {
		require.NoError(t, <-errs)
	}
	<-back
	for i := range 30 {
		assert.Equal(t, fmt.Sprint(i), call(t, set, "echo", map[string]any{"text": fmt.Sprint(i)}).Text)
	}
	assert.Equal(t, 1, set.Restarts(), "one restart, however many connections were refused")
}

// A network server that does not come back within ReconnectFor fails the
// calls waiting for it, and Close ends a reconnection at once.
func TestHTTPServerThatStaysAway(t *testing.T) {
	t.Parallel()
	away := startAwayServer(t)
	set := connect(t, []string{away.spec()}, Options{ReconnectFor: 500 * time.Millisecond, MaxRestarts: 1})
	away.down()
	_, err := set.Call(context.Background(), "echo", map[string]any{"text": "b"})
	var serverErr *ServerError
	require.ErrorAs(t, err, &serverErr)
	_, err = set.Call(context.Background(), "echo", map[string]any{"text": "c"})
	require.ErrorAs(t, err, &serverErr)
	assert.Contains(t, err.Error(), "connection refused")

	// Closing during a reconnection returns without waiting it out.
	other := startAwayServer(t)
	srv, err := Connect(context.Background(), other.spec(), Options{ReconnectFor: time.Hour})
	require.NoError(t, err)
	other.down()
	_, err = srv.Call(context.Background(), "echo", map[string]any{"text": "b"})
	require.ErrorAs(t, err, &serverErr)
	closed := make(chan struct{})
	go func() {
		srv.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(time.Minute):
		t.Fatal("Close waited for the reconnection")
	}
}

// methodRecorder records the JSON-RPC methods of the requests a handler
// receives.
type methodRecorder struct {
	next    http.Handler
	mu      sync.Mutex
	methods []string
}

func (m *methodRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(r.Body)
		if err == nil {
			var msg struct{ Method string }
			if json.Unmarshal(body, &msg) == nil && msg.Method != "" {
				m.mu.Lock()
				m.methods = append(m.methods, msg.Method)
				m.mu.Unlock()
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	m.next.ServeHTTP(w, r)
}
