// Package mcpconn connects to MCP servers over stdio, streamable HTTP or SSE,
// lists their tools and executes tool calls, on the protocol revision each
// server speaks (2026-07-28 where it answers server/discover, else the
// initialize handshake; see era.go). As a host does, it offers roots,
// answers elicitations (with a case's scripted replies, see WithReplier),
// runs tools that require tasks as tasks, checks structured output against
// the tool's output schema and reads linked resources.
//
// A server is named by a spec: an http(s) URL is a streamable HTTP endpoint,
// "sse:" followed by a URL is an SSE endpoint, anything else is a command
// line started as a stdio subprocess that lives as long as the connection.
// Servers can also come from the mcpServers object of the configuration
// files MCP clients keep (see LoadServersFile). A stdio server gets a small
// allow-list of this process's environment (see InheritedEnv) plus what its
// spec and Options.Env give it.
package mcpconn

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Result is what a tool call returned.
type Result struct {
	Text    string
	IsError bool
	// Execution is what a code-running tool reported about the code it
	// ran, in the result's _meta under eval.CodeExecutionMeta; nil if none.
	Execution *eval.CodeExecution
	// Replay says where the result of a replaying tool box came from
	// (eval.ReplayRecorded, ...); "" for a server's own answer. A result
	// read from the recordings store has its Fingerprint there: it is
	// recorded already.
	Replay      string
	Fingerprint string
	// Elicitations are the requests for the user's input the server made
	// during the call, with their replies (see WithReplier).
	Elicitations []eval.Elicitation
	// OutputError says how structuredContent breaks the tool's output
	// schema (see eval.ToolCall.OutputError).
	OutputError string
	// Unchecked names the schema the result was too costly to check
	// against (see eval.ToolCall.Unchecked).
	Unchecked string
	// Task is the task the call ran as; nil for a plain call.
	Task *eval.TaskRun
	// Links are the resource links the result returned.
	Links []eval.ResourceLink
	// Stderr holds the last lines of a stdio server's stderr when the
	// result is an error.
	Stderr string
}

// Options tune connections.
type Options struct {
	// StartTimeout bounds starting and initialising a server (default 30 s).
	StartTimeout time.Duration
	// CallTimeout bounds one tool call (default 120 s). A call that runs
	// longer is cancelled and fails with an ordinary error, and the server
	// is pinged (waiting at most 5 s, or CallTimeout if that is shorter):
	// only a server that does not answer the ping either counts as hung,
	// which is a *ServerError and restarts it.
	CallTimeout time.Duration
	// MaxRestarts bounds how often a crashed or hung server is restarted in
	// a row (default 3; negative: never). A server restarted MaxRestarts
	// times without 20 successful calls in between is given up: later calls
	// fail with ErrRestartsExhausted. 20 successful calls since the last
	// restart reset the count, so a long run survives occasional crashes.
	MaxRestarts int
	// Env is added to the environment of every stdio server, as NAME=value
	// entries; a bare NAME passes that variable on from this process. Of
	// this process's environment a stdio server inherits only the variables
	// InheritedEnv names; the rest (API keys, tokens, the suite's settings)
	// reaches it only when Env or its Spec names it.
	Env []string
	// ReconnectFor bounds how long the restart of an HTTP or SSE server
	// keeps trying to reach it again, with backoff (default 60 s; the suite
	// gives the case timeout): a server away for some seconds (a deploy,
	// a restart) is back for the next calls. Calls wait for the restart,
	// each as long as its own context allows.
	ReconnectFor time.Duration
	// MaxMessageBytes bounds one message of a server (default
	// MaxMessageBytes): a larger tool result fails its call, saying so.
	MaxMessageBytes int
	// Tools selects the tools offered to the model, by patterns (see
	// selected); none offers every tool.
	Tools []string
	// Roots are the directories (or file:// URIs) offered to every server
	// without roots of its own (Spec.Roots) as the client's roots; with
	// none, only a servers file's server started in a directory of its own
	// is offered that directory (see Server.roots).
	Roots []string
}

// successesToForgiveRestarts is how many successful calls since the last
// restart reset a server's restart count (see Options.MaxRestarts).
const successesToForgiveRestarts = 20

// maxPingTimeout bounds the ping that tells a slow tool from a hung server.
const maxPingTimeout = 5 * time.Second

func (o Options) withDefaults() Options {
	if o.StartTimeout <= 0 {
		o.StartTimeout = 30 * time.Second
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 120 * time.Second
	}
	if o.ReconnectFor <= 0 {
		o.ReconnectFor = 60 * time.Second
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = MaxMessageBytes
	}
	switch {
	case o.MaxRestarts == 0:
		o.MaxRestarts = 3
	case o.MaxRestarts < 0:
		o.MaxRestarts = 0
	}
	return o
}

// ErrRestartsExhausted is the cause of a ServerError once a server has
// failed more often than Options.MaxRestarts allows.
var ErrRestartsExhausted = errors.New("restarts exhausted")

// ServerError is a call that failed because of the server rather than the
// tool: the process died, the transport closed, or the server hung (a call
// outlasted CallTimeout and the server then failed a ping); the server is
// restarted for later calls. It is also the error of a call to a tool that
// the server stopped offering when it was restarted (see Server.Tools).
type ServerError struct {
	Spec   string
	Err    error
	Stderr string // tail of the failed server's stderr (stdio servers only)
}

