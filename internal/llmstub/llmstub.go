// Package llmstub is an OpenAI-compatible chat-completions server for tests,
// benchmarks and key-less demos. A Responder decides each reply; Replay
// answers like a correct agent by replaying each case's reference tool calls
// and approving every answer as judge, and a Fixture replays a real
// provider's recorded responses byte for byte (testdata/providers). Options
// inject latency, 429s with Retry-After and 500s, enforce a rate limit with
// OpenAI's rate-limit headers, limit each API key's request rate as
// providers do, serve a list of models, and validate requests as strictly
// as OpenAI does; counters report requests, per key, faults, throttled
// requests and peak concurrency.
package llmstub

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Request is a chat request as the stub sees it.
type Request struct {
	Model    string         `json:"model"`
	Messages []eval.Message `json:"messages"`
	Tools    []struct {
		Function struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"function"`
	} `json:"tools"`
	ToolChoice  json.RawMessage `json:"tool_choice"`
	Temperature *float64        `json:"temperature"`
	// Usage is OpenRouter's usage accounting: Include asks for the cost.
	Usage struct {
		Include bool `json:"include"`
	} `json:"usage"`

	// Body is the request's body as it arrived; Path, Query and Header are
	// its HTTP request's.
	Body   []byte      `json:"-"`
	Path   string      `json:"-"`
	Query  url.Values  `json:"-"`
	Header http.Header `json:"-"`
}

// ForcedTool returns the tool the request forces through tool_choice, or "".
func (r Request) ForcedTool() string {
	var tc struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(r.ToolChoice, &tc) == nil {
		return tc.Function.Name
	}
	return ""
}

// Question returns the first user message.
func (r Request) Question() string {
	for _, m := range r.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

// Claims returns the claims a judge of claims is asked about (the claims
// of the JSON object in the last user message), and GradedAnswer the answer
// it checks them in.
func (r Request) Claims() []string {
	var data struct {
		Claims []struct {
			Text string `json:"text"`
		} `json:"claims"`
	}
	r.gradingInput(&data)
	out := make([]string, len(data.Claims))
	for i, c := range data.Claims {
		out[i] = c.Text
	}
	return out
}

// GradedAnswer returns the answer a judge is asked to grade.
func (r Request) GradedAnswer() string {
	var data struct {
		Answer string `json:"actual_answer"`
	}
	r.gradingInput(&data)
	return data.Answer
}

// gradingInput decodes the JSON object a judge's last user message holds.
func (r Request) gradingInput(v any) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if m := r.Messages[i]; m.Role == "user" {
			if k := strings.Index(m.Content, "{"); k >= 0 {
				json.Unmarshal([]byte(m.Content[k:]), v)
			}
			return
		}
	}
}

// Reply is what the stub answers.
type Reply struct {
	Content   string
	ToolCalls []Call
	// Status, when not 0 or 200, makes an error response with Body (or a
	// JSON error) and the Retry-After header if set.
	Status     int
	Body       string
	RetryAfter string
	// NoUsage leaves the usage out of the response.
	NoUsage bool
	// CostUSD, when set, is reported as the usage's cost (as OpenRouter does).
	CostUSD *float64
	// Delay is added before the reply.
	Delay time.Duration
	// Raw, when set, is served as it is (status, headers and body byte for
	// byte) instead of a reply built from the fields above.
	Raw *Response
}

// Response is an HTTP response as a provider sent it.
type Response struct {
	// Status is the HTTP status (0 means 200).
	Status  int               `yaml:"status"`
	Headers map[string]string `yaml:"headers"`
	Body    string            `yaml:"body"`
}

func (r Response) write(w http.ResponseWriter) {
	for k, v := range r.Headers {
		w.Header().Set(k, v)
	}
	status := r.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	io.WriteString(w, r.Body)
}

// Call is a tool call in a reply.
type Call struct {
	Name      string
	Arguments string
}

// Responder decides the reply to a request.
type Responder func(Request) Reply

// Options inject latency and faults.
type Options struct {
	// Models, when set, are the models the stub serves: GET /models lists
	// them, and a chat request for another model is answered 404, as
	// OpenAI answers it. Unset, every model is served and /models is not.
	Models     []string
	Latency    time.Duration
	Rate429    float64 // share of requests answered 429
	Rate500    float64 // share of requests answered 500
	RetryAfter string  // Retry-After sent with 429s (default "0")
	// ThrottleStatus, when set, answers the Rate429 share with this status
	// instead (503, say), Retry-After included: the same requests and
	// waits without a sign of throttling, to compare with.
	ThrottleStatus int
	Seed           uint64
	// RateLimit, when set, enforces that many chat requests per second,
	// as a provider's rate limit does: a budget of one second's requests
	// that refills continuously, counted as requests arrive. Every
	// response carries OpenAI's x-ratelimit-limit-requests, -remaining-
	// and -reset-requests headers; a request beyond the budget is answered
	// 429 at once, with Retry-After and retry-after-ms.
	RateLimit float64
	// KeyRate limits each API key (each Authorization header) to this
	// many requests per second, with bursts of KeyBurst (default 1): a
	// request beyond it is answered 429 with the Retry-After of the key's
	// next free slot. 0: no limit.
	KeyRate  float64
	KeyBurst int
	// ModelList, when set, is the answer to GET /models, as a provider
	// recorded it; unlike Models, it does not restrict the chat requests.
	ModelList *Response
	// Strict validates every chat request as OpenAI does (see Validate) and
	// answers one OpenAI would refuse with OpenAI's 400 error.
	Strict bool
}

// Server is a stub. Start runs one on a loopback port; a Server is also an
// http.Handler to serve elsewhere.
type Server struct {
	*httptest.Server // set by Start
	respond          Responder
	opts             Options

	mu       sync.Mutex
	rng      *rand.Rand
	requests []Request

	total, faults atomic.Int64
	inFlight      atomic.Int64
	peak          atomic.Int64

	// The rate limit's budget (see Options.RateLimit).
	bucket     float64
	refilledAt time.Time
	throttled  atomic.Int64

	keys keyLimiter
}

// New returns a stub handler, not yet serving.
func New(respond Responder, opts Options) *Server {
	return &Server{respond: respond, opts: opts, rng: rand.New(rand.NewPCG(opts.Seed, 1))}
}

// Start starts a stub on a loopback port. Close it when done.
func Start(respond Responder, opts Options) *Server {
	s := New(respond, opts)
	s.Server = httptest.NewServer(s)
	return s
}

// ServeHTTP answers chat-completions requests under any path prefix.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.serve(w, r) }

// BaseURL is the URL to configure as OPENAI_BASE_URL.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Requests returns the number of requests received, faults included.
func (s *Server) Requests() int { return int(s.total.Load()) }

// Faults returns the number of injected 429 and 500 responses.
func (s *Server) Faults() int { return int(s.faults.Load()) }

// Throttled returns the number of requests answered 429 by the rate limit
// (Options.RateLimit).
func (s *Server) Throttled() int { return int(s.throttled.Load()) }

// PeakInFlight returns the most requests that were in progress at once.
func (s *Server) PeakInFlight() int { return int(s.peak.Load()) }

// Received returns the successfully decoded requests, in arrival order.
func (s *Server) Received() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.total.Add(1)
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
	}
	if strings.HasSuffix(r.URL.Path, "/models") && r.Method == http.MethodGet {
		switch {
		case s.opts.ModelList != nil:
			s.opts.ModelList.write(w)
			return
		case len(s.opts.Models) > 0:
			writeModels(w, s.opts.Models)
			return
		}
	}
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	if wait, ok := s.keys.take(r.Header.Get("Authorization"), s.opts.KeyRate, s.opts.KeyBurst); !ok {
		// In whole milliseconds, rounded up: "0.000" would read as no
		// Retry-After at all.
		retryAfter := strconv.FormatFloat(math.Ceil(max(wait.Seconds(), 1e-9)*1000)/1000, 'f', 3, 64)
		writeError(w, http.StatusTooManyRequests, retryAfter, "rate limit of the API key exceeded")
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "", "reading the body: "+err.Error())
		return
	}
	req, err := decodeRequest(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "", "invalid JSON body: "+err.Error())
		return
	}
	req.Path, req.Query, req.Header = r.URL.Path, r.URL.Query(), r.Header.Clone()
	if s.opts.Strict {
		if refusal := Validate(body); refusal != nil {
			refusal.write(w)
			return
		}
	}
	if len(s.opts.Models) > 0 && !slices.Contains(s.opts.Models, req.Model) {
		writeError(w, http.StatusNotFound, "", fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model))
		return
	}
	if s.opts.RateLimit > 0 && !s.admit(w.Header()) {
		s.throttled.Add(1)
		writeError(w, http.StatusTooManyRequests, "", "Rate limit reached for requests")
		return
	}
	if !sleep(r, s.opts.Latency) {
		return
	}
	if status, throttle := s.fault(); status != 0 {
		s.faults.Add(1)
		retryAfter := ""
		if throttle {
			retryAfter = s.opts.RetryAfter
			if retryAfter == "" {
				retryAfter = "0"
			}
		}
		writeError(w, status, retryAfter, http.StatusText(status))
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	reply := s.respond(req)
	if !sleep(r, reply.Delay) {
		return
	}
	if reply.Raw != nil {
		reply.Raw.write(w)
		return
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		if reply.Body != "" {
			w.Header().Set("Retry-After", reply.RetryAfter)
			w.WriteHeader(reply.Status)
			fmt.Fprint(w, reply.Body)
			return
		}
		writeError(w, reply.Status, reply.RetryAfter, http.StatusText(reply.Status))
		return
	}
	writeReply(w, req, reply)
}

// sleep waits d unless the client goes away first; it reports whether the
// request is still wanted.
func sleep(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// admit takes one request from the rate limit's budget and sets the
// rate-limit headers; it reports false, with Retry-After set, when the
// budget is spent.
func (s *Server) admit(h http.Header) bool {
	rate := s.opts.RateLimit
	size := max(rate, 1)
	s.mu.Lock()
	now := time.Now()
	if s.refilledAt.IsZero() {
		s.bucket = size
	} else {
		s.bucket = min(size, s.bucket+rate*now.Sub(s.refilledAt).Seconds())
	}
	s.refilledAt = now
	ok := s.bucket >= 1
	if ok {
		s.bucket--
	}
	level := s.bucket
	s.mu.Unlock()
	seconds := func(x float64) time.Duration {
		return time.Duration(x / rate * float64(time.Second)).Round(time.Millisecond)
	}
	h.Set("X-Ratelimit-Limit-Requests", strconv.FormatFloat(size, 'f', -1, 64))
	h.Set("X-Ratelimit-Remaining-Requests", strconv.Itoa(int(level)))
	h.Set("X-Ratelimit-Reset-Requests", seconds(size-level).String())
	if !ok {
		next := seconds(1 - level)
		h.Set("Retry-After", strconv.Itoa(int(math.Ceil(next.Seconds()))))
		h.Set("Retry-After-Ms", strconv.FormatInt(next.Milliseconds(), 10))
	}
	return ok
}

// fault draws whether to inject a fault: its status, and whether it is
// of the Rate429 share.
func (s *Server) fault() (status int, throttle bool) {
	if s.opts.Rate429 == 0 && s.opts.Rate500 == 0 {
		return 0, false
	}
	s.mu.Lock()
	x := s.rng.Float64()
	s.mu.Unlock()
	switch {
	case x < s.opts.Rate429:
		if s.opts.ThrottleStatus != 0 {
			return s.opts.ThrottleStatus, true
		}
		return http.StatusTooManyRequests, true
	case x < s.opts.Rate429+s.opts.Rate500:
		return http.StatusInternalServerError, false
	}
	return 0, false
}

func writeError(w http.ResponseWriter, status int, retryAfter, msg string) {
	w.Header().Set("Content-Type", "application/json")
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "stub_error", "code": status}})
}

// writeModels answers GET /models as OpenAI does.
func writeModels(w http.ResponseWriter, models []string) {
	data := make([]map[string]any, len(models))
	for i, m := range models {
		data[i] = map[string]any{"id": m, "object": "model", "owned_by": "llmstub"}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

var ids atomic.Int64

func writeReply(w http.ResponseWriter, req Request, r Reply) {
	msg := map[string]any{"role": "assistant", "content": r.Content}
	finish := "stop"
	if len(r.ToolCalls) > 0 {
		var calls []map[string]any
		for _, c := range r.ToolCalls {
			calls = append(calls, map[string]any{
				"id": fmt.Sprintf("call_%d", ids.Add(1)), "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Arguments},
			})
		}
		msg["tool_calls"] = calls
		finish = "tool_calls"
	}
	resp := map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", ids.Add(1)), "object": "chat.completion", "created": time.Now().Unix(),
		"model": req.Model, "choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
	}
	if !r.NoUsage {
		// About what a provider counts: the messages and the tool
		// definitions, at four bytes a token.
		prompt := len(req.Body) / 4
		completion := len(r.Content)/4 + 10*len(r.ToolCalls) + 1
		usage := map[string]any{"prompt_tokens": prompt, "completion_tokens": completion,
			"total_tokens": prompt + completion, "prompt_tokens_details": map[string]any{"cached_tokens": prompt / 2}}
		if r.CostUSD != nil {
			usage["cost"] = *r.CostUSD
		}
		resp["usage"] = usage
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}
