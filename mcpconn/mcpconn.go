// Package mcpconn connects to MCP servers over stdio, streamable HTTP or SSE,
// lists their tools and executes tool calls.
//
// A server is named by a spec: an http(s) URL is a streamable HTTP endpoint,
// "sse:" followed by a URL is an SSE endpoint, anything else is a command
// line started as a stdio subprocess that lives as long as the connection.
package mcpconn

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/shlex"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Tool is a tool offered by a server, in the shape a chat model takes it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // JSON Schema of the arguments
	Server      string          `json:"-"`
}

// Result is what a tool call returned.
type Result struct {
	Text    string
	IsError bool
}

// Options tune connections.
type Options struct {
	// StartTimeout bounds starting and initialising a server (default 30 s).
	StartTimeout time.Duration
	// CallTimeout bounds one tool call (default 120 s).
	CallTimeout time.Duration
	// Env is added to the environment of stdio servers.
	Env []string
}

func (o Options) withDefaults() Options {
	if o.StartTimeout <= 0 {
		o.StartTimeout = 30 * time.Second
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 120 * time.Second
	}
	return o
}

// Server is one connected MCP server.
type Server struct {
	Spec   string
	opts   Options
	stderr *tailBuffer

	mu     sync.Mutex
	client *client.Client
	tools  []Tool
}

// Connect starts (for stdio) and initialises the server named by spec and
// lists its tools. A server that fails to start, or lists no tools, is an
// error that carries the tail of its stderr.
func Connect(ctx context.Context, spec string, opts Options) (*Server, error) {
	s := &Server{Spec: spec, opts: opts.withDefaults(), stderr: newTailBuffer(8 << 10)}
	if err := s.start(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Server) start(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.opts.StartTimeout)
	defer cancel()
	c, err := s.newClient()
	if err != nil {
		return fmt.Errorf("server %s: %w", s.Spec, err)
	}
	if err := s.initialize(ctx, c); err != nil {
		c.Close()
		return s.withStderr(fmt.Errorf("server %s: %w", s.Spec, err))
	}
	tools, err := listTools(ctx, c, s.Spec)
	if err != nil {
		c.Close()
		return s.withStderr(fmt.Errorf("server %s: %w", s.Spec, err))
	}
	if len(tools) == 0 {
		c.Close()
		return s.withStderr(fmt.Errorf("server %s lists no tools", s.Spec))
	}
	s.mu.Lock()
	s.client, s.tools = c, tools
	s.mu.Unlock()
	return nil
}

func (s *Server) newClient() (*client.Client, error) {
	opts := []client.ClientOption{client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION)}
	switch {
	case strings.HasPrefix(s.Spec, "http://"), strings.HasPrefix(s.Spec, "https://"):
		t, err := transport.NewStreamableHTTP(s.Spec)
		if err != nil {
			return nil, err
		}
		return client.NewClient(t, opts...), nil
	case strings.HasPrefix(s.Spec, "sse:"):
		t, err := transport.NewSSE(strings.TrimPrefix(s.Spec, "sse:"))
		if err != nil {
			return nil, err
		}
		return client.NewClient(t, opts...), nil
	}
	argv, err := shlex.Split(s.Spec)
	if err != nil || len(argv) == 0 {
		return nil, fmt.Errorf("cannot parse command line %q: %v", s.Spec, err)
	}
	t := transport.NewStdioWithOptions(argv[0], s.opts.Env, argv[1:], transport.WithCommandStderrWriter(s.stderr))
	return client.NewClient(t, opts...), nil
}

func (s *Server) initialize(ctx context.Context, c *client.Client) error {
	// The stdio child is bound to the context given to Start: it must outlive
	// this call, so it gets a background context and Close ends it.
	if err := c.Start(context.Background()); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "mcpeval", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	return nil
}

func listTools(ctx context.Context, c *client.Client, spec string) ([]Tool, error) {
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return nil, fmt.Errorf("list tools: %w", err)
	}
	tools := make([]Tool, 0, len(res.Tools))
	for _, t := range res.Tools {
		schema := t.RawInputSchema
		if len(schema) == 0 {
			if schema, err = json.Marshal(t.InputSchema); err != nil {
				return nil, fmt.Errorf("tool %s: schema: %w", t.Name, err)
			}
		}
		tools = append(tools, Tool{Name: t.Name, Description: t.Description, Parameters: schema, Server: spec})
	}
	return tools, nil
}