func (e *ServerError) Error() string {
	msg := fmt.Sprintf("MCP server %s failed: %s", e.Spec, Describe(e.Err))
	if last := lastLine(e.Stderr, 200); last != "" {
		msg += " (stderr: " + last + ")"
	}
	return msg
}

func (e *ServerError) Unwrap() error { return e.Err }

// Describe is an error's text with a part the MCP client library repeats
// said once ("failed to send request: failed to send request: Post ...").
func Describe(err error) string {
	parts := strings.Split(err.Error(), ": ")
	out := parts[:1]
	for _, p := range parts[1:] {
		if p != out[len(out)-1] {
			out = append(out, p)
		}
	}
	return strings.Join(out, ": ")
}

// Server is one connected MCP server. A server that crashes or hangs during a
// call is restarted (see Options.MaxRestarts).
type Server struct {
	// Spec is the server's name in messages (Spec.Name).
	Spec string
	spec Spec
	opts Options
	// life ends when the server is closed: it stops a reconnection.
	life   context.Context
	stop   context.CancelFunc
	stderr *tailBuffer        // every process started for this server
	tools  []eval.Tool        // listed at Connect
	info   mcp.Implementation // serverInfo of the first initialize
	// protocol is the protocol revision the first connection settled on;
	// notices say what the run should know of the server (tools left out).
	protocol string
	notices  []string
	// fellBack is set when the server answered server/discover but
	// refused the revision: its connections start with the handshake.
	fellBack atomic.Bool

	mu             sync.Mutex
	conn           *conn         // nil when closed, or when the last start failed
	generation     int           // counts starts; a fault restarts only the generation it hit
	restarts       int           // restarts attempted in all
	recentRestarts int           // restarts attempted since the count was last reset
	successes      int           // successful calls since the last restart
	restarting     chan struct{} // closed when the running restart ends; nil if none
	lastFault      error         // why conn is nil
	closed         bool
	// recorded is set on a server made from a recording (see Offline):
	// it has no connection, and says so to a call.
	recorded bool
	// lazy is set on a server of one case (see fork): it starts at its
	// first call, with a fresh copy of its state in stateDir, removed by
	// Close.
	lazy     bool
	stateDir string
	// slot is held by the case that uses a server to reset (see ForCase).
	slot     chan struct{}
	slotOnce sync.Once
}

// conn is one started connection: one process for stdio servers, one
// session for HTTP and SSE servers.
type conn struct {
	client     *client.Client
	generation int
	tools      []eval.Tool // as this connection listed them, those it can call
	meta       map[string]toolMeta
	info       mcp.Implementation // serverInfo of this connection's initialize
	protocol   string             // the protocol revision in effect
	caps       mcp.ServerCapabilities
	roots      *givenRoots // the roots offered
	stderr     *tailBuffer // this process only
	kill       context.CancelFunc
	calls      calls    // the calls in flight
	left       []string // tools listed but not offered, with why
	// sharedStream is true when a server's own requests do not say which
	// call they belong to: a stdio or SSE connection on a revision before
	// 2026-07-28.
	sharedStream bool
	// clientCaps are the capabilities the client declares; elicit and
	// rootsAsked the handlers it answers a server's requests with (see
	// newClient).
	clientCaps mcp.ClientCapabilities
	elicit     client.ElicitationHandler
	rootsAsked client.RootsHandler // nil when no roots are offered
	// direct sends the plain tool calls of a stdio connection (see
	// directCaller); nil for HTTP and SSE.
	direct *directCaller

	closeOnce sync.Once
}

// close ends the connection. force kills a stdio process at once instead of
// letting it exit after its stdin closes. Concurrent callers all return once
// the connection is closed, when the process's stderr is complete.
func (cn *conn) close(force bool) {
	cn.closeOnce.Do(func() {
		if force {
			cn.kill()
		}
		cn.client.Close()
		cn.kill()
	})
}

// Connect starts (for stdio) and initialises the server named by spec and
// lists its tools. A server that fails to start, or lists no tools, is an
// error that carries the tail of its stderr.
func Connect(ctx context.Context, spec string, opts Options) (*Server, error) {
	parsed, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	return ConnectSpec(ctx, parsed, opts)
}

// ConnectSpec is Connect with a parsed spec.
func ConnectSpec(ctx context.Context, spec Spec, opts Options) (*Server, error) {
	s := &Server{Spec: spec.Name, spec: spec, opts: opts.withDefaults(), stderr: newTailBuffer(8 << 10)}
	s.life, s.stop = context.WithCancel(context.Background())
	cn, err := s.dial(ctx, 1)
	var refused *startError
	fallback := ""
	if err != nil && spec.Protocol == "" && errors.As(err, &refused) && refused.modern != "" {
		// It answered server/discover, then refused the revision: some
		// servers (the official Go SDK's default HTTP handler) speak only
		// the handshake, whatever their discovery says.
		s.fellBack.Store(true)
		if cn, err = s.dial(ctx, 1); err == nil {
			fallback = fmt.Sprintf("spoken to on revision %s, after the handshake: on %s it answered server/discover, then refused the revision (%v)",
				cn.protocol, refused.modern, refused.err)
		}
	}
	if err != nil {
		s.stop()
		return nil, err
	}
	s.conn, s.tools, s.info, s.protocol, s.generation = cn, cn.tools, cn.info, cn.protocol, 1
	s.notices = cn.left
	if spec.Protocol != "" && cn.protocol != spec.Protocol {
		fallback = fmt.Sprintf("held to revision %s, but the server answered on %s: spoken to on %s", spec.Protocol, cn.protocol, cn.protocol)
	}
	if fallback != "" {
		s.notices = append([]string{fallback}, s.notices...)
	}
	return s, nil
}

