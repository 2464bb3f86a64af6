package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// A plain tool call on a stdio connection goes to the transport directly.
// mcp-go's CallTool would, on every call of revision 2026-07-28, marshal
// the params and decode them again to merge the protocol's _meta into
// them, then marshal them once more and re-encode the tool's input schema
// to compute the HTTP headers of the request (Mcp-Method, Mcp-Name, the
// Mcp-Param-* headers mirrored from the arguments), which a stdio
// transport drops. A directCaller sends the same request: the _meta of
// the connection is encoded once (the suite sets no log level, which
// mcp-go would add to it), the arguments once per call. It does
// what CallTool does around the request: a request whose context ended
// is not sent, one whose context ends while it waits is cancelled with
// notifications/cancelled, and a result that asks for input (revision
// 2026-07-28) is answered by the connection's handlers and the call
// retried, as many times as mcp-go allows.

// directCaller sends the tools/call requests of one stdio connection.
type directCaller struct {
	transport transport.Interface
	modern    bool
	// meta is the protocol's _meta of every request on the current
	// revision (its version, the client's identity and capabilities),
	// encoded; nil before 2026-07-28.
	meta map[string]json.RawMessage
	// metaJSON is meta as one object.
	metaJSON json.RawMessage
	// The handlers that answer a result asking for input: mcp-go's
	// client has the same; roots is nil when no roots are offered.
	elicit client.ElicitationHandler
	roots  client.RootsHandler
}

// directIDBase numbers the direct requests: mcp-go's client numbers its
// own from 1, and the transport routes a response by its id, so these
// start far above (and below 2^53, where a JavaScript server still reads
// a number exactly).
const directIDBase = 1 << 52

var directIDs atomic.Int64

// Defaults of mcp-go's multi round-trip loop (client/mrtr.go), which a
// direct call keeps.
const (
	maxInputRoundTrips        = 10
	maxLoadSheddingRoundTrips = 3
	cancelNotificationTimeout = 5 * time.Second
)

// newDirectCaller returns the caller of a stdio connection on protocol,
// with the client capabilities it declared, or an error if they do not
// encode.
func newDirectCaller(t transport.Interface, protocol string, caps mcp.ClientCapabilities, elicit client.ElicitationHandler, roots client.RootsHandler) (*directCaller, error) {
	d := &directCaller{transport: t, modern: mcp.IsModernProtocol(protocol), elicit: elicit, roots: roots}
	if !d.modern {
		return d, nil
	}
	d.meta = map[string]json.RawMessage{}
	for key, v := range map[string]any{
		mcp.MetaKeyProtocolVersion:    protocol,
		mcp.MetaKeyClientCapabilities: caps,
		mcp.MetaKeyClientInfo:         clientInfo,
	} {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", key, err)
		}
		d.meta[key] = b
	}
	var err error
	if d.metaJSON, err = json.Marshal(d.meta); err != nil {
		return nil, err
	}
	return d, nil
}

// callTool sends a tools/call request as mcp-go's CallTool does, with the
// _meta of req (a progress token, say) beside the protocol's.
func (d *directCaller) callTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name, err := json.Marshal(req.Params.Name)
	if err != nil {
		return nil, err
	}
	var args json.RawMessage
	if req.Params.Arguments != nil {
		if args, err = json.Marshal(req.Params.Arguments); err != nil {
			return nil, fmt.Errorf("failed to marshal arguments: %w", err)
		}
	}
	meta, err := d.metaOf(req.Params.Meta)
	if err != nil {
		return nil, err
	}
	var round mcp.MultiRoundTripParams
	shedding := 0
	for attempt := 1; ; attempt++ {
		params, err := callParams(name, args, meta, round)
		if err != nil {
			return nil, err
		}
		raw, err := d.send(ctx, mcp.MethodToolsCall, params)
		if err != nil {
			return nil, err
		}
		res, err := parseCallToolResult(raw)
		if err != nil {
			return nil, err
		}
		if !res.NeedsInput() {
			return res, nil
		}
		// The server asks for input: mcp-go's multiRoundTrip, step by step.
		if len(res.InputRequests) == 0 {
			if shedding++; shedding >= maxLoadSheddingRoundTrips {
				return nil, fmt.Errorf("%w: server asked to retry %d times without requesting input",
					client.ErrMaxInputRoundTripsExceeded, shedding)
			}
		} else {
			shedding = 0
		}
		if attempt >= maxInputRoundTrips {
			return nil, fmt.Errorf("%w (%d)", client.ErrMaxInputRoundTripsExceeded, maxInputRoundTrips)
		}
		responses, err := d.fulfil(ctx, res.InputRequests)
		if err != nil {
			return nil, err
		}
		round = mcp.MultiRoundTripParams{InputResponses: responses, RequestState: res.RequestState}
	}
}

