package mcpconn

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// serverModeEnv makes the test binary run as a stdio MCP server instead of
// the tests; its value picks the server's behaviour.
const serverModeEnv = "MCPCONN_TEST_SERVER"

// Server modes.
const (
	modeTools        = "tools"          // the test tools
	modeSchemaV2     = "schema-v2"      // the test tools, echo with one more property
	modeCrashAtStart = "crash-at-start" // prints to stderr and exits before serving
	modeNoTools      = "no-tools"       // serves, but offers no tools
	modeSlowStart    = "slow-start"     // sleeps a minute before serving
	modeRestartFails = "restart-fails"  // the test tools, but only the first start succeeds
	modeRestartSlow  = "restart-slow"   // the test tools; starts after the first take restartDelay
	modeRestartDrops = "restart-drops"  // the test tools; starts after the first offer no echo
	modeRenamed      = "renamed"        // the test tools, served under another server name
	modeVersion2     = "version-2"      // the test tools, served as another server version

	modeNoEcho = "no-echo" // the test tools but echo; what restart-drops turns into

	// Servers of the initialize era: they refuse server/discover as an
	// unknown method, or ignore it (and cost the probe's timeout).
	modeLegacy       = "legacy"
	modeLegacySilent = "legacy-silent"
	// modeNoTasks offers the task tool without declaring task support.
	modeNoTasks = "no-tasks"
)

// markerEnv names the file by which restart-fails and restart-slow servers
// know they started before.
const markerEnv = "MCPCONN_TEST_MARKER"

const restartDelay = 500 * time.Millisecond

