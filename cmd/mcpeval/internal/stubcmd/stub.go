// Package stubcmd is mcpeval stub: an OpenAI-compatible chat-completions
// stub that answers like a correct agent. For every case it knows it
// replays the case's reference tool calls and answers with their results,
// and as judge it approves every answer. It exercises the whole suite over
// real HTTP without a key: point OPENAI_BASE_URL at it.
package stubcmd

import (
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/llmstub"
	"github.com/mcpeval/mcpeval/internal/prose"
)

// Cmd is mcpeval stub.
var Cmd = &base.Command{
	Name:    "stub",
	Summary: "serve an OpenAI-compatible stub model that replays the cases' reference calls",
	Usage:   "[-addr 127.0.0.1:8099] [-cases DIR] [-latency D] [-rate429 P] [-rate500 P] [-rate-limit R] [-key-rate R] [-reject-judge M] [-unclear-judge M] [-wrong M=RE] [-cost M=USD] [-served M,...] [-never-asks] [-user leaky|fails] [-wrong-turn N] [-fixture FILE] [-strict] [-offered]",
	Doc: `  mcpeval stub -addr 127.0.0.1:8099 &
  OPENAI_BASE_URL=http://127.0.0.1:8099/v1 EVAL_MODEL=stub make eval

-latency, -rate429 and -rate500 add delay and faults, and -rate-limit a
provider's rate limit, for trying the suite's retries and throttling.
-reject-judge names judge models that say no to every answer, so that several
judges disagree (EVAL_JUDGE_MODEL=a,b,c with -reject-judge b); -unclear-judge
names judge models whose every reply contradicts itself (a yes call beside the
text "Correct: no"), so that the judge cannot decide and the cases are
undecided. -wrong makes one
model answer a known subset of the cases wrong, -cost makes a model report what
each request cost, and -served lists the models the stub serves (any other gets
a 404), for trying several models side by side:

  mcpeval stub -served good,bad -wrong 'bad=(?i)gene' -cost good=0.002 &
  OPENAI_BASE_URL=http://127.0.0.1:8099/v1 OPENAI_API_KEY=x go test ./evaltest -models good,bad

-key-rate limits each API key to that many requests per second (429 with
Retry-After beyond it), as providers do, for trying the shards of a split run
with a key each. -fixture serves a real provider's recorded responses instead,
byte for byte, refusing follow-ups that drop what the provider requires (the
corpus in testdata/providers), and -strict validates every request as OpenAI
does. -offered answers only with what it is offered, for trying an arms file
(-arms): without tools it does not know, and it gives up on a case whose tool
is hidden or described as deprecated or not to use.

For conversations (a case's turns: or user:), -never-asks plays an agent that
never asks a simulated user anything: it looks up at once without the facts
only the user knows, and answers wrong when that is not enough. -user leaky
plays a simulated user who tells every fact they know at their first chance,
asked or not (each a leak), and -user fails one whose model is down (HTTP 500),
an error of the infrastructure. -wrong-turn N answers wrong at turn N of every
conversation:

  mcpeval stub -never-asks -user leaky &`,
	Run: run,
}