// dial starts one connection and lists its tools, within StartTimeout.
func (s *Server) dial(ctx context.Context, generation int) (*conn, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.StartTimeout)
	defer cancel()
	// The process (or SSE stream) lives until kill; a start that outlasts
	// ctx is abandoned by killing it.
	life, kill := context.WithCancel(context.Background())
	stopWatch := context.AfterFunc(ctx, kill)
	cn := &conn{generation: generation, stderr: newTailBuffer(8 << 10), kill: kill}
	c, err := s.newClient(cn)
	if err != nil {
		kill()
		return nil, fmt.Errorf("server %s: %w", s.Spec, err)
	}
	cn.client = c
	fail := func(err error) (*conn, error) {
		cn.close(true)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("start timed out after %s: %w", s.opts.StartTimeout, err)
		}
		se := &startError{err: fmt.Errorf("server %s: %w", s.Spec, err), stderr: strings.TrimSpace(cn.stderr.String())}
		if mcp.IsModernProtocol(cn.protocol) && ctx.Err() == nil {
			se.modern = cn.protocol
		}
		return nil, se
	}
	if err := c.Start(life); err != nil {
		return fail(fmt.Errorf("start: %w", err))
	}
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = clientInfo
	initCtx, span := s.startSpan(ctx, cn, mcp.MethodInitialize, "")
	initialized, err := c.Initialize(initCtx, req)
	if err == nil && span.IsRecording() {
		if mcp.IsModernProtocol(c.ProtocolVersion()) {
			// The current revision has no handshake: its client discovers.
			span.SetName(string(mcp.MethodServerDiscover))
			span.SetAttributes(semconv.McpMethodNameKey.String(string(mcp.MethodServerDiscover)))
		}
		span.SetAttributes(semconv.McpProtocolVersionKey.String(c.ProtocolVersion()))
		if id := c.GetSessionId(); id != "" {
			span.SetAttributes(semconv.McpSessionIDKey.String(id))
		}
	}
	endSpan(span, false, err)
	if err != nil {
		return fail(fmt.Errorf("initialize: %w", err))
	}
	cn.info, cn.caps, cn.protocol = initialized.ServerInfo, initialized.Capabilities, c.ProtocolVersion()
	cn.sharedStream = !mcp.IsModernProtocol(cn.protocol) && (s.spec.URL == "" || s.spec.SSE)
	if s.spec.URL == "" {
		if cn.direct, err = newDirectCaller(c.GetTransport(), cn.protocol, cn.clientCaps, cn.elicit, cn.rootsAsked); err != nil {
			return fail(err)
		}
	}
	listCtx, span := s.startSpan(ctx, cn, mcp.MethodToolsList, "")
	listed, err := listTools(listCtx, c)
	endSpan(span, false, err)
	if err != nil {
		return fail(err)
	}
	if len(listed) == 0 {
		return fail(errors.New("lists no tools"))
	}
	cn.tools, cn.meta, cn.left = callable(listed, cn.caps, cn.protocol)
	if len(cn.tools) == 0 {
		return fail(fmt.Errorf("offers no tool the suite can call: %s", strings.Join(cn.left, "; ")))
	}
	if !stopWatch() {
		return fail(ctx.Err())
	}
	return cn, nil
}

// startError is a server that failed to start, with the tail of its stderr.
type startError struct {
	err    error
	stderr string
	// modern is the revision from 2026-07-28 on the server was spoken to
	// in when it failed after server/discover, "" otherwise.
	modern string
}

func (e *startError) Error() string {
	if e.stderr == "" {
		return e.err.Error()
	}
	return e.err.Error() + "\nserver stderr:\n" + e.stderr
}

func (e *startError) Unwrap() error { return e.err }

