package mcpconn

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"sync"

	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// jsonrpcStream is mcp-go's JSON-RPC transport over plain streams
// (transport.NewIO of v1.2.1, a message a line), with the same
// behaviour, but for one thing: the answer to a request is decoded once
// as it arrives, where mcp-go decodes every message twice before it
// knows what it is (and a tool result is most of what a stdio server
// sends). A message that is not an answer, or that does not decode so,
// goes mcp-go's way, step by step.
type jsonrpcStream struct {
	in     *bufio.Reader
	out    io.WriteCloser
	logger *slog.Logger

	writeMu sync.Mutex // one message at a time on out

	mu        sync.RWMutex
	responses map[string]chan *transport.JSONRPCResponse // by request id

	done      chan struct{} // closed when the stream ends
	doneOnce  sync.Once
	closeOnce sync.Once
	closeErr  error

	handlerMu      sync.RWMutex
	onNotification func(mcp.JSONRPCNotification)
	onRequest      transport.RequestHandler

	ctxMu   sync.RWMutex
	ctx     context.Context // Start's: the server's requests are handled in it
	started bool
}

// The client answers the server's requests through a transport that takes
// a request handler.
var _ transport.BidirectionalInterface = (*jsonrpcStream)(nil)

func newJSONRPCStream(in io.Reader, out io.WriteCloser) *jsonrpcStream {
	return &jsonrpcStream{
		in: bufio.NewReader(in), out: out, logger: slog.Default(),
		responses: map[string]chan *transport.JSONRPCResponse{},
		done:      make(chan struct{}), ctx: context.Background(),
	}
}

// Start starts reading the messages; a second Start does nothing.
func (s *jsonrpcStream) Start(ctx context.Context) error {
	s.ctxMu.Lock()
	if s.started {
		s.ctxMu.Unlock()
		return nil
	}
	s.started, s.ctx = true, ctx
	s.ctxMu.Unlock()
	ready := make(chan struct{})
	go s.read(ready)
	<-ready
	return nil
}

func (s *jsonrpcStream) endDone() { s.doneOnce.Do(func() { close(s.done) }) }

// Close ends the stream: the requests waiting fail, and out is closed.
func (s *jsonrpcStream) Close() error {
	s.endDone()
	s.closeOnce.Do(func() {
		if err := s.out.Close(); err != nil {
			s.closeErr = fmt.Errorf("failed to close stdin: %w", err)
		}
	})
	return s.closeErr
}

// GetSessionId returns "": a stream has no session id.
func (s *jsonrpcStream) GetSessionId() string { return "" }

func (s *jsonrpcStream) SetNotificationHandler(handler func(mcp.JSONRPCNotification)) {
	s.handlerMu.Lock()
	defer s.handlerMu.Unlock()
	s.onNotification = handler
}

func (s *jsonrpcStream) SetRequestHandler(handler transport.RequestHandler) {
	s.handlerMu.Lock()
	defer s.handlerMu.Unlock()
	s.onRequest = handler
}

// read reads messages until the stream ends.
func (s *jsonrpcStream) read(ready chan struct{}) {
	close(ready)
	for {
		select {
		case <-s.done:
			return
		default:
		}
		line, err := s.in.ReadBytes('\n')
		if err != nil {
			if err != io.EOF && !errors.Is(err, context.Canceled) && !errors.Is(err, fs.ErrClosed) {
				s.logger.Error("Error reading from stdout", "err", err)
			}
			// The requests waiting fail instead of hanging once the
			// server is gone.
			s.endDone()
			return
		}
		s.dispatch(bytes.TrimRight(line, "\r\n"))
	}
}

// dispatch routes one message: an answer to the request waiting for it,
// a request of the server's to the request handler, a notification to
// the notification handler. A line that is no JSON-RPC message is
// skipped.
func (s *jsonrpcStream) dispatch(line []byte) {
	var msg struct {
		JSONRPC string                   `json:"jsonrpc"`
		ID      *mcp.RequestId           `json:"id,omitempty"`
		Method  string                   `json:"method,omitempty"`
		Result  json.RawMessage          `json:"result,omitempty"`
		Error   *mcp.JSONRPCErrorDetails `json:"error,omitempty"`
	}
	if jsonv1.Unmarshal(line, &msg) != nil || msg.Method != "" {
		s.dispatchAsMCPGo(line)
		return
	}
	resp := &transport.JSONRPCResponse{JSONRPC: msg.JSONRPC, Result: msg.Result, Error: msg.Error}
	if msg.ID != nil {
		resp.ID = *msg.ID
	}
	s.deliver(resp)
}

