package sampleserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves s over standard input and output as MCP's stdio
// transport does (one JSON-RPC message per line each way) until in ends
// or ctx is done. It hands each line to s.HandleMessage as it comes and
// writes the answers as they are ready: requests side by side, on a pool
// of workers as large as the most ever in flight at once (a worker keeps
// the stack its first message grew), and notifications in the order they
// come, before the lines after them are read, as mcp-go's StdioServer
// does.
//
// It is the transport of a server that never asks the client anything
// (no sampling, elicitation or roots requests), as this one: mcp-go's
// StdioServer, which can, decodes every line five times before
// HandleMessage decodes it again (once to check it is JSON, three times
// to see whether it answers a request of the server's, once more for its
// method), and reads each line on a goroutine of its own. Ended input
// cancels the requests still running and waits for them, as mcp-go's
// does.
func ServeStdio(ctx context.Context, s *server.MCPServer, in io.Reader, out io.Writer, errLog *log.Logger) error {
	session := &stdioSession{notifications: make(chan mcp.JSONRPCNotification, 100)}
	if err := s.RegisterSession(ctx, session); err != nil {
		return fmt.Errorf("register session: %w", err)
	}
	defer s.UnregisterSession(context.WithoutCancel(ctx), session.SessionID())
	ctx = s.WithContext(ctx, session)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	w := &lineWriter{w: out}
	go func() {
		for {
			select {
			case n := <-session.notifications:
				if err := w.write(n); err != nil {
					errLog.Printf("write notification: %v", err)
				}
			case <-ctx.Done():
				return
			}
		}
	}()

	var requests sync.WaitGroup
	lines := make(chan []byte)
	work := func(line []byte) {
		for {
			handle(ctx, s, line, w, errLog)
			select {
			case line = <-lines:
			case <-ctx.Done():
				return
			}
		}
	}
	readDone := make(chan error, 1)
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := r.ReadBytes('\n')
			switch line = bytes.TrimSpace(line); {
			case len(line) == 0 || ctx.Err() != nil:
			case !bytes.Contains(line, []byte(`"id"`)):
				// Not a request (a request has an id): a notification,
				// served before the next line is read.
				handle(ctx, s, line, w, errLog)
			default:
				select {
				case lines <- line:
				default:
					requests.Go(func() { work(line) })
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				readDone <- err
				return
			}
		}
	}()

	select {
	case err := <-readDone:
		cancel()
		requests.Wait()
		if err != nil {
			return fmt.Errorf("read input: %w", err)
		}
		return nil
	case <-ctx.Done():
		// The reader may still be blocked on the input: the requests
		// end with the context, and the process with them.
		return nil
	}
}

// handle serves one message and writes its answer, if it has one. A
// handler that panics answers its request with an internal error.
func handle(ctx context.Context, s *server.MCPServer, line []byte, w *lineWriter, errLog *log.Logger) {
	defer func() {
		if r := recover(); r != nil {
			errLog.Printf("panic recovered in a message handler: %v", r)
			var msg struct {
				ID any `json:"id"`
			}
			if json.Unmarshal(line, &msg) == nil && msg.ID != nil {
				_ = w.write(mcp.NewJSONRPCError(mcp.NewRequestId(msg.ID), mcp.INTERNAL_ERROR, fmt.Sprintf("internal panic: %v", r), nil))
			}
		}
	}()
	if resp := s.HandleMessage(ctx, line); resp != nil {
		if err := w.write(resp); err != nil {
			errLog.Printf("write response: %v", err)
		}
	}
}

// lineWriter writes one message per line, whole, from any goroutine.
// Messages that come while a write is under way go out together in the
// next one: under a stream of calls a write carries several answers, and
// the client reads them at once.
type lineWriter struct {
	mu      sync.Mutex
	w       io.Writer
	pending []byte // lines not written yet
	spare   []byte // the buffer of the last write, for reuse
	writing bool   // a goroutine is writing; it writes pending too
}

// write queues msg's line and, unless another goroutine is writing
// (which then writes it too), writes every line queued. Its error is of
// the writes it made.
func (lw *lineWriter) write(msg any) error {
	b, err := encode(msg)
	if err != nil {
		return err
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.pending = append(append(lw.pending, b...), '\n')
	if lw.writing {
		return nil
	}
	lw.writing = true
	for len(lw.pending) > 0 && err == nil {
		buf := lw.pending
		lw.pending = lw.spare[:0]
		lw.mu.Unlock()
		_, err = lw.w.Write(buf)
		lw.mu.Lock()
		if cap(buf) <= 1<<20 { // a buffer a large answer grew is not kept
			lw.spare = buf
		} else {
			lw.spare = nil
		}
	}
	lw.pending = lw.pending[:0] // after an error, the lines queued are lost with the output
	lw.writing = false
	return err
}

// encode encodes a message. A tool call's response is put together
// around its result's own encoding, which json.Marshal would read once
// more to compact it (it is compact: mcp-go encodes it with json.Marshal).
func encode(msg any) ([]byte, error) {
	resp, ok := msg.(mcp.JSONRPCResponse)
	if !ok || resp.JSONRPC != mcp.JSONRPC_VERSION {
		return json.Marshal(msg)
	}
	var result json.Marshaler
	switch r := resp.Result.(type) {
	case *mcp.CallToolResult:
		result = r
	case mcp.CallToolResult:
		result = r
	default:
		return json.Marshal(msg)
	}
	id, err := json.Marshal(resp.ID)
	if err != nil {
		return nil, err
	}
	body, err := result.MarshalJSON()
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, len(body)+len(id)+40)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, body...)
	return append(b, '}'), nil
}

// stdioSession is the one client session of a stdio connection. Its id
// is mcp-go's for the same ("stdio").
type stdioSession struct {
	notifications chan mcp.JSONRPCNotification
	initialized   atomic.Bool
	logLevel      atomic.Value // mcp.LoggingLevel
	clientInfo    atomic.Value // mcp.Implementation
	clientCaps    atomic.Value // mcp.ClientCapabilities
}

var (
	_ server.SessionWithLogging    = (*stdioSession)(nil)
	_ server.SessionWithClientInfo = (*stdioSession)(nil)
)

func (s *stdioSession) SessionID() string { return "stdio" }

func (s *stdioSession) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return s.notifications
}

func (s *stdioSession) Initialize() {
	s.logLevel.Store(mcp.LoggingLevelError)
	s.initialized.Store(true)
}

func (s *stdioSession) Initialized() bool { return s.initialized.Load() }

func (s *stdioSession) SetLogLevel(level mcp.LoggingLevel) { s.logLevel.Store(level) }

func (s *stdioSession) GetLogLevel() mcp.LoggingLevel {
	if level, ok := s.logLevel.Load().(mcp.LoggingLevel); ok {
		return level
	}
	return mcp.LoggingLevelError
}

func (s *stdioSession) GetClientInfo() mcp.Implementation {
	info, _ := s.clientInfo.Load().(mcp.Implementation)
	return info
}

func (s *stdioSession) SetClientInfo(info mcp.Implementation) { s.clientInfo.Store(info) }

func (s *stdioSession) GetClientCapabilities() mcp.ClientCapabilities {
	caps, _ := s.clientCaps.Load().(mcp.ClientCapabilities)
	return caps
}

func (s *stdioSession) SetClientCapabilities(caps mcp.ClientCapabilities) {
	s.clientCaps.Store(caps)
}