// newClient builds the client of a connection for the spec; stdio
// servers write their stderr to the server's tail and to the
// connection's own.
func (s *Server) newClient(cn *conn) (*client.Client, error) {
	roots, err := s.roots()
	if err != nil {
		return nil, err
	}
	cn.roots = &givenRoots{roots: roots}
	caps := clientCapabilities
	cn.elicit = elicitFunc(cn.calls.elicit)
	opts := []client.ClientOption{client.WithElicitationHandler(cn.elicit)}
	if len(roots) > 0 {
		cn.rootsAsked = cn.roots
		opts = append(opts, client.WithRootsHandler(cn.roots))
	} else {
		caps.Roots = nil // no roots configured: the server keeps its own directories
	}
	cn.clientCaps = caps
	opts = append(opts, client.WithClientCapabilities(caps))
	opts = append(opts, s.protocolOptions()...)
	stderr := cn.stderr
	sp := s.spec
	switch {
	case sp.URL != "" && sp.SSE:
		// The transports log to stderr what the calls report anyway (a
		// session that cannot be closed on a server that went away).
		t, err := newSSETransport(sp.URL, sp.Headers, boundedClient(s.opts.MaxMessageBytes))
		if err != nil {
			return nil, err
		}
		return client.NewClient(t, opts...), nil
	case sp.URL != "":
		t, err := transport.NewStreamableHTTP(sp.URL, transport.WithHTTPHeaders(sp.Headers), transport.WithHTTPLogger(quiet),
			transport.WithHTTPBasicClient(boundedClient(s.opts.MaxMessageBytes)))
		if err != nil {
			return nil, err
		}
		return client.NewClient(&tracedHTTP{t}, opts...), nil
	case sp.Command == "":
		return nil, errors.New("neither a command nor a URL")
	}
	env := childEnv(os.Environ(), append(slices.Clone(s.opts.Env), sp.Env...))
	command := func(ctx context.Context) *exec.Cmd {
		cmd := exec.CommandContext(ctx, sp.Command, sp.Args...) // killed when the connection's context ends
		cmd.Env = env
		cmd.Dir = sp.Dir
		// A writer (not a file) makes Wait return only once all of stderr
		// is copied; WaitDelay bounds that if a grandchild keeps it open.
		cmd.Stderr = io.MultiWriter(s.stderr, stderr)
		cmd.WaitDelay = 2 * time.Second
		ownGroup(cmd)
		return cmd
	}
	t, err := newStdioTransport(command, s.opts.MaxMessageBytes)
	if err != nil {
		return nil, err
	}
	return client.NewClient(t, opts...), nil
}

// quiet is the logger of the network transports.
var quiet = slog.New(slog.DiscardHandler)

// InheritedEnv names the variables of this process's environment that a
// stdio server inherits, as the MCP SDKs do: the user, home, shell, path,
// terminal, locale and temporary directory (and their Windows
// counterparts), and the Go toolchain's settings, so that a server started
// with `go run` builds as it would from a shell. Variables whose names
// start with LC_ pass too.
var InheritedEnv = []string{
	"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LANGUAGE", "TZ", "TMPDIR",
	"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR",
	"APPDATA", "COMSPEC", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATHEXT", "PROCESSOR_ARCHITECTURE",
	"PROGRAMFILES", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP", "USERNAME", "USERPROFILE", "WINDIR",
	"GOROOT", "GOPATH", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GOSUMDB", "GONOSUMDB",
	"GONOPROXY", "GOPRIVATE", "GOINSECURE", "GOTOOLCHAIN", "GOTMPDIR", "GOENV",
}

// inherited reports whether a stdio server inherits the variable name.
func inherited(name string) bool {
	return slices.Contains(InheritedEnv, name) || strings.HasPrefix(name, "LC_")
}

// childEnv is the environment of a stdio server: the variables of parent
// that InheritedEnv names, then extra (NAME=value entries, or bare names of
// parent variables to pass on, whatever they hold). A later entry for a
// name wins over an earlier one.
func childEnv(parent, extra []string) []string {
	env := make([]string, 0, len(InheritedEnv)+len(extra))
	for _, kv := range parent {
		if name, _, _ := strings.Cut(kv, "="); inherited(name) {
			env = append(env, kv)
		}
	}
	for _, kv := range extra {
		if strings.Contains(kv, "=") {
			env = append(env, kv)
			continue
		}
		for _, inherited := range parent {
			if strings.HasPrefix(inherited, kv+"=") {
				env = append(env, inherited)
			}
		}
	}
	return env
}

func listTools(ctx context.Context, c *client.Client) ([]mcp.Tool, error) {
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return nil, fmt.Errorf("list tools: %w", err)
	}
	return res.Tools, nil
}

// Tools returns the tools the server listed at Connect. A restart does not
// change them: tools a restarted server adds are not offered, and a call to
// a tool it no longer lists fails with a *ServerError without being sent.
func (s *Server) Tools() []eval.Tool { return s.tools }

// Info returns the name and version the server gave in its serverInfo when
// it was connected.
func (s *Server) Info() (name, version string) { return s.info.Name, s.info.Version }

// Protocol returns the MCP protocol revision the server was first
// reached on: 2026-07-28 or later for a server that answers discovery,
// else the revision its initialize handshake agreed.
func (s *Server) Protocol() string { return s.protocol }

// Notices say what the run should know of the server: the tools it
// lists that are not offered, and why.
func (s *Server) Notices() []string { return slices.Clone(s.notices) }

// Stderr returns the tail of the server's stderr (stdio servers only), across
// restarts.
func (s *Server) Stderr() string { return s.stderr.String() }

// Restarts returns how many restarts were attempted after failures, in all.
func (s *Server) Restarts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.restarts
}

