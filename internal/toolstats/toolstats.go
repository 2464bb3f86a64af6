// Package toolstats measures how a run used its tool surface: per server,
// which tools the cases called (coverage), and per tool its calls, the
// cases that made them, its errors (results flagged as errors, calls the
// server refused, arguments that are not a JSON object or do not match the
// tool's input schema), its latency, the size of its results in tokens and
// the share of its calls whose case passed.
//
// A Collector takes each record as it finishes and keeps a few numbers per
// call, not the records, so a long run's memory does not grow with their
// texts.
package toolstats

import (
	"cmp"
	"errors"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/schemacheck"
	"github.com/mcpeval/mcpeval/internal/tokens"
)

// Server is one server's tool surface: how the run names the server, its
// short name (which tool calls carry, see eval.ToolCall.Server), its
// serverInfo, the protocol revision it was reached on, the roots it was
// offered, how its cases are kept apart, and the tools offered of it with
// the size of each definition in tokens, by name.
type Server struct {
	Server, ID, Name, Version, Protocol string
	Roots                               []string
	Isolation                           string
	Tools                               []eval.Tool
	DefinitionTokens                    map[string]int
}

// Collector gathers the statistics of a run's tool calls. Its methods are
// safe for concurrent use.
type Collector struct {
	servers []Server
	// byKey holds every offered tool by server and name, byName the first
	// server's tool of each name (for calls that name no server); neither
	// changes after New.
	byKey      map[toolKey]*tool
	byName     map[string]*tool
	tokenLimit int
	counter    *tokens.Counter

	// overridden holds, by arm, the tools whose definition the arm
	// changes (see SetOverridden); it does not change once calls are added.
	overridden map[string]map[toolKey]bool

	mu      sync.Mutex
	unknown map[string]*tally // calls to names no server offers
	reads   map[string]int    // calls of eval.ReadResourceTool, by server
	// byArm holds the calls an arm made to a tool it overrides.
	byArm map[armTool]*tally
	// perArm holds every arm's calls to the servers' tools, overridden or
	// not, when the run compares arms: each arm's tool health.
	perArm map[armTool]*tally
}

// armTool names a tool an arm overrides.
type armTool struct {
	arm string
	toolKey
}

// SetOverridden names the tools of an arm whose description or input
// schema the arm replaces, each as a server's short name and the tool's
// name: the arm's calls to them are the arm's, not the server's, since
// the model read another definition than the server's (a misleading
// description's wrong calls are no failures of the server). Call it
// before adding records.
func (c *Collector) SetOverridden(arm string, tools [][2]string) {
	if len(tools) == 0 {
		return
	}
	if c.overridden == nil {
		c.overridden = map[string]map[toolKey]bool{}
	}
	c.overridden[arm] = map[toolKey]bool{}
	for _, t := range tools {
		c.overridden[arm][toolKey{t[0], t[1]}] = true
	}
}

// overriddenBy returns the tool of the arm's overrides a call went to, by
// its server and name, or by its name when the call names no server.
func (c *Collector) overriddenBy(arm string, tc eval.ToolCall) (toolKey, bool) {
	tools := c.overridden[arm]
	if tc.Server != "" {
		k := toolKey{tc.Server, tc.Name}
		return k, tools[k]
	}
	for _, k := range slices.SortedFunc(maps.Keys(tools), func(a, b toolKey) int { return cmp.Compare(a.server, b.server) }) {
		if k.name == tc.Name {
			return k, true
		}
	}
	return toolKey{}, false
}

// SetDefinitionTokens sets the sizes of the definitions of the tools of
// the server of short name id, by tool name: they may be counted after
// New, while calls are added.
func (c *Collector) SetDefinitionTokens(id string, tokens map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.servers {
		if c.servers[i].ID == id {
			c.servers[i].DefinitionTokens = tokens
		}
	}
}

// toolKey names a tool of a server.
type toolKey struct{ server, name string }

// tool is an offered tool: its schema, compiled on first use, its
// parameters, and its calls.
type tool struct {
	key    toolKey // its server's short name and its name
	schema argsSchema
	params []eval.ParameterUse
	tally
}

