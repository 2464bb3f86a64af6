package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// costTransport reads the cost a provider reports for a request
// (OpenRouter's usage.cost) from its response, and, when askUsage is set,
// asks for it: OpenRouter reports it only when a request carries
// "usage": {"include": true}.
type costTransport struct {
	base     http.RoundTripper
	askUsage bool
}

// maxCostBody bounds the response bodies read for their cost; a larger
// response is passed on unread (and refused by the retry transport).
const maxCostBody = MaxResponseBytes

type costKey struct{}

// reportedCost holds the cost a provider reported for one request.
type reportedCost struct {
	usd float64
	ok  bool
}

func (t *costTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	holder, _ := r.Context().Value(costKey{}).(*reportedCost)
	if t.askUsage && r.Body != nil && r.GetBody != nil {
		if body, err := r.GetBody(); err == nil {
			data, err := io.ReadAll(body)
			body.Close()
			if asked, ok := withUsageAccounting(data); err == nil && ok {
				r = r.Clone(r.Context())
				r.Body = io.NopCloser(bytes.NewReader(asked))
				r.ContentLength = int64(len(asked))
				r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(asked)), nil }
			}
		}
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil || holder == nil || resp.StatusCode != http.StatusOK ||
		!strings.Contains(resp.Header.Get("Content-Type"), "json") || resp.ContentLength > maxCostBody {
		return resp, err
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxCostBody+1))
	if err != nil || len(data) > maxCostBody {
		// Too large to be read here, or failing: the reader of the response
		// gets all of it, the failure included.
		rest := resp.Body
		if err != nil {
			rest = io.NopCloser(failingReader{err})
		}
		resp.Body = readCloser{io.MultiReader(bytes.NewReader(data), rest), resp.Body}
		return resp, nil
	}
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(data))
	var body struct {
		Usage struct {
			Cost *float64 `json:"cost"`
		} `json:"usage"`
	}
	if json.Unmarshal(data, &body) == nil && body.Usage.Cost != nil && *body.Usage.Cost >= 0 {
		holder.usd, holder.ok = *body.Usage.Cost, true
	}
	return resp, nil
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}

// failingReader fails every read with err.
type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

// withUsageAccounting adds "usage": {"include": true} to a JSON request
// body; ok is false when the body is not a JSON object.
func withUsageAccounting(data []byte) ([]byte, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil || fields == nil {
		return nil, false
	}
	fields["usage"] = json.RawMessage(`{"include":true}`)
	out, err := json.Marshal(fields)
	return out, err == nil
}

// withCostHolder returns a context whose request reports its cost into h.
func withCostHolder(ctx context.Context, h *reportedCost) context.Context {
	return context.WithValue(ctx, costKey{}, h)
}