// metaOf is the _meta of a request whose own is meta: the protocol's
// alone on the current revision when meta is nil, meta's entries beside
// them otherwise (the protocol's winning), and before 2026-07-28 meta
// alone (nil for none).
func (d *directCaller) metaOf(meta *mcp.Meta) (json.RawMessage, error) {
	if meta == nil {
		return d.metaJSON, nil
	}
	own, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("failed to marshal _meta: %w", err)
	}
	if !d.modern {
		return own, nil
	}
	merged := map[string]json.RawMessage{}
	if err := json.Unmarshal(own, &merged); err != nil {
		return nil, fmt.Errorf("_meta: %w", err)
	}
	for k, v := range d.meta {
		merged[k] = v
	}
	return json.Marshal(merged)
}

// callParams encodes the params of a tools/call request.
func callParams(name, args, meta json.RawMessage, round mcp.MultiRoundTripParams) (json.RawMessage, error) {
	b := make([]byte, 0, len(name)+len(args)+len(meta)+48)
	b = append(b, `{"name":`...)
	b = append(b, name...)
	if args != nil {
		b = append(b, `,"arguments":`...)
		b = append(b, args...)
	}
	if meta != nil {
		b = append(b, `,"_meta":`...)
		b = append(b, meta...)
	}
	if len(round.InputResponses) > 0 || round.RequestState != "" {
		more, err := json.Marshal(round)
		if err != nil {
			return nil, fmt.Errorf("failed to marshal input responses: %w", err)
		}
		if len(more) > 2 { // not {}
			b = append(b, ',')
			b = append(b, more[1:len(more)-1]...)
		}
	}
	return append(b, '}'), nil
}

// send sends one request and returns its result, with the errors of
// mcp-go's client: a *transport.Error when the request did not get an
// answer, the server's error when it answered with one.
func (d *directCaller) send(ctx context.Context, method mcp.MCPMethod, params json.RawMessage) (json.RawMessage, error) {
	req := transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      mcp.NewRequestId(directIDBase + directIDs.Add(1)),
		Method:  string(method),
		Params:  params,
	}
	// A request whose context has already ended is not sent, so there is
	// nothing to cancel.
	if err := ctx.Err(); err != nil {
		return nil, transport.NewError(err)
	}
	resp, err := d.transport.SendRequest(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			d.cancel(ctx, req.ID)
		}
		return nil, transport.NewError(err)
	}
	if resp.Error != nil {
		return nil, resp.Error.AsError()
	}
	return resp.Result, nil
}

// cancel tells the server to stop working on a request whose context
// ended before its answer came, off the caller's path and best effort.
func (d *directCaller) cancel(ctx context.Context, id mcp.RequestId) {
	n := mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationCancelled),
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": ctx.Err().Error()}},
		},
	}
	ctx = context.WithoutCancel(ctx)
	go func() {
		ctx, cancel := context.WithTimeout(ctx, cancelNotificationTimeout)
		defer cancel()
		_ = d.transport.SendNotification(ctx, n)
	}()
}