// Tools returns the server's tools.
func (s *Server) Tools() []Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools
}

// Stderr returns the tail of the server's stderr (stdio servers only).
func (s *Server) Stderr() string { return s.stderr.String() }

func (s *Server) withStderr(err error) error {
	if tail := strings.TrimSpace(s.Stderr()); tail != "" {
		return fmt.Errorf("%w\nserver stderr:\n%s", err, tail)
	}
	return err
}

// Call executes one tool call. args is the JSON object the model sent. A tool
// that reports an error gives IsError; a failure to reach the server or a
// protocol error is returned as err.
func (s *Server) Call(ctx context.Context, name string, args map[string]any) (Result, error) {
	s.mu.Lock()
	c := s.client
	s.mu.Unlock()
	if c == nil {
		return Result{}, fmt.Errorf("server %s is closed", s.Spec)
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return Result{}, fmt.Errorf("tool %s timed out after %s", name, s.opts.CallTimeout)
		}
		return Result{}, err
	}
	return Result{Text: resultText(res), IsError: res.IsError}, nil
}

// Close ends the connection (and the stdio subprocess).
func (s *Server) Close() error {
	s.mu.Lock()
	c := s.client
	s.client = nil
	s.mu.Unlock()
	if c == nil {
		return nil
	}
	return c.Close()
}

// resultText flattens a tool result into text for the model.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case mcp.TextContent:
			parts = append(parts, c.Text)
		case mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d base64 bytes]", c.MIMEType, len(c.Data)))
		case mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d base64 bytes]", c.MIMEType, len(c.Data)))
		case mcp.EmbeddedResource:
			if r, ok := c.Resource.(mcp.TextResourceContents); ok {
				parts = append(parts, r.Text)
			} else {
				parts = append(parts, "[binary resource]")
			}
		default:
			if b, err := json.Marshal(c); err == nil {
				parts = append(parts, string(b))
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	text := strings.Join(parts, "\n")
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	return text
}

// Set is the servers of a run, seen as one tool box.
type Set struct {
	Servers []*Server
	byTool  map[string]*Server
	tools   []Tool
}

// ConnectAll connects to every spec. Tool names must be unique across
// servers. On error every server already started is closed.
func ConnectAll(ctx context.Context, specs []string, opts Options) (*Set, error) {
	set := &Set{byTool: map[string]*Server{}}
	for _, spec := range specs {
		s, err := Connect(ctx, spec, opts)
		if err != nil {
			set.Close()
			return nil, err
		}
		set.Servers = append(set.Servers, s)
		for _, t := range s.Tools() {
			if other, dup := set.byTool[t.Name]; dup {
				set.Close()
				return nil, fmt.Errorf("tool %s is offered by both %s and %s", t.Name, other.Spec, spec)
			}
			set.byTool[t.Name] = s
			set.tools = append(set.tools, t)
		}
	}
	sort.Slice(set.tools, func(i, j int) bool { return set.tools[i].Name < set.tools[j].Name })
	return set, nil
}

// Tools returns every tool of every server, sorted by name.
func (s *Set) Tools() []Tool { return s.tools }

// Has reports whether some server offers the tool.
func (s *Set) Has(name string) bool { _, ok := s.byTool[name]; return ok }

// Call executes a tool call on the server offering the tool.
func (s *Set) Call(ctx context.Context, name string, args map[string]any) (Result, error) {
	srv, ok := s.byTool[name]
	if !ok {
		return Result{}, fmt.Errorf("unknown tool %q", name)
	}
	return srv.Call(ctx, name, args)
}

// ServerFor returns the server offering the tool, or nil.
func (s *Set) ServerFor(name string) *Server { return s.byTool[name] }

// Specs returns the server specs.
func (s *Set) Specs() []string {
	specs := make([]string, len(s.Servers))
	for i, srv := range s.Servers {
		specs[i] = srv.Spec
	}
	return specs
}

// Hash identifies the tool surface: names, descriptions and schemas of every
// tool. A schema change changes the hash.
func (s *Set) Hash() string {
	b, _ := json.Marshal(s.tools)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Close closes every server.
func (s *Set) Close() {
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