const (
	startupCrashMessage  = "config error: /etc/testserver.yaml not found"
	crashMessage         = "fatal: lost connection to the database"
	hangMessage          = "hang: started"
	freezeMessage        = "freeze: stopping"
	slowCancelledMessage = "slow: cancelled"
	restartFailMessage   = "refusing to start twice"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(serverModeEnv); mode != "" {
		os.Exit(serveStdio(mode))
	}
	// Most of the parallel tests wait out a timeout, a restart or a
	// server's delay, using hardly any CPU: they wait eight at a time,
	// not as many as there are CPUs, unless -parallel says otherwise.
	flag.Parse()
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		if err := flag.Set("test.parallel", "8"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	os.Exit(m.Run())
}

func serveStdio(mode string) int {
	switch mode {
	case modeCrashAtStart:
		fmt.Fprintln(os.Stderr, startupCrashMessage)
		return 1
	case modeSlowStart:
		time.Sleep(time.Minute)
	case modeRestartFails, modeRestartSlow, modeRestartDrops:
		marker := os.Getenv(markerEnv)
		_, err := os.Stat(marker)
		switch {
		case err != nil:
			if err := os.WriteFile(marker, nil, 0o600); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		case mode == modeRestartFails:
			fmt.Fprintln(os.Stderr, restartFailMessage)
			return 1
		case mode == modeRestartDrops:
			mode = modeNoEcho
		default:
			time.Sleep(restartDelay)
		}
	}
	switch mode {
	case modeLegacy, modeLegacySilent:
		return serveLegacy(mode)
	case modeTasksExtension:
		return serveTasksExtension()
	case modeWire:
		return serveWire()
	}
	// Enough workers for the concurrent hanging calls of the tests.
	if err := server.ServeStdio(newTestServer(mode, true), server.WithWorkerPoolSize(20)); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
	return 0
}

// newTestServer builds the test MCP server. Tools that end or freeze the
// process are offered only when it runs as its own process.
func newTestServer(mode string, ownProcess bool, extra ...server.ServerOption) *server.MCPServer {
	name, version := "mcpconn-test", "1.0.0"
	switch mode {
	case modeRenamed:
		name = "other-test-server"
	case modeVersion2:
		version = "2.0.0"
	}
	opts := []server.ServerOption{server.WithToolCapabilities(false), server.WithResourceCapabilities(false, false)}
	if mode != modeNoTasks {
		opts = append(opts, server.WithTaskCapabilities(true, true, true))
	}
	s := server.NewMCPServer(name, version, append(opts, extra...)...)
	if mode == modeNoTools {
		return s
	}
	addInputTools(s)
	echoOpts := []mcp.ToolOption{
		mcp.WithDescription("Returns the text it is given."),
		mcp.WithString("text", mcp.Required(), mcp.Description("text to return")),
		mcp.WithNumber("repeat", mcp.Description("how often to repeat it")),
	}
	if mode == modeSchemaV2 {
		echoOpts = append(echoOpts, mcp.WithBoolean("upper", mcp.Description("upper-case the text")))
	}
	if mode != modeNoEcho {
		s.AddTool(mcp.NewTool("echo", echoOpts...), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text := strings.Repeat(req.GetString("text", ""), max(1, req.GetInt("repeat", 1)))
			return mcp.NewToolResultText(text), nil
		})
	}
	// The state tools keep notes in the file STATE_FILE names, and say
	// whether the client declared it has roots.
	s.AddTool(mcp.NewTool("note", mcp.WithDescription("Adds a note to the state file."), mcp.WithString("text", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			f, err := os.OpenFile(os.Getenv("STATE_FILE"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			defer f.Close()
			fmt.Fprintln(f, req.GetString("text", ""))
			return mcp.NewToolResultText("noted"), nil
		})
	s.AddTool(mcp.NewTool("notes", mcp.WithDescription("Returns the notes of the state file.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			data, err := os.ReadFile(os.Getenv("STATE_FILE"))
			if err != nil && !os.IsNotExist(err) {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return mcp.NewToolResultText("notes: " + strings.Join(strings.Fields(string(data)), ",")), nil
		})
	s.AddTool(mcp.NewTool("client_roots", mcp.WithDescription("Says whether the client declared roots.")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			declared := false
			if cs, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
				declared = cs.GetClientCapabilities().Roots != nil
			}
			return mcp.NewToolResultText(fmt.Sprintf("roots declared: %v", declared)), nil
		})
	s.AddTool(mcp.NewTool("fail", mcp.WithDescription("Always reports a tool error.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("no such record"), nil
		})
	s.AddTool(mcp.NewTool("image", mcp.WithDescription("Returns a PNG image.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			data := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\nfake image data"))
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent(data, "image/png")}}, nil
		})
	s.AddTool(mcp.NewTool("binary", mcp.WithDescription("Returns text with binary bytes in it.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("start\x00\x01\xff\xfe\x1b[31mend"), nil
		})
	s.AddTool(mcp.NewTool("slow", mcp.WithDescription("Sleeps, then answers."), mcp.WithNumber("ms", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-time.After(time.Duration(req.GetInt("ms", 0)) * time.Millisecond):
				return mcp.NewToolResultText("slept"), nil
			case <-ctx.Done():
				if ownProcess {
					fmt.Fprintln(os.Stderr, slowCancelledMessage)
				}
				return nil, ctx.Err()
			}
		})
	s.AddTool(mcp.NewTool("await", mcp.WithDescription("Answers once a file exists."), mcp.WithString("path", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for {
				if _, err := os.Stat(req.GetString("path", "")); err == nil {
					return mcp.NewToolResultText("released"), nil
				}
				select {
				case <-time.After(5 * time.Millisecond):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
		})
	s.AddTool(mcp.NewTool("args", mcp.WithDescription("Returns the server's command-line arguments.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, err := json.Marshal(os.Args[1:])
			return mcp.NewToolResultText(string(b)), err
		})
	if !ownProcess {
		return s
	}
	s.AddTool(mcp.NewTool("pid", mcp.WithDescription("Returns the server's process id.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(strconv.Itoa(os.Getpid())), nil
		})
	s.AddTool(mcp.NewTool("flood", mcp.WithDescription("Writes a line without end to stdout.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			os.Stdout.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`)
			chunk := []byte(strings.Repeat("x", 1<<20))
			for {
				if _, err := os.Stdout.Write(chunk); err != nil {
					os.Exit(1)
				}
			}
		})
	s.AddTool(mcp.NewTool("exit", mcp.WithDescription("Crashes the server.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, crashMessage)
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(mcp.NewTool("hang", mcp.WithDescription("Never answers; the server stays responsive.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, hangMessage)
			select {}
		})
	s.AddTool(mcp.NewTool("freeze", mcp.WithDescription("Stops the server process: nothing is answered any more.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, freezeMessage)
			if err := stopSelf(); err != nil {
				return nil, err
			}
			select {} // the signal may take a moment to stop every thread
		})
	s.AddTool(mcp.NewTool("env", mcp.WithDescription("Returns the server's environment variables of the given comma-separated names."),
		mcp.WithString("names", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			values := map[string]string{}
			for _, name := range strings.Split(req.GetString("names", ""), ",") {
				values[name] = os.Getenv(name)
			}
			b, err := json.Marshal(values)
			return mcp.NewToolResultText(string(b)), err
		})
	return s
}

// stdioSpec is the spec and options that start the test binary as a stdio
// server in mode.
func stdioSpec(t *testing.T, mode string, opts Options) (string, Options) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// GORACE: a race-enabled binary otherwise sleeps a second at exit.
	opts.Env = append(opts.Env, serverModeEnv+"="+mode, "GORACE=atexit_sleep_ms=0")
	return shellQuote(exe), opts
}

// shellQuote quotes s for a command line split by shlex.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// swappableHandler serves through a handler that a test can replace, as if
// the server behind the URL restarted.
type swappableHandler struct{ h atomic.Pointer[http.Handler] }

func (s *swappableHandler) set(h http.Handler) { s.h.Store(&h) }

func (s *swappableHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	(*s.h.Load()).ServeHTTP(w, r)
}

// streamableSpec serves the test tools over streamable HTTP, with sessions
// (the initialize era); replace swaps in a fresh server that knows none of
// the old sessions.
func streamableSpec(t *testing.T) (spec string, replace func()) {
	t.Helper()
	var h swappableHandler
	replace = func() {
		h.set(server.NewStreamableHTTPServer(newTestServer(modeTools, false), server.WithStateful(true),
			server.WithStreamableHTTPProtocolVersions(legacyVersions()...)))
	}
	replace()
	hs := httptest.NewServer(&h)
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp", replace
}

// sseSpec serves the test tools over SSE.
func sseSpec(t *testing.T) string {
	t.Helper()
	sse := server.NewSSEServer(newTestServer(modeTools, false))
	hs := httptest.NewServer(sse)
	t.Cleanup(hs.Close)
	return "sse:" + hs.URL + "/sse"
}