func run(c *base.Command, args []string, p base.Process) error {
	fs := c.FlagSet()
	var b behaviour
	addr := fs.String("addr", "127.0.0.1:8099", "`address` to listen on (port 0 picks a free one)")
	cases := fs.String("cases", "", "case `file or directory` whose reference trajectories it replays (default: the module's cases/)")
	latency := fs.Duration("latency", 0, "`delay` added to every reply")
	rate429 := fs.Float64("rate429", 0, "`share` of requests answered 429 (with Retry-After)")
	rate500 := fs.Float64("rate500", 0, "`share` of requests answered 500")
	rateLimit := fs.Float64("rate-limit", 0, "`requests` per second served, with OpenAI's rate-limit headers; beyond it, 429 (0: no limit)")
	keyRate := fs.Float64("key-rate", 0, "`requests` per second each API key (Authorization header) may send; beyond it a 429 with Retry-After (0: no limit)")
	keyBurst := fs.Int("key-burst", 1, "`requests` a key may send at once before -key-rate applies")
	reject := fs.String("reject-judge", "", "judge `models` (comma-separated) that say no to every answer")
	unclear := fs.String("unclear-judge", "", "judge `models` (comma-separated) whose every reply contradicts itself")
	served := fs.String("served", "", "the `models` served, comma-separated, listed at /models; any other gets a 404 (default: every model)")
	fixture := fs.String("fixture", "", "serve the recorded provider responses of this fixture `file` (testdata/providers) instead of replaying cases")
	strict := fs.Bool("strict", false, "validate every request as OpenAI does and answer what OpenAI refuses with its 400")
	fs.BoolVar(&b.offered, "offered", false, "answer only with the tools offered, as given (for arms: see -arms)")
	fs.Func("wrong", "`model=regexp`: the model answers every question the regular expression matches wrong (repeatable)", b.addWrong)
	fs.Func("cost", "`model=usd`: every reply to the model reports this cost in US dollars (repeatable)", b.addCost)
	fs.BoolVar(&b.neverAsks, "never-asks", false, "play an agent that never asks a simulated user anything (see user: in docs/cases.md)")
	fs.Func("user", "the simulated `user`: leaky (tells every fact unasked) or fails (its model answers HTTP 500); default: one who answers by the rules", b.setUser)
	fs.IntVar(&b.wrongTurn, "wrong-turn", 0, "answer wrong at this `turn` of every conversation (from 1; 0: never)")
	if err := c.ParseFlags(fs, args, p); err != nil {
		return err
	}
	switch {
	case b.wrongTurn < 0:
		return base.Usagef("-wrong-turn %d: give a turn from 1, or 0 for none", b.wrongTurn)
	case b.neverAsks && b.offered:
		return base.Usagef("-never-asks and -offered: choose one agent")
	}
	b.rejectingJudges = splitList(*reject)
	b.unclearJudges = splitList(*unclear)
	opts := llmstub.Options{Latency: *latency, Rate429: *rate429, Rate500: *rate500, RetryAfter: "1", Seed: uint64(time.Now().UnixNano()),
		RateLimit: *rateLimit, Models: splitList(*served), KeyRate: *keyRate, KeyBurst: *keyBurst, Strict: *strict}
	if *fixture != "" {
		return serveFixture(*addr, *fixture, opts, p.Stderr)
	}
	return serve(*addr, *cases, b, opts, p.Stderr)
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// behaviour is how the stub departs from a correct agent.
type behaviour struct {
	// offered answers only with what a request offers (ReplayOffered).
	offered         bool
	rejectingJudges []string
	unclearJudges   []string
	wrong           []func(llmstub.Responder) llmstub.Responder
	costs           []func(llmstub.Responder) llmstub.Responder
	// neverAsks plays an agent that never asks a simulated user
	// (ReplayWithoutAsking); user is how the simulated user departs from
	// the rules ("", leaky or fails); wrongTurn the turn of every
	// conversation answered wrong (0: none).
	neverAsks bool
	user      string
	wrongTurn int
}

func (b *behaviour) setUser(v string) error {
	if v != userLeaky && v != userFails {
		return fmt.Errorf("want %s or %s, not %q", userLeaky, userFails, v)
	}
	b.user = v
	return nil
}

// The simulated users of -user.
const (
	userLeaky = "leaky"
	userFails = "fails"
)

func (b *behaviour) addWrong(v string) error {
	model, expr, ok := strings.Cut(v, "=")
	if !ok || model == "" {
		return fmt.Errorf("want model=regexp, not %q", v)
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return err
	}
	b.wrong = append(b.wrong, func(next llmstub.Responder) llmstub.Responder { return llmstub.Wrong(next, model, re) })
	return nil
}

func (b *behaviour) addCost(v string) error {
	model, amount, ok := strings.Cut(v, "=")
	usd, err := strconv.ParseFloat(amount, 64)
	if !ok || model == "" || err != nil || !(usd >= 0) || math.IsInf(usd, 0) {
		return fmt.Errorf("want model=usd with a cost of 0 or more, not %q", v)
	}
	b.costs = append(b.costs, func(next llmstub.Responder) llmstub.Responder { return llmstub.Priced(next, model, usd) })
	return nil
}

// serve replays the cases' reference trajectories, as b departs from them.
func serve(addr, cases string, b behaviour, opts llmstub.Options, log io.Writer) error {
	if cases == "" {
		root, err := files.ModuleRoot()
		if err != nil {
			return err
		}
		cases = filepath.Join(root, "cases")
	}
	loaded, err := evalcase.LoadPath(cases)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "mcpeval stub: replaying %s from %s; OPENAI_BASE_URL=http://%s/v1\n", prose.Plural(len(loaded), "cases"), cases, ln.Addr())
	return http.Serve(ln, llmstub.New(b.responder(loaded, log), opts))
}