// tally is what the calls to one tool name added up to.
type tally struct {
	calls, errors, errorResults, expectedErrors, refused, argErrors, notRun, overLimit int
	passCalls, outputErrors, elicitations, unscripted, unchecked                       int
	outputProblems                                                                     []string
	cases                                                                              map[string]bool
	latencies                                                                          []float64
	resultTokens                                                                       []int
	passed                                                                             map[string]int // calls that passed each argument, by name
}

// New returns a collector for the tools of servers. tokenLimit is the
// run's limit for a tool result (0: none). counter counts the results of
// records that carry no count (ToolCall.ResultTokens), such as cached
// records of older versions; nil leaves them uncounted.
func New(servers []Server, tokenLimit int, counter *tokens.Counter) *Collector {
	c := &Collector{servers: servers, byKey: map[toolKey]*tool{}, byName: map[string]*tool{}, tokenLimit: tokenLimit,
		counter: counter, unknown: map[string]*tally{}, reads: map[string]int{}, byArm: map[armTool]*tally{}}
	for _, s := range servers {
		for _, t := range s.Tools {
			k := toolKey{s.ID, t.Name}
			if _, dup := c.byKey[k]; dup {
				continue
			}
			c.byKey[k] = &tool{key: k, schema: newArgsSchema(t.Parameters), params: parameters(t.Parameters)}
			go c.byKey[k].schema.Compile() // now, not when the first record is counted
			if _, dup := c.byName[t.Name]; !dup {
				c.byName[t.Name] = c.byKey[k]
			}
		}
	}
	return c
}

// lookup finds the offered tool a call went to: by its server and name,
// or by its name alone when the call names no server.
func (c *Collector) lookup(tc eval.ToolCall) *tool {
	if tc.Server != "" {
		return c.byKey[toolKey{tc.Server, tc.Name}]
	}
	return c.byName[tc.Name]
}

// call is one tool call reduced to what the statistics need.
type call struct {
	// unknown: no server offers the tool, so the call failed whatever its
	// arguments.
	argError, errorResult, expectedError, refused, notRun, unknown bool
	// unchecked: the arguments or the result were too costly to check
	// against the tool's schema.
	unchecked                bool
	latencyMS                float64
	tokens                   int
	outputProblem            string
	elicitations, unscripted int
	args                     []string // the arguments passed, by name
}

// Add counts the tool calls of one finished record.
func (c *Collector) Add(r eval.Record) {
	if len(r.ToolCalls) == 0 {
		return
	}
	calls := make([]call, len(r.ToolCalls))
	for i, tc := range r.ToolCalls {
		// The expensive parts (schema validation, token counting) run
		// outside the lock.
		calls[i] = c.measure(tc)
	}
	passed := r.Status == eval.Pass
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, tc := range r.ToolCalls {
		if c.suiteRead(tc) {
			// The suite's own tool, not a server's: counted per server.
			if tc.Server != "" && !tc.NotRun {
				c.reads[tc.Server]++
			}
			continue
		}
		if r.Arm != "" {
			if known := c.lookup(tc); known != nil {
				k := armTool{r.Arm, known.key}
				if c.perArm == nil {
					c.perArm = map[armTool]*tally{}
				}
				if c.perArm[k] == nil {
					c.perArm[k] = &tally{}
				}
				c.perArm[k].add(r.Name, calls[i], passed, c.tokenLimit)
			}
		}
		var t *tally
		if key, ok := c.overriddenBy(r.Arm, tc); ok {
			k := armTool{r.Arm, key}
			if c.byArm[k] == nil {
				c.byArm[k] = &tally{}
			}
			t = c.byArm[k]
		} else if known := c.lookup(tc); known != nil {
			t = &known.tally
		} else {
			if c.unknown[tc.Name] == nil {
				c.unknown[tc.Name] = &tally{}
			}
			t = c.unknown[tc.Name]
		}
		t.add(r.Name, calls[i], passed, c.tokenLimit)
	}
}

