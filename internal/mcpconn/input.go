package mcpconn

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// A server may ask for input while it handles a call: the user's answer to
// an elicitation (a form or a URL to open), or the client's roots. In the
// 2026-07-28 revision it answers "input required" and the client retries
// the call with the answers; before it, the server sends a request of its
// own. Either way the request must be tied to the call it belongs to, and
// so to the case whose scripted replies answer it: the call's context
// carries it where the transport keeps the context (the retry of the
// current revision, the response stream of streamable HTTP), a task's id
// ties the requests of a call run as a task, and on a connection shared by
// concurrent calls (stdio, SSE) a call whose case scripted replies runs
// alone, so that the request is its.

// Replier answers elicitation requests with the replies a case scripted:
// for the request's message and the fields it asks for, an action
// (eval.ElicitAccept, ElicitDecline, ElicitCancel) and, to accept, the
// content. ok is false when nothing scripted answers it: the request is
// then declined and recorded as unscripted.
type Replier func(message string, fields []string) (action string, content map[string]any, ok bool)

type replierKey struct{}

// replies is a context's Replier, and whether a simulated user gives its
// replies (eval.User) rather than a case's script.
type replies struct {
	r         Replier
	simulated bool
}

// WithReplier returns a context whose tool calls answer elicitation
// requests with r, the replies a case scripted.
func WithReplier(ctx context.Context, r Replier) context.Context {
	return context.WithValue(ctx, replierKey{}, replies{r: r})
}

// WithSimulatedUser returns a context whose tool calls answer elicitation
// requests with r, the replies of a case's simulated user: their round
// trips are marked Simulated, not Scripted. ok false from r declines the
// request.
func WithSimulatedUser(ctx context.Context, r Replier) context.Context {
	return context.WithValue(ctx, replierKey{}, replies{r: r, simulated: true})
}

// pendingOf returns a call in flight that answers with ctx's replies.
func pendingOf(ctx context.Context) *pending {
	rs, _ := ctx.Value(replierKey{}).(replies)
	return &pending{replier: rs.r, simulated: rs.simulated}
}

// pending is a call in flight: the replies it answers with, and the
// elicitation round trips it met.
type pending struct {
	replier Replier
	// simulated: a simulated user gives the replies.
	simulated bool

	mu     sync.Mutex
	rounds []eval.Elicitation
	// beyond counts the requests past maxRounds, cancelled unrecorded.
	beyond int
}

// maxRounds bounds the elicitation requests a call answers and records:
// a server that asks without end is cancelled, and its call's record
// stays bounded.
const maxRounds = 32

type pendingKey struct{}

func pendingFrom(ctx context.Context) *pending {
	p, _ := ctx.Value(pendingKey{}).(*pending)
	return p
}

// elicitations returns the round trips so far.
func (p *pending) elicitations() []eval.Elicitation {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := slices.Clone(p.rounds)
	if p.beyond > 0 {
		out = append(out, eval.Elicitation{Action: eval.ElicitCancel,
			Note: fmt.Sprintf("%d more requests cancelled: a call answers at most %d", p.beyond, maxRounds)})
	}
	return out
}

// answer replies to one request and records the round trip.
func (p *pending) answer(params mcp.ElicitationParams, note string) *mcp.ElicitationResult {
	p.mu.Lock()
	if len(p.rounds) >= maxRounds {
		p.beyond++
		p.mu.Unlock()
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionCancel}}
	}
	p.mu.Unlock()
	round := eval.Elicitation{Message: cut(params.Message, maxElicitText), Fields: requestedFields(params.RequestedSchema), Note: note}
	if params.Mode == mcp.ElicitationModeURL {
		round.Mode, round.URL = params.Mode, cut(params.URL, maxElicitText)
	}
	round.Action = eval.ElicitDecline
	if p.replier != nil {
		if action, content, ok := p.replier(params.Message, round.Fields); ok {
			round.Action, round.Content = action, content
			round.Scripted, round.Simulated = !p.simulated, p.simulated
		}
	}
	p.mu.Lock()
	if len(p.rounds) >= maxRounds { // others answered meanwhile
		p.beyond++
		p.mu.Unlock()
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionCancel}}
	}
	p.rounds = append(p.rounds, round)
	p.mu.Unlock()
	res := &mcp.ElicitationResult{}
	res.Action = mcp.ElicitationResponseAction(round.Action)
	if round.Action == eval.ElicitAccept && round.Content != nil {
		res.Content = round.Content
	}
	return res
}

// maxElicitText bounds a server's texts kept from an elicitation request.
const maxElicitText = 4 << 10

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// requestedFields lists the properties a form's schema asks for, in the
// schema's own order.
func requestedFields(schema any) []string {
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	var s struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	keys, _ := objectKeys(s.Properties)
	return keys
}

// calls are the calls in flight on one connection, for the requests that
// do not say which call they belong to.
type calls struct {
	mu     sync.Mutex
	active []*pending
	tasks  map[string]*pending // by task id
	ended  chan struct{}       // closed, and replaced, when a call ends
	// exclusive lets a call whose case scripted replies run alone on a
	// connection that cannot tie a request to its call.
	exclusive sync.RWMutex
}

// attributionWait bounds how long a request that several calls may have
// made waits for all but one of them to end: the call that asks cannot
// end before it is answered.
const attributionWait = 2 * time.Second

