package mcpconn

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// sseTransport speaks to a server over the SSE transport of the revisions
// before 2026-07-28: the server's messages arrive as events of one GET
// stream, the client's are POSTed to the endpoint its first event names.
// The messages themselves go through mcp-go's JSON-RPC transport over
// plain streams (stdio's jsonrpcStream behaves as it does): it answers the
// server's own requests (roots, elicitation) with the client's handlers,
// which mcp-go's SSE transport does not, so that such a call would wait
// out its timeout.
type sseTransport struct {
	*transport.Stdio
	url     *url.URL
	headers map[string]string
	http    *http.Client

	in  *io.PipeReader // what the server sent, a message a line
	out *io.PipeWriter // where the server's messages are written

	mu       sync.Mutex
	endpoint *url.URL
	life     context.Context    // the stream's, ended by Close
	cancel   context.CancelFunc // ends the stream
	protocol string             // the negotiated revision, "" before
}

func newSSETransport(rawURL string, headers map[string]string, client *http.Client) (*sseTransport, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("invalid URL: %w", err)
	}
	in, out := io.Pipe()
	t := &sseTransport{url: u, headers: headers, http: client, in: in, out: out}
	t.Stdio = transport.NewIO(in, &poster{t: t}, nil)
	return t, nil
}

// SendRequest sends a request, with the trace context of ctx's span in
// its _meta (see withTraceParams).
func (t *sseTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	req.Params = withTraceParams(ctx, req.Params)
	return t.Stdio.SendRequest(ctx, req)
}

// SetProtocolVersion sets the revision the messages name in their
// MCP-Protocol-Version header, once negotiated.
func (t *sseTransport) SetProtocolVersion(version string) {
	t.mu.Lock()
	t.protocol = version
	t.mu.Unlock()
}