// responder answers as a correct agent of the cases does, as b departs
// from it, saying how on log.
func (b behaviour) responder(loaded []eval.Case, log io.Writer) llmstub.Responder {
	respond := llmstub.Replay(loaded)
	switch {
	case b.offered:
		respond = llmstub.ReplayOffered(loaded)
		fmt.Fprintln(log, "mcpeval stub: answering only with the tools each request offers")
	case b.neverAsks:
		respond = llmstub.ReplayWithoutAsking(loaded)
		fmt.Fprintln(log, "mcpeval stub: an agent that never asks a simulated user anything")
	}
	if b.wrongTurn > 0 {
		respond = llmstub.WrongAtTurn(respond, b.wrongTurn)
		fmt.Fprintf(log, "mcpeval stub: answering wrong at turn %d of every conversation\n", b.wrongTurn)
	}
	switch b.user {
	case userLeaky:
		respond = llmstub.LeakyUser(respond, loaded)
		fmt.Fprintln(log, "mcpeval stub: the simulated users tell every fact they know, asked or not")
	case userFails:
		respond = llmstub.FailingUser(respond)
		fmt.Fprintln(log, "mcpeval stub: the model playing the simulated users answers HTTP 500")
	}
	if len(b.rejectingJudges) > 0 {
		respond = llmstub.RejectingJudges(respond, b.rejectingJudges...)
		fmt.Fprintf(log, "mcpeval stub: judge models %s say no to every answer\n", strings.Join(b.rejectingJudges, ", "))
	}
	if len(b.unclearJudges) > 0 {
		respond = llmstub.UnclearJudges(respond, b.unclearJudges...)
		fmt.Fprintf(log, "mcpeval stub: judge models %s contradict themselves in every reply\n", strings.Join(b.unclearJudges, ", "))
	}
	for _, wrap := range append(b.wrong, b.costs...) {
		respond = wrap(respond)
	}
	return respond
}

// serveFixture serves a fixture's recorded responses.
func serveFixture(addr, path string, opts llmstub.Options, log io.Writer) error {
	stub, f, err := fixtureStub(path, opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	base := f.BasePath
	if base == "" {
		base = "/v1"
	}
	fmt.Fprintf(log, "mcpeval stub: serving %s (%s: %s); OPENAI_BASE_URL=http://%s%s\n", path, f.Provider, f.Shape, ln.Addr(), base)
	return http.Serve(ln, stub)
}

// fixtureStub is a stub that answers with the fixture at path, strict when
// opts or the fixture asks for it.
func fixtureStub(path string, opts llmstub.Options) (*llmstub.Server, *llmstub.Fixture, error) {
	f, err := llmstub.LoadFixture(path)
	if err != nil {
		return nil, nil, err
	}
	opts.Strict = opts.Strict || f.Strict
	opts.ModelList = f.Models
	return llmstub.New(f.Respond, opts), f, nil
}