// fulfil answers a server's requests for input as mcp-go's client does:
// all at once, the first failure failing them all.
func (d *directCaller) fulfil(ctx context.Context, requests mcp.InputRequests) (mcp.InputResponses, error) {
	if len(requests) == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu        sync.Mutex
		wg        sync.WaitGroup
		responses = make(mcp.InputResponses, len(requests))
		firstErr  error
	)
	for id, req := range requests {
		wg.Go(func() {
			res, err := d.fulfilOne(ctx, req)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = fmt.Errorf("fulfilling input request %q: %w", id, err)
					cancel()
				}
				return
			}
			responses[id] = res
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, fmt.Errorf("multi round-trip: %w", firstErr)
	}
	return responses, nil
}

// fulfilOne answers one request for input with the connection's
// handlers: elicitations, and roots when some are offered. The suite
// samples nothing.
func (d *directCaller) fulfilOne(ctx context.Context, req mcp.InputRequest) (mcp.InputResponse, error) {
	switch req.Method {
	case mcp.MethodElicitationCreate:
		if req.Elicitation == nil {
			return mcp.InputResponse{}, errors.New("elicitation input request has no params")
		}
		res, err := d.elicit.Elicit(ctx, mcp.ElicitationRequest{
			Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)},
			Params:  *req.Elicitation,
		})
		if err != nil {
			return mcp.InputResponse{}, err
		}
		if res == nil {
			return mcp.InputResponse{}, errors.New("elicitation handler returned no result")
		}
		return mcp.NewElicitationInputResponse(*res), nil
	case mcp.MethodSamplingCreateMessage:
		return mcp.InputResponse{}, errors.New("no sampling handler configured")
	case mcp.MethodListRoots:
		if d.roots == nil {
			return mcp.InputResponse{}, errors.New("no roots handler configured")
		}
		res, err := d.roots.ListRoots(ctx, mcp.ListRootsRequest{Request: mcp.Request{Method: string(mcp.MethodListRoots)}})
		if err != nil {
			return mcp.InputResponse{}, err
		}
		if res == nil {
			return mcp.InputResponse{}, errors.New("roots handler returned no result")
		}
		if res.Roots == nil {
			with := *res
			with.Roots = []mcp.Root{}
			res = &with
		}
		return mcp.NewRootsInputResponse(*res), nil
	}
	return mcp.InputResponse{}, fmt.Errorf("unsupported input request method %q", req.Method)
}

// parseCallToolResult decodes a tools/call result as
// mcp.ParseCallToolResult does (the same values, the same errors), in
// fewer passes: that one decodes the whole result three times over, and
// each content item twice more. A result whose content is all text, as
// most are, is read in one pass; any other is mcp.ParseCallToolResult's.
func parseCallToolResult(raw json.RawMessage) (*mcp.CallToolResult, error) {
	var r struct {
		Meta              *mcp.Meta         `json:"_meta,omitempty"`
		ResultType        mcp.ResultType    `json:"resultType,omitempty"`
		Content           []mcp.TextContent `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent,omitempty"`
		IsError           bool              `json:"isError,omitempty"`
		InputRequests     mcp.InputRequests `json:"inputRequests,omitempty"`
		RequestState      string            `json:"requestState,omitempty"`
	}
	if jsonv1.Unmarshal(raw, &r) != nil || r.Content == nil ||
		slices.ContainsFunc(r.Content, func(c mcp.TextContent) bool { return c.Type != mcp.ContentTypeText }) {
		return mcp.ParseCallToolResult(&raw)
	}
	res := &mcp.CallToolResult{IsError: r.IsError}
	res.Meta = r.Meta
	res.ResultType = r.ResultType
	res.InputRequests = r.InputRequests
	res.RequestState = r.RequestState
	if len(r.Content) > 0 {
		res.Content = make([]mcp.Content, len(r.Content))
		for i, c := range r.Content {
			res.Content[i] = c
		}
	}
	if err := structured(res, r.StructuredContent); err != nil {
		return nil, err
	}
	return res, nil
}

// structured sets a result's structured content from its JSON.
func structured(res *mcp.CallToolResult, raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	res.RawStructuredContent = raw
	if err := json.Unmarshal(raw, &res.StructuredContent); err != nil {
		return fmt.Errorf("failed to unmarshal response: %w", err)
	}
	return nil
}