// Start opens the event stream, waits for the endpoint event (within
// ctx), then reads the server's messages until the stream ends or Close.
func (t *sseTransport) Start(ctx context.Context) error {
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	t.mu.Lock()
	t.life, t.cancel = life, cancel
	t.mu.Unlock()
	req, err := http.NewRequestWithContext(life, http.MethodGet, t.url.String(), nil)
	if err != nil {
		cancel()
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	t.setHeaders(req)
	stop := context.AfterFunc(ctx, cancel) // a start that outlasts ctx ends
	resp, err := t.http.Do(req)
	if err != nil {
		cancel()
		return fmt.Errorf("open the SSE stream: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return fmt.Errorf("open the SSE stream: HTTP %d", resp.StatusCode)
	}
	events := bufio.NewReader(resp.Body)
	endpoint, err := t.awaitEndpoint(events)
	if err != nil || !stop() {
		resp.Body.Close()
		cancel()
		return errors.Join(fmt.Errorf("SSE stream: %w", err), ctx.Err())
	}
	t.mu.Lock()
	t.endpoint = endpoint
	t.mu.Unlock()
	go t.relay(resp.Body, events)
	return t.Stdio.Start(life)
}

// awaitEndpoint reads events until the endpoint event, and resolves its
// URL, which must be on the stream's origin.
func (t *sseTransport) awaitEndpoint(events *bufio.Reader) (*url.URL, error) {
	for {
		name, data, err := readEvent(events)
		if err != nil {
			return nil, fmt.Errorf("no endpoint event: %w", err)
		}
		if name != "endpoint" {
			continue
		}
		endpoint, err := t.url.Parse(strings.TrimSpace(data))
		if err != nil {
			return nil, fmt.Errorf("endpoint event %q: %w", data, err)
		}
		if endpoint.Scheme != t.url.Scheme || endpoint.Host != t.url.Host {
			return nil, fmt.Errorf("endpoint %s is not on the stream's origin %s://%s", endpoint, t.url.Scheme, t.url.Host)
		}
		return endpoint, nil
	}
}

// relay writes each message event of the stream as a line of JSON for
// the JSON-RPC transport to read; the end of the stream ends it.
func (t *sseTransport) relay(body io.ReadCloser, events *bufio.Reader) {
	defer body.Close()
	for {
		name, data, err := readEvent(events)
		if err != nil {
			t.out.CloseWithError(fmt.Errorf("SSE stream ended: %w", err))
			return
		}
		if name != "message" && name != "" {
			continue
		}
		var line bytes.Buffer
		if json.Compact(&line, []byte(data)) != nil {
			continue // not JSON: nothing a client can answer
		}
		line.WriteByte('\n')
		if _, err := t.out.Write(line.Bytes()); err != nil {
			return
		}
	}
}

// readEvent reads one event of a text/event-stream: its name and its
// data lines joined by newlines. Comments and other fields are skipped.
func readEvent(r *bufio.Reader) (name, data string, err error) {
	var lines []string
	seen := false
	for {
		line, err := r.ReadString('\n')
		if err != nil && line == "" {
			return "", "", err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if seen {
				return name, strings.Join(lines, "\n"), nil
			}
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			name, seen = value, true
		case "data":
			lines, seen = append(lines, value), true
		}
	}
}

func (t *sseTransport) setHeaders(req *http.Request) {
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
}

// GetSessionId returns the session the endpoint names (its sessionId).
func (t *sseTransport) GetSessionId() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.endpoint == nil {
		return ""
	}
	return t.endpoint.Query().Get("sessionId")
}

// Close ends the stream and the JSON-RPC transport.
func (t *sseTransport) Close() error {
	t.mu.Lock()
	if t.cancel != nil {
		t.cancel()
	}
	t.mu.Unlock()
	t.out.CloseWithError(io.EOF)
	return t.Stdio.Close()
}

// post sends one message to the endpoint. A request the server does not
// accept is answered at once, as the server would, with an error: its
// caller does not wait for a reply that will not come.
func (t *sseTransport) post(msg []byte) {
	t.mu.Lock()
	endpoint, life, protocol := t.endpoint, t.life, t.protocol
	t.mu.Unlock()
	if endpoint == nil {
		t.refuse(msg, errors.New("the transport has not started"))
		return
	}
	req, err := http.NewRequestWithContext(life, http.MethodPost, endpoint.String(), bytes.NewReader(msg))
	if err != nil {
		t.refuse(msg, err)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	if protocol != "" {
		req.Header.Set(transport.HeaderKeyProtocolVersion, protocol)
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(msg, &m) == nil && m.Method != "" {
			// From 2026-07-28 a request names its method (and tool,
			// prompt or resource) in headers too.
			for k, v := range mcp.StandardHeaders(protocol, mcp.MCPMethod(m.Method), m.Params) {
				req.Header.Set(k, v)
			}
		}
	}
	t.setHeaders(req)
	resp, err := t.http.Do(req)
	if err == nil {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			err = fmt.Errorf("the server refused the message: HTTP %d", resp.StatusCode)
		}
	}
	if err != nil {
		t.refuse(msg, err)
	}
}

// refuse answers a request that could not be sent with an error, in the
// server's place.
func (t *sseTransport) refuse(msg []byte, err error) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(msg, &req) != nil || len(req.ID) == 0 || req.Method == "" {
		return // a notification or a response: no one waits for it
	}
	reply, _ := json.Marshal(map[string]any{
		"jsonrpc": mcp.JSONRPC_VERSION, "id": req.ID,
		"error": map[string]any{"code": mcp.INTERNAL_ERROR, "message": "SSE: " + err.Error()},
	})
	go t.out.Write(append(reply, '\n'))
}

// poster is the JSON-RPC transport's output: each line it writes is a
// message POSTed to the endpoint.
type poster struct {
	t   *sseTransport
	mu  sync.Mutex
	buf []byte
}

func (p *poster) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		line := bytes.Clone(bytes.TrimSpace(p.buf[:i]))
		p.buf = p.buf[i+1:]
		switch {
		case len(line) == 0:
		case isResponse(line):
			// An answer to the server's own request: the request that
			// led to it may be waiting on its POST still.
			go p.t.post(line)
		default:
			p.t.post(line) // requests and notifications keep their order
		}
	}
}

func (p *poster) Close() error { return nil }

// isResponse reports whether a JSON-RPC message is a response: it has no
// method.
func isResponse(msg []byte) bool {
	var m struct {
		Method *string `json:"method"`
	}
	return json.Unmarshal(msg, &m) == nil && m.Method == nil
}