// measure classifies one call and takes its latency and result size.
func (c *Collector) measure(tc eval.ToolCall) call {
	if tc.Replay == eval.ReplayUnmatched {
		// A replayed call no recording answered never reached the server:
		// no failure of its tool.
		tc.NotRun, tc.IsError, tc.Refused = true, false, false
	}
	cl := call{notRun: tc.NotRun, refused: tc.Refused && !tc.NotRun}
	cl.errorResult = tc.IsError && !tc.NotRun && !tc.Refused
	if t := c.lookup(tc); t != nil {
		err := t.schema.check(tc.Arguments)
		cl.unchecked = errors.Is(err, schemacheck.ErrTooCostly)
		cl.argError = err != nil && !cl.unchecked
	} else {
		_, err := decodeArgs(tc.Arguments)
		cl.argError, cl.unknown = err != nil, true
	}
	if tc.ExpectedError && tc.IsError && !tc.NotRun && !cl.unknown {
		// The case asked for this failure (arguments against the schema,
		// a refusal or an error result): the tool did its job.
		cl.expectedError = true
		cl.errorResult, cl.refused, cl.argError = false, false, false
	}
	if tc.NotRun {
		return cl // no server time, and the result is the harness's message
	}
	cl.outputProblem = tc.OutputError
	cl.unchecked = cl.unchecked || tc.Unchecked != ""
	cl.elicitations = len(tc.Elicitations)
	for _, e := range tc.Elicitations {
		if !e.Scripted {
			cl.unscripted++
		}
	}
	if !tc.IsError && !cl.unknown {
		cl.args = argNames(tc.Arguments) // a call the server accepted and answered
	}
	cl.latencyMS = tc.DurationMS
	cl.tokens = tc.ResultTokens
	if cl.tokens == 0 && tc.Result != "" && c.counter != nil {
		cl.tokens, _ = c.counter.Measure(tc.Result)
	}
	return cl
}

func (t *tally) add(caseName string, cl call, passed bool, tokenLimit int) {
	t.calls++
	if t.cases == nil {
		t.cases = map[string]bool{}
	}
	t.cases[caseName] = true
	if passed {
		t.passCalls++
	}
	if cl.argError {
		t.argErrors++
	}
	if cl.unchecked {
		t.unchecked++
	}
	if cl.errorResult {
		t.errorResults++
	}
	if cl.expectedError {
		t.expectedErrors++
	}
	if cl.refused {
		t.refused++
	}
	if cl.outputProblem != "" {
		t.outputErrors++
		if len(t.outputProblems) < maxProblems && !slices.Contains(t.outputProblems, cl.outputProblem) {
			t.outputProblems = append(t.outputProblems, cl.outputProblem)
		}
	}
	if cl.argError || cl.errorResult || cl.refused || cl.unknown || cl.outputProblem != "" {
		t.errors++
	}
	if cl.notRun {
		t.notRun++
		return
	}
	t.elicitations += cl.elicitations
	t.unscripted += cl.unscripted
	for _, name := range cl.args {
		if t.passed == nil {
			t.passed = map[string]int{}
		}
		t.passed[name]++
	}
	t.latencies = append(t.latencies, cl.latencyMS)
	t.resultTokens = append(t.resultTokens, cl.tokens)
	if tokenLimit > 0 && cl.tokens > tokenLimit {
		t.overLimit++
	}
}