// Call executes one tool call. args is the JSON object the model sent. A tool
// that reports an error gives IsError; a protocol error is returned as err.
// A call that outlasts CallTimeout is an error too, unless the server then
// fails a ping. A crashed, disconnected or hung server gives a *ServerError,
// and the server is restarted for later calls. The server's requests for
// the user's input are answered by ctx's Replier (see WithReplier), or
// declined; a tool that requires tasks runs as a task, polled within
// CallTimeout.
func (s *Server) Call(ctx context.Context, name string, args map[string]any) (Result, error) {
	cn, err := s.current(ctx)
	if err != nil {
		return Result{}, err
	}
	if !hasTool(cn.tools, name) && hasTool(s.tools, name) {
		return Result{}, &ServerError{Spec: s.Spec, Err: fmt.Errorf("tool %s is no longer offered by the restarted server", name)}
	}
	if args == nil {
		args = map[string]any{} // "arguments": null is refused by some servers
	}
	if err := cn.roots.settle(ctx); err != nil {
		return Result{}, fmt.Errorf("tool %s: %w", name, err)
	}
	p := pendingOf(ctx)
	if cn.sharedStream {
		// A request of the server's own cannot say which call it belongs
		// to: a call whose case scripted replies runs alone.
		if p.replier != nil {
			cn.calls.exclusive.Lock()
			defer cn.calls.exclusive.Unlock()
		} else {
			cn.calls.exclusive.RLock()
			defer cn.calls.exclusive.RUnlock()
		}
	}
	defer cn.calls.begin(p)()
	ctx, span := s.startSpan(ctx, cn, mcp.MethodToolsCall, name, semconv.GenAIToolName(name), semconv.GenAIOperationNameExecuteTool)
	// The end of callCtx cancels this request alone (notifications/cancelled
	// over stdio, the aborted request over HTTP).
	callCtx, cancel := context.WithTimeout(context.WithValue(ctx, pendingKey{}, p), s.opts.CallTimeout)
	defer cancel()
	var res *mcp.CallToolResult
	var task *eval.TaskRun
	switch cn.meta[name].mode {
	case coreTask:
		res, task, err = s.callCoreTask(callCtx, cn, p, name, args)
	case tasksExtension:
		res, task, err = s.callWithTasksExtension(callCtx, cn, p, name, args)
	default:
		req := mcp.CallToolRequest{}
		req.Params.Name = name
		req.Params.Arguments = args
		res, err = cn.callTool(callCtx, req)
	}
	if err == nil {
		endSpan(span, res.IsError, nil)
		s.succeeded()
		text, links := resultText(res)
		out := Result{Text: text, IsError: res.IsError, Execution: codeExecution(res), Elicitations: p.elicitations(),
			Task: task, Links: links}
		out.OutputError, out.Unchecked = cn.meta[name].checkOutput(res)
		if res.IsError {
			out.Stderr = lastLines(cn.stderr.String(), stderrLines)
		}
		return out, nil
	}
	err = s.failed(ctx, callCtx, cn, p, "tool "+name, err)
	endSpan(span, false, err)
	return Result{}, err
}

// callTool makes a plain tool call: straight through the transport on a
// stdio connection (see directCaller), with mcp-go's CallTool otherwise
// (and for a call that asks for a task).
func (cn *conn) callTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if cn.direct != nil && req.Params.Task == nil {
		return cn.direct.callTool(ctx, req)
	}
	return cn.client.CallTool(ctx, req)
}

// failed is the error of a request (a call, the reading of a resource)
// that failed: the caller's context ending, a timeout (a hung server is
// restarted), a broken transport (the server is restarted), else the
// server's error answer, as a *CallError.
func (s *Server) failed(ctx, callCtx context.Context, cn *conn, p *pending, what string, err error) error {
	var transportErr *transport.Error
	switch {
	case ctx.Err() != nil: // the caller gave up; the server is not at fault
		return fmt.Errorf("%s: %w", what, ctx.Err())
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		return s.timedOut(ctx, cn, what)
	case errors.As(err, &transportErr):
		return s.fault(ctx, cn, fmt.Errorf("%s: %w", what, err))
	}
	return &CallError{Err: fmt.Errorf("%s: %w", what, err), Elicitations: p.elicitations(), Stderr: lastLines(cn.stderr.String(), stderrLines)}
}