// begin registers a call in flight; the function returned ends it.
func (cs *calls) begin(p *pending) func() {
	cs.mu.Lock()
	cs.active = append(cs.active, p)
	if cs.ended == nil {
		cs.ended = make(chan struct{})
	}
	cs.mu.Unlock()
	return func() {
		cs.mu.Lock()
		defer cs.mu.Unlock()
		cs.active = slices.DeleteFunc(cs.active, func(q *pending) bool { return q == p })
		for id, q := range cs.tasks {
			if q == p {
				delete(cs.tasks, id)
			}
		}
		close(cs.ended)
		cs.ended = make(chan struct{})
	}
}

// narrow waits, up to attributionWait, until at most one of the calls is
// still in flight, and returns those that are.
func (cs *calls) narrow(ctx context.Context, candidates []*pending) []*pending {
	deadline := time.NewTimer(attributionWait)
	defer deadline.Stop()
	for {
		cs.mu.Lock()
		live := slices.DeleteFunc(slices.Clone(candidates), func(p *pending) bool { return !slices.Contains(cs.active, p) })
		ended := cs.ended
		cs.mu.Unlock()
		if len(live) <= 1 {
			return live
		}
		select {
		case <-ended:
		case <-deadline.C:
			return live
		case <-ctx.Done():
			return live
		}
	}
}

// task ties a task's id to the call that started it.
func (cs *calls) task(id string, p *pending) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.tasks == nil {
		cs.tasks = map[string]*pending{}
	}
	cs.tasks[id] = p
}

// owners returns the calls a request may belong to: the call of the task
// it names, else the calls in flight.
func (cs *calls) owners(taskID string) []*pending {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if p := cs.tasks[taskID]; taskID != "" && p != nil {
		return []*pending{p}
	}
	return slices.Clone(cs.active)
}

// elicit answers an elicitation request that arrived on the connection.
func (cs *calls) elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	if p := pendingFrom(ctx); p != nil {
		return p.answer(req.Params, ""), nil
	}
	owners := cs.owners(relatedTask(req.Params.Meta))
	if len(owners) > 1 {
		// Several calls, none of whose cases scripted replies (a scripted
		// one runs alone): the one that asks is the one still waiting.
		owners = cs.narrow(ctx, owners)
	}
	switch len(owners) {
	case 0: // no call in flight: nobody to ask
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}, nil
	case 1:
		return owners[0].answer(req.Params, ""), nil
	}
	// Still several: declined, and recorded on each.
	note := fmt.Sprintf("asked while %d calls were in flight on a connection that does not say which call asks", len(owners))
	var res *mcp.ElicitationResult
	for _, p := range owners {
		res = p.answer(req.Params, note)
	}
	return res, nil
}

// relatedTask returns the task id a request's _meta names, or "".
func relatedTask(meta *mcp.Meta) string {
	if meta == nil {
		return ""
	}
	related, _ := meta.AdditionalFields[mcp.RelatedTaskMetaKey].(map[string]any)
	id, _ := related["taskId"].(string)
	return id
}

// elicitFunc adapts a function to mcp-go's client.ElicitationHandler.
type elicitFunc func(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error)

func (f elicitFunc) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return f(ctx, req)
}

// rootsList is the client's roots, as a server asks for them.
type rootsList []mcp.Root

func (r rootsList) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: slices.Clone(r)}, nil
}

// rootsSettle is how long after it got the roots a server is given to
// apply them before a call: a server that asks for them as it starts
// (server-filesystem) applies them after answering other requests.
const rootsSettle = 250 * time.Millisecond

// givenRoots answers roots requests and remembers when it last did.
type givenRoots struct {
	roots rootsList
	last  atomic.Int64 // unix nanoseconds of the last answer; 0: never
}

func (g *givenRoots) ListRoots(ctx context.Context, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	defer g.last.Store(time.Now().UnixNano())
	return g.roots.ListRoots(ctx, req)
}

// settle waits until the server has had rootsSettle since it last got
// the roots.
func (g *givenRoots) settle(ctx context.Context) error {
	last := g.last.Load()
	if last == 0 {
		return nil
	}
	if wait := time.Until(time.Unix(0, last).Add(rootsSettle)); wait > 0 {
		return sleep(ctx, wait)
	}
	return nil
}

// roots returns the roots offered to a server, only those configured:
// its own (Spec.Roots), else the run's (Options.Roots), else, for a server
// of a servers file started in a directory of its own (cwd), that
// directory. A server without roots is not told the client has any, so
// one started with its own directories keeps them.
func (s *Server) roots() (rootsList, error) {
	dirs := s.spec.Roots
	if len(dirs) == 0 {
		dirs = s.opts.Roots
	}
	if len(dirs) == 0 && s.spec.FromFile && s.spec.Command != "" && s.spec.Dir != "" {
		dirs = []string{s.spec.Dir}
	}
	out := rootsList{}
	for _, d := range dirs {
		r, err := rootOf(d)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Roots returns the roots the server is offered, as file:// URIs; none
// when no roots are configured for it.
func (s *Server) Roots() []string {
	roots, err := s.roots()
	if err != nil {
		return nil
	}
	out := make([]string, len(roots))
	for i, r := range roots {
		out[i] = r.URI
	}
	return out
}

// rootOf returns the root of a directory (made absolute) or of a file://
// URI, named by its last element.
func rootOf(dir string) (mcp.Root, error) {
	if strings.HasPrefix(dir, "file://") {
		u, err := url.Parse(dir)
		if err != nil {
			return mcp.Root{}, fmt.Errorf("root %q: %w", dir, err)
		}
		return mcp.Root{URI: u.String(), Name: filepath.Base(u.Path)}, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return mcp.Root{}, fmt.Errorf("root %q: %w", dir, err)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return mcp.Root{URI: u.String(), Name: filepath.Base(abs)}, nil
}