// Summary returns the coverage and health of every server's tools, and the
// calls to tools no server offers. Hash, MinCoverage and Changes are left
// to the caller.
func (c *Collector) Summary() eval.ToolSummary {
	c.mu.Lock()
	defer c.mu.Unlock()
	sum := eval.ToolSummary{Servers: make([]eval.ServerTools, len(c.servers)), TokenLimit: c.tokenLimit}
	for i, s := range c.servers {
		st := eval.ServerTools{Server: s.Server, ID: s.ID, Name: s.Name, Version: s.Version, NeverCalled: []string{},
			Surface: slices.SortedFunc(slices.Values(s.Tools), func(a, b eval.Tool) int { return cmp.Compare(a.Name, b.Name) })}
		st.Protocol, st.ResourceReads, st.Roots, st.Isolation = s.Protocol, c.reads[s.ID], s.Roots, s.Isolation
		st.Stats = make([]eval.ToolStats, len(st.Surface))
		for j, t := range st.Surface {
			known := c.byKey[toolKey{s.ID, t.Name}]
			st.Stats[j] = known.stats(t.Name)
			st.Stats[j].SchemaProblem = known.schema.Problem()
			st.Stats[j].DefinitionTokens = s.DefinitionTokens[t.Name]
			st.Stats[j].Parameters = known.parameterUse()
			st.DefinitionTokens += st.Stats[j].DefinitionTokens
			for _, p := range st.Stats[j].Parameters {
				st.Parameters++
				if p.Calls > 0 {
					st.ParametersPassed++
				}
			}
			if st.Stats[j].Calls > 0 {
				st.Exercised++
			} else {
				st.NeverCalled = append(st.NeverCalled, t.Name)
			}
		}
		st.Tools = len(st.Surface)
		if st.Tools > 0 {
			st.Coverage = 100 * float64(st.Exercised) / float64(st.Tools)
		}
		if st.Parameters > 0 {
			st.ParameterCoverage = 100 * float64(st.ParametersPassed) / float64(st.Parameters)
		}
		sum.DefinitionTokens += st.DefinitionTokens
		sum.Servers[i] = st
	}
	for _, name := range slices.Sorted(maps.Keys(c.unknown)) {
		sum.Unknown = append(sum.Unknown, c.unknown[name].stats(name))
	}
	for _, k := range slices.SortedFunc(maps.Keys(c.byArm), func(a, b armTool) int {
		return cmp.Or(cmp.Compare(a.arm, b.arm), cmp.Compare(a.server, b.server), cmp.Compare(a.name, b.name))
	}) {
		sum.Overridden = append(sum.Overridden, eval.ArmToolStats{Arm: k.arm, Server: k.server, ToolStats: c.byArm[k].stats(k.name)})
	}
	for _, k := range slices.SortedFunc(maps.Keys(c.perArm), func(a, b armTool) int {
		return cmp.Or(cmp.Compare(a.arm, b.arm), cmp.Compare(a.server, b.server), cmp.Compare(a.name, b.name))
	}) {
		sum.ByArm = append(sum.ByArm, eval.ArmToolStats{Arm: k.arm, Server: k.server, ToolStats: c.perArm[k].stats(k.name)})
	}
	return sum
}

// stats turns a tally into a tool's statistics.
func (t *tally) stats(name string) eval.ToolStats {
	s := eval.ToolStats{
		Name: name, Calls: t.calls, Cases: len(t.cases), Errors: t.errors,
		ErrorResults: t.errorResults, ExpectedErrors: t.expectedErrors, Refused: t.refused, ArgumentErrors: t.argErrors, NotRun: t.notRun,
		OverLimit: t.overLimit, OutputErrors: t.outputErrors, OutputProblems: slices.Clone(t.outputProblems),
		Elicitations: t.elicitations, Unscripted: t.unscripted, Unchecked: t.unchecked,
	}
	if t.calls == 0 {
		return s
	}
	s.ErrorRate = float64(t.errors) / float64(t.calls)
	s.PassShare = float64(t.passCalls) / float64(t.calls)
	latencies := slices.Sorted(slices.Values(t.latencies))
	s.LatencyP50MS, s.LatencyP95MS = Percentile(latencies, 50), Percentile(latencies, 95)
	sizes := slices.Sorted(slices.Values(t.resultTokens))
	s.ResultTokensP50 = Percentile(sizes, 50)
	if len(sizes) > 0 {
		s.ResultTokensMax = sizes[len(sizes)-1]
	}
	return s
}

// Percentile returns the p-th percentile (0 < p <= 100) of sorted values by
// the nearest-rank method: the smallest value with at least p percent of
// the values at or below it. It is 0 for no values.
func Percentile[T int | float64](sorted []T, p float64) T {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}