// ReadResource reads a resource the server offers (a resource link a tool
// result returned) and returns its contents as the model is shown them
// (see resultText). Failures are those of Call.
func (s *Server) ReadResource(ctx context.Context, uri string) (Result, error) {
	cn, err := s.current(ctx)
	if err != nil {
		return Result{}, err
	}
	p := pendingOf(ctx)
	defer cn.calls.begin(p)()
	ctx, span := s.startSpan(ctx, cn, mcp.MethodResourcesRead, "", semconv.McpResourceURIKey.String(uri))
	callCtx, cancel := context.WithTimeout(context.WithValue(ctx, pendingKey{}, p), s.opts.CallTimeout)
	defer cancel()
	res, err := cn.client.ReadResource(callCtx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
	if err != nil {
		// Failed before the span ends: a ping after a timeout is a
		// client span beneath it.
		failed := s.failed(ctx, callCtx, cn, p, "resource "+uri, err)
		endSpan(span, false, failed)
		var fault *ServerError
		if errors.Is(err, transport.ErrSessionTerminated) && errors.As(failed, &fault) {
			// The server refused this read by ending the session (HTTP
			// 404), as some without sessions do for a link of an earlier
			// call: the connection starts again, and the model is told
			// no, as a server that refuses the read does.
			return Result{}, &CallError{Err: fmt.Errorf("resource %s: the server refused the read (HTTP 404: its session ended)", uri), Elicitations: p.elicitations()}
		}
		return Result{}, failed
	}
	endSpan(span, false, nil)
	s.succeeded()
	parts := make([]string, len(res.Contents))
	for i, c := range res.Contents {
		parts[i] = resourceText(c)
	}
	if len(parts) == 0 {
		parts = append(parts, "(the resource has no contents)")
	}
	return Result{Text: sanitize(strings.Join(parts, "\n")), Elicitations: p.elicitations()}, nil
}

// CallError is a call the server answered with an error instead of a
// result (a protocol error such as invalid parameters), with what is
// known of it: the elicitations it met and the server's last stderr lines.
type CallError struct {
	Err          error
	Elicitations []eval.Elicitation
	Stderr       string
}

func (e *CallError) Error() string { return e.Err.Error() }
func (e *CallError) Unwrap() error { return e.Err }

// stderrLines bounds the stderr lines a failed call carries.
const stderrLines = 20

// lastLines returns the last n non-empty lines of text, at most 2 KiB.
func lastLines(text string, n int) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	var keep []string
	for i := len(lines) - 1; i >= 0 && len(keep) < n; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			keep = append(keep, l)
		}
	}
	slices.Reverse(keep)
	out := strings.Join(keep, "\n")
	if len(out) > 2<<10 {
		out = "…" + strings.ToValidUTF8(out[len(out)-2<<10:], "")
	}
	return out
}

// timedOut is the error of a call that outlasted CallTimeout. A server that
// still answers a ping is merely slow, and only this call fails; one that
// does not is hung, and is restarted.
func (s *Server) timedOut(ctx context.Context, cn *conn, what string) error {
	timeout := fmt.Errorf("%s timed out after %s", what, s.opts.CallTimeout)
	pingCtx, cancel := context.WithTimeout(ctx, min(maxPingTimeout, s.opts.CallTimeout))
	defer cancel()
	method := mcp.MethodPing
	if mcp.IsModernProtocol(cn.protocol) {
		method = mcp.MethodServerDiscover
	}
	pingCtx, span := s.startSpan(pingCtx, cn, method, "")
	err := alive(pingCtx, cn)
	endSpan(span, false, err)
	var transportErr *transport.Error
	switch {
	case err == nil, !errors.As(err, &transportErr): // an error response is an answer too
		return timeout
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w", what, ctx.Err())
	}
	return s.fault(ctx, cn, fmt.Errorf("%w, and the server failed a ping: %v", timeout, err))
}

// succeeded counts a successful call towards resetting the restart count.
func (s *Server) succeeded() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.successes++
	if s.successes >= successesToForgiveRestarts {
		s.recentRestarts = 0
	}
}

func hasTool(tools []eval.Tool, name string) bool {
	return slices.ContainsFunc(tools, func(t eval.Tool) bool { return t.Name == name })
}

// current returns the live connection. It waits for a restart in progress,
// and when the last restart failed it tries one more while restarts remain.
func (s *Server) current(ctx context.Context) (*conn, error) {
	retried := false
	s.mu.Lock()
	for {
		switch {
		case s.recorded:
			s.mu.Unlock()
			return nil, fmt.Errorf("server %s is not started: the run answers its calls from recordings", s.Spec)
		case s.closed:
			s.mu.Unlock()
			return nil, fmt.Errorf("server %s is closed", s.Spec)
		case s.restarting != nil:
			done := s.restarting
			s.mu.Unlock()
			select {
			case <-done:
			case <-ctx.Done():
				return nil, fmt.Errorf("server %s: waiting for restart: %w", s.Spec, ctx.Err())
			}
			s.mu.Lock()
		case s.conn != nil:
			cn := s.conn
			s.mu.Unlock()
			return cn, nil
		case s.lazy && s.generation == 0: // a case's own server, at its first call
			s.generation = 1
			done := make(chan struct{})
			s.restarting = done
			s.mu.Unlock()
			cn, err := s.startFresh(ctx)
			s.finishRestart(done, cn, err)
			if err != nil {
				return nil, &ServerError{Spec: s.Spec, Err: err}
			}
			s.mu.Lock()
		case s.recentRestarts >= s.opts.MaxRestarts:
			err := &ServerError{Spec: s.Spec, Err: fmt.Errorf("%w (%d restarts); last failure: %w", ErrRestartsExhausted, s.recentRestarts, s.lastFault)}
			s.mu.Unlock()
			return nil, err
		case retried:
			err := &ServerError{Spec: s.Spec, Err: s.lastFault}
			s.mu.Unlock()
			return nil, err
		default: // the last restart failed
			retried = true
			generation := s.generation
			s.mu.Unlock()
			s.restart(ctx, generation, nil)
			s.mu.Lock()
		}
	}
}

// fault ends the failed connection and restarts the server once for it;
// calls that failed on the same connection share that restart.
func (s *Server) fault(ctx context.Context, cn *conn, cause error) error {
	cn.close(true)
	stderr := strings.TrimSpace(cn.stderr.String())
	fault := cause
	if last := lastLine(stderr, 200); last != "" {
		fault = fmt.Errorf("%w (stderr: %s)", cause, last)
	}
	s.restart(ctx, cn.generation, fault)
	return &ServerError{Spec: s.Spec, Err: cause, Stderr: stderr}
}

