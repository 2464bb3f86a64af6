package mcpconn

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// MaxMessageBytes bounds one message a server sends: a JSON-RPC line over
// stdio, an event of an SSE stream, a JSON body over HTTP. 8 MiB, as a
// provider's response is bounded: a larger tool result is no use to a
// model, and reading it whole would let one server exhaust the run's
// memory. A larger message is not read; the call it answers fails with
// tooLargeMessage, which the model sees as the tool's result.
const MaxMessageBytes = 8 << 20

// tooLargeCode is the JSON-RPC error code of the answer that stands in for
// a message over the limit (an implementation-defined server error).
const tooLargeCode = -32000

// tooLargeMessage is what the caller, and so the model, is told.
func tooLargeMessage(max int) string {
	return fmt.Sprintf("the server's reply is larger than the %d MiB an MCP message may have; it was not read", max>>20)
}

// messageEnd says where a message of a stream ends.
type messageEnd int

const (
	endOfLine  messageEnd = iota // stdio: a message is a line
	endOfEvent                   // SSE: an event ends at a blank line
	endOfBody                    // a JSON body: the whole body
)

// boundedReader passes on the messages of src, each at most max bytes. A
// longer one is not read: the answer replace makes from its first max
// bytes takes its place (nothing, when replace returns nil), and the rest
// of it is skipped as it arrives, so memory stays bounded however long it
// is and whether or not it ever ends.
type boundedReader struct {
	src     *bufio.Reader
	closer  io.Closer
	max     int
	end     messageEnd
	replace func(head []byte) []byte

	msg      []byte // the message being collected
	out      []byte // what is ready to be read
	skipping bool   // inside a message over max
	midLine  bool   // the last chunk read ended inside a line
	err      error
}

func newBoundedReader(src io.ReadCloser, max int, end messageEnd, replace func([]byte) []byte) *boundedReader {
	return &boundedReader{src: bufio.NewReaderSize(src, 64<<10), closer: src, max: max, end: end, replace: replace}
}

func (b *boundedReader) Read(p []byte) (int, error) {
	for len(b.out) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		b.next()
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	return n, nil
}

func (b *boundedReader) Close() error { return b.closer.Close() }

// next reads one chunk (a line, or a buffer's worth of a long one).
func (b *boundedReader) next() {
	chunk, err := b.src.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		err = nil
	}
	complete := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
	blank := complete && !b.midLine && (len(chunk) == 1 || (len(chunk) == 2 && chunk[0] == '\r'))
	b.midLine = len(chunk) > 0 && !complete
	if !b.skipping {
		if len(b.msg)+len(chunk) > b.max {
			head := append(b.msg, chunk[:b.max-len(b.msg)]...)
			b.out, b.msg, b.skipping = b.replace(head), nil, true
		} else {
			b.msg = append(b.msg, chunk...)
		}
	}
	if err != nil {
		if !b.skipping {
			b.out = append(b.out, b.msg...)
		}
		b.msg, b.err = nil, err
		return
	}
	if (b.end == endOfLine && complete) || (b.end == endOfEvent && blank) {
		if !b.skipping {
			b.out = b.msg
		}
		b.msg, b.skipping = nil, false
	}
}

// leadingID returns the "id" of the JSON-RPC message that head starts
// (the first bytes of a message, as far as they go), or nil when head is
// no response or its id does not come before the first value that head
// cuts off. A request or notification of the server (a "method" first) has
// no answer to stand in for.
func leadingID(head []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil
		}
		switch key {
		case "id":
			return value
		case "method":
			return nil
		}
	}
	return nil
}

// errorResponse is the JSON-RPC error that answers request id in place of
// a message over max.
func errorResponse(id json.RawMessage, max int) []byte {
	msg, _ := json.Marshal(tooLargeMessage(max)) // a string always encodes
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, id, tooLargeCode, msg)
}

// replaceLine is the replacement of a stdio line over max.
func replaceLine(max int) func([]byte) []byte {
	return func(head []byte) []byte {
		id := leadingID(head)
		if id == nil {
			return nil
		}
		return append(errorResponse(id, max), '\n')
	}
}

// replaceHTTP is the replacement of an event or body over max: it answers
// the id in the message itself, else requestID (the id of the request
// whose response it is, if any).
func replaceHTTP(max int, end messageEnd, requestID json.RawMessage) func([]byte) []byte {
	return func(head []byte) []byte {
		data := head
		if end == endOfEvent {
			i := bytes.Index(head, []byte("data:"))
			if i < 0 {
				return nil
			}
			data = bytes.TrimLeft(head[i+len("data:"):], " ")
		}
		id := leadingID(data)
		if id == nil {
			id = requestID
		}
		if id == nil {
			return nil
		}
		if end == endOfEvent {
			return fmt.Appendf(nil, "event: message\ndata: %s\n\n", errorResponse(id, max))
		}
		return errorResponse(id, max)
	}
}

// boundedTransport bounds every message of an HTTP server's responses:
// a JSON body as a whole, an event stream event by event.
type boundedTransport struct {
	base http.RoundTripper
	max  int
}

// boundedClient is the HTTP client of the HTTP and SSE transports.
func boundedClient(max int) *http.Client {
	return &http.Client{Transport: boundedTransport{base: http.DefaultTransport, max: max}}
}

func (t boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	end := endOfBody
	if mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mediaType == "text/event-stream" {
		end = endOfEvent
	}
	resp.Body = newBoundedReader(resp.Body, t.max, end, replaceHTTP(t.max, end, requestID(req)))
	resp.ContentLength = -1
	resp.Header.Del("Content-Length")
	return resp, nil
}

// requestID returns the JSON-RPC id of the request req carries, or nil.
func requestID(req *http.Request) json.RawMessage {
	if req.GetBody == nil {
		return nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil
	}
	defer body.Close()
	var msg struct {
		ID json.RawMessage `json:"id"`
	}
	if json.NewDecoder(io.LimitReader(body, 1<<20)).Decode(&msg) != nil || len(msg.ID) == 0 || string(msg.ID) == "null" {
		return nil
	}
	return msg.ID
}