// dispatchAsMCPGo is dispatch as mcp-go's transport does it.
func (s *jsonrpcStream) dispatchAsMCPGo(line []byte) {
	var base struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      *mcp.RequestId `json:"id,omitempty"`
		Method  string         `json:"method,omitempty"`
	}
	if err := json.Unmarshal(line, &base); err != nil {
		return
	}
	if base.Method != "" && base.ID == nil {
		var n mcp.JSONRPCNotification
		if err := json.Unmarshal(line, &n); err != nil {
			return
		}
		s.handlerMu.RLock()
		if s.onNotification != nil {
			s.onNotification(n)
		}
		s.handlerMu.RUnlock()
		return
	}
	if base.Method != "" {
		var req transport.JSONRPCRequest
		if err := json.Unmarshal(line, &req); err == nil {
			s.handleRequest(req)
			return
		}
	}
	var resp transport.JSONRPCResponse
	if err := json.Unmarshal(line, &resp); err != nil {
		return
	}
	s.deliver(&resp)
}

// deliver hands an answer to the request waiting for it, if any.
func (s *jsonrpcStream) deliver(resp *transport.JSONRPCResponse) {
	key := resp.ID.String()
	s.mu.RLock()
	ch, ok := s.responses[key]
	s.mu.RUnlock()
	if ok {
		ch <- resp
		s.mu.Lock()
		delete(s.responses, key)
		s.mu.Unlock()
	}
}

// SendRequest sends a request and waits for its answer, the end of ctx
// or the end of the stream.
func (s *jsonrpcStream) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	select {
	case <-s.done:
		return nil, transport.ErrTransportClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	default:
	}
	req.Params = withTraceParams(ctx, req.Params)
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("failed to marshal request: %w", err)
	}
	b = append(b, '\n')
	key := req.ID.String()
	ch := make(chan *transport.JSONRPCResponse, 1)
	s.mu.Lock()
	s.responses[key] = ch
	s.mu.Unlock()
	forget := func() {
		s.mu.Lock()
		delete(s.responses, key)
		s.mu.Unlock()
	}
	if err := s.write(b); err != nil {
		forget()
		return nil, fmt.Errorf("failed to write request: %w", err)
	}
	select {
	case <-s.done:
		// An answer may have come just before the stream ended.
		select {
		case resp := <-ch:
			return resp, nil
		default:
		}
		forget()
		return nil, transport.ErrTransportClosed
	case <-ctx.Done():
		forget()
		return nil, ctx.Err()
	case resp := <-ch:
		return resp, nil
	}
}

// SendNotification sends a notification.
func (s *jsonrpcStream) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	select {
	case <-s.done:
		return transport.ErrTransportClosed
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	b, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("failed to marshal notification: %w", err)
	}
	if err := s.write(append(b, '\n')); err != nil {
		return fmt.Errorf("failed to write notification: %w", err)
	}
	return nil
}

func (s *jsonrpcStream) write(b []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_, err := s.out.Write(b)
	return err
}

// handleRequest answers a request of the server's with the request
// handler, off the reading of messages.
func (s *jsonrpcStream) handleRequest(req transport.JSONRPCRequest) {
	s.handlerMu.RLock()
	handler := s.onRequest
	s.handlerMu.RUnlock()
	if handler == nil {
		s.respond(*transport.NewJSONRPCErrorResponse(req.ID, mcp.METHOD_NOT_FOUND, "No request handler configured", nil))
		return
	}
	go func() {
		s.ctxMu.RLock()
		ctx := s.ctx
		s.ctxMu.RUnlock()
		if err := ctx.Err(); err != nil {
			s.respond(*transport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, err.Error(), nil))
			return
		}
		resp, err := handler(ctx, req)
		if err != nil {
			s.respond(*transport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, err.Error(), nil))
			return
		}
		if resp != nil {
			s.respond(*resp)
		}
	}()
}

func (s *jsonrpcStream) respond(resp transport.JSONRPCResponse) {
	b, err := json.Marshal(resp)
	if err != nil {
		s.logger.Error("Error marshaling response", "err", err)
		return
	}
	if err := s.write(append(b, '\n')); err != nil {
		s.logger.Error("Error writing response", "err", err)
	}
}