// restart starts a fresh connection if generation is still the current one
// and no restart is running; otherwise it returns at once. ctx is the
// failed request's: when it was recorded, the restart is a trace of its
// own linked to it (see startRestartSpan).
func (s *Server) restart(ctx context.Context, generation int, cause error) {
	s.mu.Lock()
	if s.closed || s.restarting != nil || s.generation != generation {
		s.mu.Unlock()
		return
	}
	if cause != nil {
		s.lastFault = cause
	}
	s.conn = nil
	if s.recentRestarts >= s.opts.MaxRestarts {
		s.mu.Unlock()
		return
	}
	s.restarts++
	s.recentRestarts++
	s.successes = 0
	s.generation++
	generation = s.generation
	done := make(chan struct{})
	s.restarting = done
	s.mu.Unlock()

	span, ended := startRestartSpan(ctx)
	if s.network() {
		// The server may be away for a while: reconnect in the background,
		// calls waiting for it as long as their contexts allow.
		go func() {
			cn, err := s.reconnect(trace.ContextWithSpan(s.life, span), generation)
			ended(err)
			s.finishRestart(done, cn, err)
		}()
		return
	}
	cn, err := s.dial(trace.ContextWithSpan(context.Background(), span), generation)
	ended(err)
	s.finishRestart(done, cn, err)
}

// network reports whether the server is reached over HTTP or SSE rather
// than started as a process.
func (s *Server) network() bool { return s.spec.URL != "" }

// reconnect dials a network server until it answers, with a backoff from
// 100 ms doubling to 2 s, for up to ReconnectFor or until it is closed.
func (s *Server) reconnect(ctx context.Context, generation int) (*conn, error) {
	deadline := time.Now().Add(s.opts.ReconnectFor)
	wait := 100 * time.Millisecond
	for {
		cn, err := s.dial(ctx, generation)
		if err == nil || time.Now().Add(wait).After(deadline) {
			return cn, err
		}
		select {
		case <-s.life.Done():
			return nil, err
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// finishRestart installs the connection a restart made, or records why it
// failed, and wakes the calls waiting for it.
func (s *Server) finishRestart(done chan struct{}, cn *conn, err error) {
	s.mu.Lock()
	s.restarting = nil
	closed := s.closed
	switch {
	case err != nil:
		s.lastFault = fmt.Errorf("restart: %w", err)
		var se *startError
		if errors.As(err, &se) && se.stderr != "" {
			s.lastFault = fmt.Errorf("restart: %w (stderr: %s)", se.err, lastLine(se.stderr, 200))
		}
	case !closed:
		s.conn = cn
	}
	s.mu.Unlock()
	if err == nil && closed {
		cn.close(false)
	}
	close(done)
}

// Close ends the connection (and the stdio subprocess), after any restart in
// progress.
func (s *Server) Close() error {
	s.stop()
	s.mu.Lock()
	s.closed = true
	cn, done := s.conn, s.restarting
	s.conn = nil
	s.mu.Unlock()
	if done != nil {
		<-done
	}
	if cn != nil {
		cn.close(false)
	}
	s.mu.Lock()
	dir := s.stateDir
	s.mu.Unlock()
	if dir != "" {
		return os.RemoveAll(dir)
	}
	return nil
}

// lastLine returns the last non-empty line of text, cut to max bytes.
func lastLine(text string, max int) string {
	text = strings.TrimSpace(text)
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		text = strings.TrimSpace(text[i+1:])
	}
	if len(text) > max {
		text = strings.ToValidUTF8(text[:max], "") + "…"
	}
	return text
}

// codeExecution reads the eval.CodeExecution a tool result's _meta carries.
// mcp-go decodes _meta into generic values, so the entry is encoded again to
// be read typed; an entry that does not fit is ignored.
func codeExecution(res *mcp.CallToolResult) *eval.CodeExecution {
	if res.Meta == nil {
		return nil
	}
	v, ok := res.Meta.AdditionalFields[eval.CodeExecutionMeta]
	if !ok {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var e eval.CodeExecution
	if json.Unmarshal(data, &e) != nil {
		return nil
	}
	return &e
}

// sanitize makes tool output safe to hand to a model: invalid UTF-8 and
// control characters other than tab and line breaks become U+FFFD.
func sanitize(text string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' || !unicode.IsControl(r) {
			return r
		}
		return utf8.RuneError
	}, strings.ToValidUTF8(text, string(utf8.RuneError)))
}

// Set is the servers of a run, seen as one tool box. Its tools are those
// the servers listed at connect time, which a restart does not change (see
// Server.Tools), so Hash stays the key of the whole run. Each tool is
// offered to the model under a name providers accept (see Tool.Offered)
// and called on its server under its own.
type Set struct {
	Servers []*Server
	// names are the servers' short names (see serverNames), by index.
	names     []string
	entries   []Tool
	byOffered map[string]int
	tools     []eval.Tool // as offered
	// view is true for a set made by View or ForCase, which shares its
	// servers; gates are a case's passages to the servers to reset (see
	// ForCase).
	view  bool
	gates map[*Server]*caseGate
}

// ConnectAll connects to every spec. On error every server already
// started is closed.
func ConnectAll(ctx context.Context, specs []string, opts Options) (*Set, error) {
	parsed, err := ParseSpecs(specs)
	if err != nil {
		return nil, err
	}
	return ConnectSpecs(ctx, parsed, opts)
}

// ConnectSpecs is ConnectAll with parsed specs. The tools that
// Options.Tools selects are offered; a selection that leaves no tool is an
// error.
func ConnectSpecs(ctx context.Context, specs []Spec, opts Options) (*Set, error) {
	var servers []*Server
	for _, spec := range specs {
		s, err := ConnectSpec(ctx, spec, opts)
		if err != nil {
			(&Set{Servers: servers}).Close()
			return nil, err
		}
		servers = append(servers, s)
	}
	return newSet(servers, opts.Tools)
}

// newSet returns the set of servers, offering the tools that the patterns
// tools select (see selected); a selection that leaves no tool is an error
// that closes the servers.
func newSet(servers []*Server, tools []string) (*Set, error) {
	set := &Set{Servers: servers, byOffered: map[string]int{}}
	set.names = serverNames(set.Servers)
	listed := 0
	for i, srv := range set.Servers {
		for _, t := range srv.Tools() {
			listed++
			if selected(tools, set.names[i], t.Name) {
				set.entries = append(set.entries, Tool{Name: t.Name, Server: set.names[i], Listed: t, server: srv})
			}
		}
	}
	if len(set.entries) == 0 && listed > 0 {
		set.Close()
		return nil, fmt.Errorf("the tool selection %q leaves none of the servers' %d tools", strings.Join(tools, ","), listed)
	}
	set.offer()
	return set, nil
}

// offer names the set's entries as the model is offered them (see
// offeredNames), in the order of those names, and lists the tools so.
func (s *Set) offer() {
	offeredNames(s.entries)
	sort.Slice(s.entries, func(i, j int) bool { return s.entries[i].Offered < s.entries[j].Offered })
	s.byOffered, s.tools = map[string]int{}, nil
	for i, t := range s.entries {
		s.byOffered[t.Offered] = i
		offered := t.Listed
		offered.Name = t.Offered
		s.tools = append(s.tools, offered)
	}
}

// Tools returns every tool of every server as the model is offered them,
// sorted by offered name.
func (s *Set) Tools() []eval.Tool { return s.tools }

// Has reports whether a tool of that name is offered (see Lookup).
func (s *Set) Has(name string) bool { _, ok := s.Lookup(name); return ok }

// Call executes a tool call on the server offering the tool (see Lookup).
func (s *Set) Call(ctx context.Context, name string, args map[string]any) (Result, error) {
	t, ok := s.Lookup(name)
	if !ok {
		return Result{}, fmt.Errorf("unknown tool %q", name)
	}
	if err := s.enter(ctx, t.server); err != nil {
		return Result{}, err
	}
	return t.server.Call(ctx, t.Name, args)
}

// ReadResource reads a resource of the server of the short name server
// (see ServerNames).
func (s *Set) ReadResource(ctx context.Context, server, uri string) (Result, error) {
	i := slices.Index(s.names, server)
	if i < 0 {
		return Result{}, fmt.Errorf("no server %q", server)
	}
	if err := s.enter(ctx, s.Servers[i]); err != nil {
		return Result{}, err
	}
	return s.Servers[i].ReadResource(ctx, uri)
}

// Notices say what the run should know of its servers: the tools listed
// but not offered, and why; each names its server.
func (s *Set) Notices() []string {
	var out []string
	for i, srv := range s.Servers {
		for _, n := range srv.Notices() {
			out = append(out, fmt.Sprintf("%s: %s", s.names[i], n))
		}
	}
	return out
}

// ServerNames returns the servers' short names, in the order of Servers.
func (s *Set) ServerNames() []string { return slices.Clone(s.names) }

// Hash identifies the tool surface and the servers behind it: the names,
// descriptions and schemas of every tool, and the name and version of every
// server (from its serverInfo). A schema change changes the hash, and so
// does switching to another server, or another version of it, that offers
// identically named tools. Specs (command lines, URLs) are not part of it.
func (s *Set) Hash() string {
	type serverInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	servers := make([]serverInfo, len(s.Servers))
	for i, srv := range s.Servers {
		servers[i].Name, servers[i].Version = srv.Info()
	}
	sort.Slice(servers, func(i, j int) bool {
		if servers[i].Name != servers[j].Name {
			return servers[i].Name < servers[j].Name
		}
		return servers[i].Version < servers[j].Version
	})
	b, _ := json.Marshal(struct {
		Servers []serverInfo `json:"servers"`
		Tools   []eval.Tool  `json:"tools"`
	}{servers, s.tools})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Restarts returns how many restarts were attempted across all servers.
func (s *Set) Restarts() int {
	n := 0
	for _, srv := range s.Servers {
		n += srv.Restarts()
	}
	return n
}

// Close closes every server; closing a view (see View) closes nothing.
func (s *Set) Close() {
	if s.view {
		return
	}
	for _, srv := range s.Servers {
		srv.Close()
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.ToValidUTF8(string(b.buf), "\uFFFD")
}
